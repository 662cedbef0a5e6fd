"""Interpretation bands and pass/fail thresholds for the HTML report.

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

For rates where lower is better (``contradiction_rate``, ``unverifiable_rate``) the band is read on
``1 - mean``: a contradiction rate of 0.05 is "Excellent". Metrics that are not on a 0-1 scale
(``first_relevant_rank``, a 1-based rank) get no band.

Thresholds are minimums, exactly as ``genevals run --fail-under``: a system passes METRIC=VALUE when its mean
is >= VALUE and fails when it is below, or when the metric has no scored sample. A config file is JSON,
either a flat ``{"metric": value}`` object or ``{"fail_under": {"metric": value}}``.
"""
from __future__ import annotations

import json
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
#: Metrics where a smaller value is better.
LOWER_IS_BETTER = frozenset({"first_relevant_rank", "contradiction_rate", "unverifiable_rate"})
#: Metrics that are not on a 0-1 scale and so get no band.
UNBANDED = frozenset({"first_relevant_rank"})
#: A starting point for a thresholds config (see README); never applied unless asked for.
SUGGESTED_THRESHOLDS: dict[str, float] = {
    "mrr": 0.6,
    "hit_rate@5": 0.75,
    "ndcg@10": 0.7,
    "bertscore_f1": 0.65,
    "faithfulness": 0.8,
}


def band(metric: str, mean: float | None) -> str | None:
    """The band name for ``mean`` of ``metric``, or None when the metric has no band or no mean."""
    if mean is None or metric in UNBANDED:
        return None
    value = 1.0 - mean if metric in LOWER_IS_BETTER else mean
    if value < 0.0 or value > 1.0 + 1e-9:
        return None
    for name, limit in BANDS:
        if value >= limit:
            return name
    return BANDS[-1][0]


def check(mean: float | None, limit: float) -> bool:
    """True when ``mean`` passes the minimum ``limit`` (same rule as ``genevals run --fail-under``)."""
    return mean is not None and mean >= limit


def load_thresholds(path: str | Path) -> dict[str, float]:
    """Read a thresholds config: ``{"metric": value}`` or ``{"fail_under": {"metric": value}}``."""
    raw: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(raw, Mapping) and isinstance(raw.get("fail_under"), Mapping):
        raw = raw["fail_under"]
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: expected a JSON object of metric -> minimum")
    out: dict[str, float] = {}
    for name, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{path}: threshold for '{name}' is not a number: {value!r}")
        out[str(name)] = float(value)
    return out


def bands_table() -> list[dict[str, Any]]:
    """The band limits as the report shows them."""
    return [{"name": name, "min": limit} for name, limit in BANDS]
