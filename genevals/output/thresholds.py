"""Pass/fail thresholds in both directions, checked against each output's declared direction and range.

``--fail-under METRIC=VALUE`` sets a minimum on a higher-is-better output (a system fails when its mean is below
VALUE); ``--fail-over METRIC=VALUE`` sets a maximum on a lower-is-better one (``contradiction_rate``,
``unverifiable_rate``, ``first_relevant_rank``: a system fails when its mean is above VALUE). A system with no
scored sample fails either way. :func:`validate` refuses, before anything is scored, a threshold whose metric is
unknown or not computed, whose flag does not match the metric's declared direction, or whose value lies outside
the metric's declared range; every message names the flag to use.

A config file is JSON: ``{"fail_under": {"metric": value}, "fail_over": {"metric": value}}``, or a flat
``{"metric": value}`` read as ``fail_under``. Every limit goes through :func:`limit_value`.

This module imports nothing of scoring: the report and the command line share it.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping

from genevals.files import Refused, read_limited
from genevals.settings.numerals import NotANumeral, number_text
from genevals.suggest import did_you_mean

FAIL_UNDER, FAIL_OVER = "fail_under", "fail_over"
#: a thresholds file's largest size: a threshold per metric is a few hundred bytes
MAX_BYTES = 1 << 20
KINDS = (FAIL_UNDER, FAIL_OVER)
#: the declared direction each kind of threshold belongs to
DIRECTION_OF = {FAIL_UNDER: "higher", FAIL_OVER: "lower"}


def flag(kind: str) -> str:
    """``fail_under`` -> ``--fail-under``."""
    return "--" + kind.replace("_", "-")


@dataclass(frozen=True)
class Threshold:
    metric: str
    limit: float
    kind: str = FAIL_UNDER

    @property
    def symbol(self) -> str:
        return "\u2265" if self.kind == FAIL_UNDER else "\u2264"

    def passes(self, mean: float | None) -> bool:
        """A mean passes a minimum when >= it, a maximum when <= it; no mean never passes."""
        if mean is None:
            return False
        return mean >= self.limit if self.kind == FAIL_UNDER else mean <= self.limit

    def failure(self, system: str, mean: float | None) -> str:
        """The line that says why ``system`` missed this threshold."""
        if mean is None:
            return f"{system}: {self.metric} has no scored samples ({flag(self.kind)} {self.limit:g})"
        op = "<" if self.kind == FAIL_UNDER else ">"
        return f"{system}: {self.metric} = {mean:.4f} {op} {self.limit:g} ({flag(self.kind)})"

    def to_dict(self) -> dict[str, Any]:
        return {"limit": self.limit, "kind": self.kind}


class ThresholdError(ValueError):
    """A threshold that cannot be checked: unknown metric, wrong flag for its direction, value out of range."""


def limit_value(name: str, value: Any) -> float:
    """A threshold's limit: a finite number, given as a number or as text (command line or config file).
    ValueError naming the metric otherwise."""
    if isinstance(value, bool):
        raise ThresholdError(f"threshold for '{name}' is not a number: {value!r}")
    try:
        limit = number_text(value) if isinstance(value, str) else float(value)
    except NotANumeral as exc:
        raise ThresholdError(f"threshold for '{name}' is not a number: '{value}'{exc.advice}") from None
    except (TypeError, ValueError):
        raise ThresholdError(f"threshold for '{name}' is not a number: '{value}'") from None
    if not math.isfinite(limit):
        raise ThresholdError(f"threshold for '{name}' must be a finite number, got '{value}'")
    return limit


def parse(text: str, kind: str = FAIL_UNDER) -> Threshold:
    """``METRIC=VALUE`` as given to ``--fail-under`` / ``--fail-over``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ThresholdError(f"expected METRIC=VALUE, got '{text}'")
    return Threshold(name.strip(), limit_value(name.strip(), value), kind)


def normalise(given: Any) -> dict[str, Threshold]:
    """Metric -> Threshold from Thresholds, or from a mapping of metric -> minimum (or -> Threshold, or ->
    ``{"limit", "kind"}`` as :meth:`Threshold.to_dict` writes it). A later threshold on a metric wins."""
    out: dict[str, Threshold] = {}
    if not given:
        return out
    items: Iterable[Any] = given.items() if isinstance(given, Mapping) else given
    for item in items:
        if isinstance(item, Threshold):
            out[item.metric] = item
            continue
        name, value = item
        if isinstance(value, Threshold):
            out[str(name)] = value
        elif isinstance(value, Mapping):
            kind = value.get("kind", FAIL_UNDER)
            if kind not in KINDS:
                raise ThresholdError(f"threshold for '{name}': kind must be one of {', '.join(KINDS)}")
            out[str(name)] = Threshold(str(name), limit_value(str(name), value.get("limit")), kind)
        else:
            out[str(name)] = Threshold(str(name), limit_value(str(name), value), FAIL_UNDER)
    return out


def load(path: str | Path) -> list[Threshold]:
    """A thresholds config: ``{"fail_under": {...}, "fail_over": {...}}`` or a flat ``{"metric": minimum}``;
    each value a JSON number. ThresholdError naming the file for anything else, a missing file included."""
    path = Path(path)
    try:  # a pipe or a device would hang the read or never end: refused before a byte is read
        raw: Any = json.loads(read_limited(path, MAX_BYTES, "thresholds file").decode("utf-8"))
    except Refused as exc:
        raise ThresholdError(f"--config {path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ThresholdError(f"--config {path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ThresholdError(f"--config {path}: not JSON: {exc}") from None
    if not isinstance(raw, Mapping):
        raise ThresholdError(f"{path}: expected a JSON object of metric -> limit")
    sections = {kind: raw[kind] for kind in KINDS if kind in raw}
    if not sections:
        sections = {FAIL_UNDER: raw}
    elif len(sections) != len(raw):
        extra = ", ".join(sorted(str(k) for k in raw if k not in KINDS))
        raise ThresholdError(f"{path}: unknown key(s) {extra} beside {', '.join(sections)}")
    out: list[Threshold] = []
    for kind, section in sections.items():
        if not isinstance(section, Mapping):
            raise ThresholdError(f"{path}: '{kind}' must be a JSON object of metric -> limit")
        for name, value in section.items():
            if isinstance(value, str):  # text is for the command line; a JSON config holds numbers
                raise ThresholdError(f"{path}: threshold for '{name}' is not a number: {value!r}")
            try:
                out.append(Threshold(str(name), limit_value(str(name), value), kind))
            except ThresholdError as exc:
                raise ThresholdError(f"{path}: {exc}") from None
    return out


def validate(thresholds: Iterable[Threshold], computed: Mapping[str, Mapping[str, Any] | None],
             declared: Callable[[str], Mapping[str, Any] | None] | None = None,
             known: Collection[str] = ()) -> None:
    """Refuse every threshold that cannot be checked, in one message.

    ``computed``: the outputs the run(s) compute -> their declaration (``direction``, ``range``; None when
    unknown); ``declared(name)``: the declaration of a metric the run does not compute (None for a name no
    metric has); ``known``: more names for the did-you-mean.
    """
    problems = []
    for t in thresholds:
        where = f"{flag(t.kind)} {t.metric}={t.limit:g}"
        if t.metric in computed:
            decl = computed[t.metric]
        else:
            decl = declared(t.metric) if declared is not None else None
            if decl is None:
                hint = did_you_mean(t.metric, [*computed, *known])
                problems.append(f"{where}: unknown metric '{t.metric}'{hint} (see `genevals metrics`)")
            else:
                names = ", ".join(sorted(computed)[:12]) + (" ..." if len(computed) > 12 else "")
                direction = decl.get("direction") if isinstance(decl, Mapping) else None
                right = FAIL_OVER if direction == "lower" else FAIL_UNDER
                also = (f" (and, being {direction}-is-better, it takes {flag(right)})"
                        if direction in DIRECTION_OF.values() and right != t.kind else "")
                problems.append(f"{where}: {t.metric} is not computed in this run (it computes {names or 'nothing'})"
                                f"; add it to --metrics or drop the threshold{also}")
            continue
        if not isinstance(decl, Mapping):
            continue
        direction = decl.get("direction", "higher")
        if direction == "neither":
            problems.append(f"{where}: {t.metric} has no better direction (a count), so it takes no threshold")
            continue
        if direction != DIRECTION_OF[t.kind]:
            right = FAIL_OVER if direction == "lower" else FAIL_UNDER
            problems.append(f"{where}: {t.metric} is {direction}-is-better; use {flag(right)} "
                            f"{t.metric}={t.limit:g} (a {'maximum' if right == FAIL_OVER else 'minimum'})")
            continue
        lo, hi = (list(decl.get("range") or [None, None]) + [None, None])[:2]
        if (isinstance(lo, (int, float)) and t.limit < lo) or (isinstance(hi, (int, float)) and t.limit > hi):
            shown = f"[{'-inf' if lo is None else f'{lo:g}'}, {'inf' if hi is None else f'{hi:g}'}]"
            problems.append(f"{where}: {t.limit:g} is outside {t.metric}'s range {shown}")
    if problems:
        raise ThresholdError("bad thresholds:\n  " + "\n  ".join(problems) if len(problems) > 1
                             else "bad threshold: " + problems[0])


def failures(thresholds: Iterable[Threshold], systems: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Every (system, metric) that misses its threshold; ``systems``: system -> metric -> {"mean": ...}.
    A metric no system has is a failure too."""
    out = []
    for t in thresholds:
        found = False
        for system, metrics in systems.items():
            if t.metric not in metrics:
                continue
            found = True
            mean = metrics[t.metric].get("mean")
            if not t.passes(mean):
                out.append(t.failure(system, mean))
        if not found:
            out.append(f"{t.metric}: not computed ({flag(t.kind)} {t.limit:g})")
    return out
