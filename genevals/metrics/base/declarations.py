"""What a metric declares as data, beside its code: its kind (how the engines run it) and its outputs (name,
one-line definition, direction, range), whose names may be templates ("recall@{k}") that the registry reads the
metric-name grammar from."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Kinds of metric: how the engines run it.
CHEAP = "cheap"  # pure CPU work on one sample, picklable: may be spread over worker processes
MODEL = "model"  # loads a model once per process (BERTScore): Ray runs it in an actor pool
JUDGE = "judge"  # slow, paid calls: samples are written one by one as they finish, in judge actors on Ray
KINDS = (CHEAP, MODEL, JUDGE)
DIRECTIONS = ("higher", "lower", "neither")
#: what an output template's placeholder matches
#: (ASCII digits: ``\d`` also matches "١٠", which int() reads as 10 and no output is named)
_PLACEHOLDERS = {"k": r"(?P<k>[0-9]+)", "criterion": r"(?P<criterion>[a-z][a-z0-9_]*)"}


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else _PLACEHOLDERS[p] for i, p in enumerate(parts)) + r"\Z")


@dataclass(frozen=True)
class Output:
    """One value a metric writes per sample.

    ``name`` may hold one placeholder, ``{k}`` (a cutoff, an integer >= 1: "recall@{k}") or ``{criterion}``
    (a lowercase name: "rubric_{criterion}"); the registry derives the metric-name grammar from them.
    ``direction``: whether higher or lower values are better ("neither" for counts). ``range``: the values it
    can take, None for unbounded on that side. ``integer``: every value is a whole number (a count, a rank), shown
    as one ("9", never "9.0000"); its means and intervals are not counts and keep their decimals.
    """

    name: str
    definition: str
    direction: str = "higher"
    range: tuple[float | None, float | None] = (0.0, 1.0)
    integer: bool = False

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"output {self.name}: direction must be one of {', '.join(DIRECTIONS)}")

    @property
    def is_template(self) -> bool:
        return "{" in self.name

    def to_dict(self) -> dict[str, Any]:
        found = {"definition": self.definition, "direction": self.direction, "range": list(self.range)}
        return {**found, "integer": True} if self.integer else found

