"""A metric's summary: the mean of its scored values with a bootstrap interval, and its unscored samples
counted by status beside it. Unscored results never enter a mean.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from genevals.stats.bootstrap import DEFAULT_SEED, bootstrap_cis
from genevals.types import NOT_COUNTED

#: below this share of scored samples a mean gets no band and a warning (``--min-coverage``)
DEFAULT_MIN_COVERAGE = 0.8


@dataclass
class MetricSummary:
    """One metric's mean of its scored values and their 95% interval (None when nothing was scored), with the
    unscored samples counted by status: what summary.json, the terminal and the report show for it."""
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    scored: int
    unscored: int
    statuses: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": self.mean,
            "ci95": [self.ci_low, self.ci_high] if self.mean is not None else None,
            "scored": self.scored,
            "unscored": self.unscored,
            # the samples the mean covers, beside it: scored of total
            "total": self.scored + self.unscored,
            "coverage": self.scored / (self.scored + self.unscored) if self.scored + self.unscored else None,
            "statuses": self.statuses,
        }


def unscored_count(statuses: Mapping[str, int]) -> int:
    """The samples left unscored, by their status counts: every status but ok, and but those that mark a sample
    as not the one to score (:data:`~genevals.types.NOT_COUNTED`: a conversation metric's other turns)."""
    return sum(n for status, n in statuses.items() if status != "ok" and status not in NOT_COUNTED)


def summarise(values: Iterable[float | None], statuses: Iterable[str] | Mapping[str, int],
              seed: int = DEFAULT_SEED) -> MetricSummary:
    """Mean and bootstrap interval of the scored values; ``statuses`` is one status per sample, or their counts."""
    return summarise_many([(values, statuses)], seed)[0]


def summarise_many(columns: Sequence[tuple[Iterable[float | None], Iterable[str] | Mapping[str, int]]],
                   seed: int = DEFAULT_SEED) -> list[MetricSummary]:
    """:func:`summarise` of each (values, statuses), with one bootstrap draw per column length
    (:func:`bootstrap_cis`): the same summaries, byte for byte."""
    prepared = []
    for values, statuses in columns:
        scored = (values if isinstance(values, np.ndarray)
                  else np.asarray([v for v in values if v is not None], dtype=float))
        # Sorted, so the mean and the bootstrap depend on the values only, not on the order samples finished in
        # (judged samples are written as they finish): the same input gives the same summary, byte for byte.
        counts = Counter(statuses) if not isinstance(statuses, Mapping) else Counter(dict(statuses))
        prepared.append((np.sort(scored), counts))
    scored_columns = [scored for scored, _ in prepared if scored.size]
    intervals = iter(bootstrap_cis(scored_columns, seed=seed))
    out = []
    for scored, counts in prepared:
        unscored = unscored_count(counts)
        if not scored.size:
            out.append(MetricSummary(None, None, None, 0, unscored, dict(counts)))
            continue
        low, high = next(intervals)
        out.append(MetricSummary(float(np.mean(scored)), low, high, len(scored), unscored, dict(counts)))
    return out
