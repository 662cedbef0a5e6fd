"""What ``genevals curate`` is asked, as one frozen value, and the grammar of its rules.

A rule is one of ``flagged``, ``disputed``, ``low:METRIC<X`` (X a finite number) or ``sample:N`` (N >= 1);
:func:`parse_rule` turns the text into a :class:`Rule` or raises :class:`CurateError` saying what is wrong.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

#: near-duplicates: rapidfuzz's ``fuzz.ratio`` (normalised Indel similarity, 0-100) of two normalised
#: question + answer texts at or above this are one item
NEAR_THRESHOLD = 90.0
#: the prefix that makes a reviewer's note a correction (the row's reference): ``reference: About 55 minutes.``
CORRECTION_PREFIX = "reference:"

_LOW = re.compile(r"low:([A-Za-z0-9_.\-]+)<(.+)")
_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


class CurateError(ValueError):
    """Input ``genevals curate`` cannot use: the message names the file (and line) or the option."""


@dataclass(frozen=True)
class Rule:
    """``kind`` is ``flagged``, ``disputed``, ``low`` (``metric`` below ``below``) or ``sample`` (``n`` drawn)."""
    kind: str
    metric: str | None = None
    below: float | None = None
    n: int | None = None

    @property
    def name(self) -> str:
        if self.kind == "low":
            return f"low:{self.metric}<{self.below:g}"
        if self.kind == "sample":
            return f"sample:{self.n}"
        return self.kind


def parse_rule(text: str) -> Rule:
    """The rule ``text`` names; CurateError when it names none."""
    if text in ("flagged", "disputed"):
        return Rule(text)
    low = _LOW.fullmatch(text)
    if low:
        try:
            # ASCII only: float() also reads other scripts' digits ("\u0660.\u0665")
            below = float(low.group(2)) if _NUMBER.fullmatch(low.group(2)) else math.nan
        except ValueError:
            below = math.nan
        if not math.isfinite(below):
            raise CurateError(f"--rule {text[:80]!r}: the bound after '<' must be a finite number")
        return Rule("low", metric=low.group(1), below=below)
    if text.startswith("sample:"):
        n = text[len("sample:"):]
        if not re.fullmatch(r"[0-9]{1,9}", n) or int(n) < 1:  # ASCII digits: int() also reads "\u0663"
            raise CurateError(f"--rule {text[:80]!r}: sample:N needs a whole number N from 1 to 999999999")
        return Rule("sample", n=int(n))
    raise CurateError(f"--rule {text[:80]!r}: expected flagged, disputed, low:METRIC<X or sample:N")


@dataclass(frozen=True)
class CurateConfig:
    """Everything one ``genevals curate`` run is asked."""
    runs: tuple[Path, ...]
    out: Path
    rules: tuple[Rule, ...]
    seed: int = 12345
    #: the metric whose value bands stratify ``sample:N`` (None: the first metric of the first result)
    band_metric: str | None = None
    near: float = NEAR_THRESHOLD
    #: the format of the trace exports among ``runs`` (files, not folders): openinference, langfuse, langsmith
    trace_format: str | None = None
    #: a review store to read instead of each run folder's own ``review.sqlite`` (one run folder only)
    review: Path | None = None
