"""A metric's settings, checked where the metric reads them: thin names for the one checker of
:mod:`genevals.settings` (a value of the wrong type or out of range is a ValueError naming it, never a value
quietly rounded: ``int(1.5)`` is 1)."""
from __future__ import annotations

from genevals.settings import flag, number, whole

__all__ = ["whole", "number", "flag"]
