"""Interpretation bands, what each metric's declaration says about them, and pass/fail thresholds.

Bands describe a mean on the 0-1 scale that most genevals metrics share:

=========  ===================
band       mean (higher better)
=========  ===================
Excellent  >= 0.80
Good       >= 0.60
Moderate   >= 0.40
Fair       >= 0.20
Poor       <  0.20
=========  ===================

They are rough reading aids, not calibrated quality levels: what counts as "good" ROUGE-2 is far lower than
what counts as "good" hit rate, so pass/fail in a report comes only from explicit thresholds.

Which metric gets a band, and which way, comes from the run folder's ``outputs.json`` (each output's declared
``direction`` and ``range``), never from a list of metric names here (:func:`metric_facts`):

* an output declared on ``[0, 1]`` (or on ``[null, 1]``, a score capped at 1 such as BERTScore) is on the unit
  scale; one declared on any other range (``first_relevant_rank``: ``[1, null]``) is not, and gets no band;
* ``direction`` "lower" is banded on ``1 - mean`` (a contradiction rate of 0.05 is "Excellent"); "neither"
  gets no band;
* for a run written before ``outputs.json`` existed, ``genevals report`` supplies the declarations of the metrics
  installed now; an output declared nowhere counts as "higher", and as on the unit scale when every value seen
  lies in ``[0, 1]``.

Thresholds are minimums, exactly as ``genevals run --fail-under``: a system passes METRIC=VALUE when its mean
is >= VALUE and fails when it is below, or when the metric has no scored sample. A config file is JSON,
either a flat ``{"metric": value}`` object or ``{"fail_under": {"metric": value}}``; every limit goes through
:func:`threshold_value`, the one check the command line uses too.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping

#: (name, lower limit) from best to worst; a mean falls into the first band whose limit it reaches.
BANDS: tuple[tuple[str, float], ...] = (
    ("Excellent", 0.8),
    ("Good", 0.6),
    ("Moderate", 0.4),
    ("Fair", 0.2),
    ("Poor", 0.0),
)
#: The directions an output may declare; an undeclared or unknown one reads as the first.
DIRECTIONS = ("higher", "lower", "neither")
#: A starting point for a thresholds config (see README); never applied unless asked for.
SUGGESTED_THRESHOLDS: dict[str, float] = {
    "mrr": 0.6,
    "hit_rate@5": 0.75,
    "ndcg@10": 0.7,
    "bertscore_f1": 0.65,
    "faithfulness": 0.8,
}


def _on_unit_scale(declared: Any) -> bool | None:
    """Whether a declared ``[lo, hi]`` is a score capped at 1 (``hi == 1``, ``lo`` 0, below 0 or open: BERTScore
    is declared ``[null, 1]`` since rescaled values can dip below 0); None when it is no range at all."""
    if not isinstance(declared, (list, tuple)) or len(declared) != 2:
        return None
    if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in declared):
        return None
    return declared[1] == 1 and (declared[0] is None or declared[0] <= 0)


def metric_facts(name: str, declaration: Any, seen: tuple[float, float] | None) -> dict[str, Any]:
    """The page's entry for one metric: ``lower_better``, ``unit`` (drawn on a 0-1 scale) and ``banded``.

    ``declaration``: the metric's entry in outputs.json (None when the run has none); ``seen``: the smallest
    and largest value of the metric in the report (None when it has no value), used only without a declared
    range.
    """
    declaration = declaration if isinstance(declaration, Mapping) else {}
    direction = declaration.get("direction")
    direction = direction if direction in DIRECTIONS else DIRECTIONS[0]
    unit = _on_unit_scale(declaration.get("range"))
    if unit is None:
        unit = seen is None or (seen[0] >= 0.0 and seen[1] <= 1.0)
    return {"name": name, "lower_better": direction == "lower", "unit": unit,
            "banded": unit and direction != "neither"}


def band(facts: Mapping[str, Any], mean: float | None) -> str | None:
    """The band name for ``mean`` of the metric described by ``facts`` (from :func:`metric_facts`), or None
    when it has no band or no mean. The page's ``bandOf`` applies the same rule."""
    if mean is None or not facts.get("banded"):
        return None
    value = 1.0 - mean if facts.get("lower_better") else mean
    if value < 0.0 or value > 1.0 + 1e-9:
        return None
    for name, limit in BANDS:
        if value >= limit:
            return name
    return BANDS[-1][0]


def bands_table() -> list[dict[str, Any]]:
    """The band limits as the report shows them."""
    return [{"name": name, "min": limit} for name, limit in BANDS]


def threshold_value(name: str, value: Any) -> float:
    """A threshold's limit: a finite number, given as a number or as text (command line or config file).
    ValueError naming the metric otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"threshold for '{name}' is not a number: {value!r}")
    try:
        limit = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"threshold for '{name}' is not a number: '{value}'") from None
    if not math.isfinite(limit):
        raise ValueError(f"threshold for '{name}' must be a finite number, got '{value}'")
    return limit


def check(mean: float | None, limit: float) -> bool:
    """True when ``mean`` passes the minimum ``limit`` (same rule as ``genevals run --fail-under``)."""
    return mean is not None and mean >= limit


def load_thresholds(path: str | Path) -> dict[str, float]:
    """Read a thresholds config: ``{"metric": value}`` or ``{"fail_under": {"metric": value}}``; each value a
    JSON number (:func:`threshold_value`)."""
    raw: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(raw, Mapping) and isinstance(raw.get("fail_under"), Mapping):
        raw = raw["fail_under"]
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: expected a JSON object of metric -> minimum")
    out: dict[str, float] = {}
    for name, value in raw.items():
        if isinstance(value, str):  # text is for the command line; a JSON config holds numbers
            raise ValueError(f"{path}: threshold for '{name}' is not a number: {value!r}")
        try:
            out[str(name)] = threshold_value(str(name), value)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    return out
