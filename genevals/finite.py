"""A stored value as a finite number, or None: how every reader of values it did not write itself (the report,
the comparisons between systems, the OpenTelemetry export) takes a number from a run folder or a summary.

Anything else (a string, a bool, NaN, an infinity, an integer past a double's range from a hand-edited file) is
None, never an error, so a damaged file shows a gap instead of stopping the reader.
"""
from __future__ import annotations

import math
from typing import Any


def num(value: Any, digits: int | None = 6) -> float | None:
    """A finite number (rounded to ``digits`` for display; None: as it is), else None."""
    if type(value) is float:  # most calls (every context's score, every value): no further checks
        if value - value != 0.0:  # inf or nan
            return None
        return value if digits is None else round(value, digits)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:  # an integer past a double's range (a 400-digit score in a results file)
        return None
    if not math.isfinite(value):
        return None
    return value if digits is None else round(value, digits)
