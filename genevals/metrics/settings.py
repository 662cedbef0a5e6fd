"""A metric's settings (``options[family]`` in the API, ``--metric-option`` on the command line), checked where
the metric reads them: a setting of the wrong type or out of range is a ValueError naming it when the metric
is built (:func:`genevals.registry.select` adds the family: "metric 'retrieval': cutoffs: ..."), never a
value quietly rounded (``int(1.5)`` is 1) or a run that asks the judge for 0 claims.
"""
from __future__ import annotations

import math
import numbers
from typing import Any


def _shown(value: Any) -> str:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and not -10**20 < value < 10**20:
        return "a larger number"  # repr() of a 5,000-digit int is itself an error
    return repr(value)


def whole(name: str, value: Any, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer setting (not a bool, not 1.5; numpy's integers too) in [minimum, maximum], as an int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: expected a whole number, got {_shown(value)}")
    if value < minimum or (maximum is not None and value > maximum):
        limits = f"from {minimum:,} to {maximum:,}" if maximum is not None else f"{minimum:,} or more"
        raise ValueError(f"{name}: expected a whole number {limits}, got {_shown(value)}")
    return int(value)


def number(name: str, value: Any, minimum: float | None = None, maximum: float | None = None) -> float:
    """A finite real setting (not a bool, not a string) in [minimum, maximum], as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a number, got {_shown(value)}")
    try:
        value = float(value)
    except OverflowError:  # an int past a double's range
        raise ValueError(f"{name}: expected a finite number, got {_shown(value)}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        low = "" if minimum is None else f"{minimum:g}"
        high = "" if maximum is None else f"{maximum:g}"
        raise ValueError(f"{name}: expected a number in [{low or '-inf'}, {high or 'inf'}], got {value:g}")
    return value


def flag(name: str, value: Any) -> bool:
    """A true/false setting: a bool (numpy's too), not "no" (truthy) or 0."""
    if type(value).__name__ == "bool_":  # numpy.bool_, without importing numpy
        value = bool(value)
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected true or false, got {_shown(value)}")
    return value
