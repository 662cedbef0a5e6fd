"""Did-you-mean for names a user types: metric names, thresholds, input fields, ``--map`` columns."""
from __future__ import annotations

import difflib
from typing import Iterable


def closest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate that differs from ``name`` only in case ("rougel" -> "rougeL"), else the closest one
    (difflib ratio >= 0.6), or None."""
    candidates = sorted(set(candidates))
    same = [c for c in candidates if c.lower() == name.lower() and c != name]
    if same:
        return same[0]
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest candidate, or "" when none is close."""
    found = closest(name, candidates)
    return f"; did you mean '{found}'?" if found else ""
