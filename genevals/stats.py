"""Every statistic genevals reports, with one seed: means with percentile-bootstrap confidence intervals and
paired comparisons between systems (agreement of binary decisions with human labels:
:mod:`genevals.stats_agreement`; intervals by conversation: :mod:`genevals.stats_cluster`).

Unscored results never enter a mean; they are counted, by status, next to it.
"""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from genevals.keys import id_digest
from genevals.types import NOT_COUNTED

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000
#: below this share of scored samples a mean gets no band and a warning (``--min-coverage``)
DEFAULT_MIN_COVERAGE = 0.8


@dataclass
class MetricSummary:
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


def bootstrap_ci(values: Sequence[float], seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
                 confidence: float = 0.95) -> tuple[float, float]:
    r"""Percentile bootstrap of the mean.

    Draw ``resamples`` samples of size n with replacement using ``numpy.random.default_rng(seed)``, take each
    mean, and return the :math:`(1-c)/2` and :math:`(1+c)/2` quantiles. The same values and seed give the
    same interval, so summaries reproduce exactly.
    """
    return bootstrap_cis([values], seed, resamples, confidence)[0]


def bootstrap_cis(columns: Sequence[Sequence[float]], seed: int = DEFAULT_SEED,
                  resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> list[tuple[float, float]]:
    """:func:`bootstrap_ci` of each column, each interval exactly as that function gives it.

    The resampled positions depend only on the seed and a column's length, so the columns of one length share
    one draw (a run's 32 retrieval outputs all have one length): each block of indices is drawn once and every
    column of that length is averaged over it."""
    data = [np.asarray(values, dtype=float) for values in columns]
    out: list[tuple[float, float] | None] = [None] * len(data)
    ahead = sys.modules.get("genevals.stats_ahead")  # loaded only by a caller that makes intervals ahead
    if ahead is not None and ahead.pending():  # the same intervals, taken
        keys = [ahead.key(column, seed, resamples, confidence) for column in data]
        made = ahead.take(keys)
        out = [made.get(k) for k in keys]
    return intervals(data, out, seed, resamples, confidence)


def intervals(data: list[np.ndarray], out: list[tuple[float, float] | None], seed: int, resamples: int,
              confidence: float) -> list[tuple[float, float]]:
    """:func:`bootstrap_cis` of the columns of ``data`` whose interval in ``out`` is None."""
    by_size: dict[int, list[int]] = {}
    for i, column in enumerate(data):
        if out[i] is not None:
            continue
        if column.size == 1:
            out[i] = (float(column[0]), float(column[0]))
        else:
            by_size.setdefault(column.size, []).append(i)
    alpha = (1.0 - confidence) / 2.0
    for size, members in by_size.items():
        rng = np.random.default_rng(seed)
        means = np.empty((len(members), resamples))
        # Resample in blocks so 100,000 values x 1,000 resamples never materialise at once.
        block = max(1, 2_000_000 // size)
        for start in range(0, resamples, block):
            stop = min(resamples, start + block)
            idx = rng.integers(0, size, size=(stop - start, size))
            for row, i in enumerate(members):
                # np.take, not data[i][idx]: the same values, faster, and it lets the GIL go (stats_ahead)
                means[row, start:stop] = np.take(data[i], idx).mean(axis=1)
        for row, i in enumerate(members):
            low, high = np.quantile(means[row], [alpha, 1.0 - alpha])
            out[i] = (float(low), float(high))
    return out  # type: ignore[return-value]


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


def bootstrap_repeats_ci(repeats: Sequence[Sequence[float]], seed: int = DEFAULT_SEED,
                         resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> tuple[float, float]:
    r"""Percentile bootstrap of the mean that includes the judge's variance: two stages, samples then repeats.

    ``repeats[i]`` holds sample i's scores over its judge repeats (one or more). Each resample draws n samples
    with replacement, then for each drawn sample :math:`m_i` of its own scores with replacement, and takes
    :math:`\frac{1}{n}\sum_i \frac{1}{m_i}\sum_j x_{ij}^*`; the :math:`(1-c)/2` and :math:`(1+c)/2` quantiles
    of those means are the interval (Davison & Hinkley 1997, sec. 3.8). With one score per sample it is
    :func:`bootstrap_ci`'s interval of the samples' scores. The samples are taken in sorted order, so the same
    scores give the same interval whatever order they were counted in (local, worker or Ray engines).
    """
    rows = sorted(tuple(float(v) for v in r) for r in repeats if len(r))
    if not rows:
        raise ValueError("bootstrap_repeats_ci: no scores")
    if len(rows) == 1 and len(set(rows[0])) == 1:
        return rows[0][0], rows[0][0]
    width = max(len(r) for r in rows)
    n = len(rows)
    values = np.full((n, width), np.nan)
    counts = np.empty(n, dtype=int)
    for i, r in enumerate(rows):
        values[i, :len(r)], counts[i] = r, len(r)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, 2_000_000 // (n * width))
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        picked = rng.integers(0, n, size=(stop - start, n))
        # each drawn sample's repeats, drawn with replacement from its own m_i scores
        cols = (rng.random((stop - start, n, width)) * counts[picked][..., None]).astype(int)
        scores = values[picked[..., None], cols]
        within = np.arange(width)[None, None, :] < counts[picked][..., None]
        sample_means = np.where(within, scores, 0.0).sum(axis=2) / counts[picked]
        means[start:stop] = sample_means.mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


#: The fewest pairs a paired test may judge at p < 0.05. Under "no difference" each pair's difference is as
#: likely to have either sign, so n pairs have 2^n equally likely sign patterns, and the most extreme result (every
#: difference of one sign) has the exact two-sided sign-flip p-value 2/2^n = 1/2^(n-1): 1/16 for 5 pairs, 1/32
#: for 6. With 5 pairs or fewer no result can reach 0.05, whatever the bootstrap says (it calls 2 pairs of one
#: sign p < 1/R: every resample has their sign).
MIN_PAIRS = 6
#: What a comparison of fewer than :data:`MIN_PAIRS` pairs says instead of a p-value.
TOO_FEW_PAIRS = "too few pairs to test"


def too_few_pairs_text(n_pairs: int) -> str:
    """Why a comparison of ``n_pairs`` pairs has no p-value (for the terminal, summary.json and the report)."""
    return (f"{TOO_FEW_PAIRS}: {n_pairs} pair{'s' if n_pairs != 1 else ''}, the smallest p-value possible is "
            f"1/2^{max(n_pairs - 1, 0)} = {0.5 ** max(n_pairs - 1, 0):.4g}; p < 0.05 needs {MIN_PAIRS}")


@dataclass
class PairedComparison:
    """One paired comparison. With fewer than :data:`MIN_PAIRS` pairs there is no test: no interval, no
    p-value (None), never significant."""
    metric: str
    system_a: str
    system_b: str
    n_pairs: int
    mean_difference: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None

    @property
    def too_few_pairs(self) -> bool:
        return self.p_value is None

    @property
    def significant(self) -> bool:
        return self.p_value is not None and self.p_value < 0.05

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "a": self.system_a, "b": self.system_b, "n_pairs": self.n_pairs,
                "mean_difference": self.mean_difference, "ci95": [self.ci_low, self.ci_high],
                "p_value": self.p_value, "significant": self.significant}


def untested(metric: str, a_name: str, b_name: str, n_pairs: int, mean_difference: float) -> PairedComparison:
    """The comparison of fewer than :data:`MIN_PAIRS` pairs: the mean difference, and no test."""
    return PairedComparison(metric, a_name, b_name, n_pairs, mean_difference, None, None, None)


#: Bootstrap draws (resamples x pairs) held in memory at once (16 MB of float64), whatever the number of pairs.
SIGN_FLIP_BLOCK = 2_000_000  # the name is kept for callers; the draws are now bootstrap resamples


def paired_comparison(metric: str, a_name: str, a: Mapping[str, float], b_name: str, b: Mapping[str, float],
                      seed: int = DEFAULT_SEED, resamples: int = 10_000,
                      block: int = SIGN_FLIP_BLOCK) -> PairedComparison | None:
    r"""Compare two systems on the question ids both scored, with one paired bootstrap for both the interval
    and the p-value, so the two can never disagree.

    :math:`d_i = a_i - b_i`. Draw ``R = resamples`` resamples of the n pairs with replacement (one seeded
    generator) and sort their means :math:`m_{(1)} \le \dots \le m_{(R)}`. With :math:`c = \lceil 0.025 R
    \rceil`, the 95% interval is :math:`[m_{(c)}, m_{(R+1-c)}]` (percentile bootstrap), and the two-sided
    p-value is :func:`bootstrap_p_value` (the bootstrap test by inverting the interval; never 0, never below
    the exact sign-flip bound :math:`2^{-(n-1)}`). Then ``p < 0.05`` exactly when the interval excludes 0, for every
    R >= 40 (fewer are raised to 40). With fewer than :data:`MIN_PAIRS` pairs no test is made (see there):
    the interval and p-value are None and the comparison is not significant. Resamples are
    drawn in blocks of rows, so memory stays bounded and the result does not depend on the block size. Pairs
    are taken in the order of :func:`id_digest` of their ids.
    """
    shared = sorted((id_digest(k), k) for k in set(a) & set(b))
    diffs = np.array([a[k] - b[k] for _, k in shared], dtype=float)
    return paired_comparison_of_differences(metric, a_name, b_name, diffs, seed, resamples, block)


def paired_bootstrap_means(diffs: np.ndarray, seed: int, resamples: int, block: int = SIGN_FLIP_BLOCK
                           ) -> np.ndarray:
    """The sorted means of ``resamples`` bootstrap resamples of ``diffs`` (one seeded generator, in blocks)."""
    return paired_bootstrap_means_many([diffs], seed, resamples, block)[0]


def paired_bootstrap_means_many(columns: Sequence[np.ndarray], seed: int, resamples: int,
                                block: int = SIGN_FLIP_BLOCK) -> list[np.ndarray]:
    """:func:`paired_bootstrap_means` of each column, all of one size: the resampled positions depend only on the
    seed, the size and the block, so each block of them is drawn once for every column (one pair of systems'
    32 retrieval outputs: one draw of 10,000 x n positions instead of 32), and each column's means are the same."""
    size = columns[0].size
    rng = np.random.default_rng(seed)
    rows = max(1, block // size)
    means = np.empty((len(columns), resamples))
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, size, size=(stop - start, size))
        for i, diffs in enumerate(columns):
            means[i, start:stop] = np.take(diffs, idx).mean(axis=1)
    return [np.sort(row) for row in means]


def paired_means_of(columns: Sequence[np.ndarray], seed: int = DEFAULT_SEED, resamples: int = 10_000
                    ) -> list[np.ndarray | None]:
    """For each column of paired differences, the sorted resample means
    :func:`paired_comparison_of_differences` would compute (None where it makes none: fewer than
    :data:`MIN_PAIRS`), the columns of one size sharing their draws (:func:`paired_bootstrap_means_many`)."""
    resamples = _paired_resamples(resamples)
    out: list[np.ndarray | None] = [None] * len(columns)
    by_size: dict[int, list[int]] = {}
    for i, column in enumerate(columns):
        if _tested(column.size):
            by_size.setdefault(column.size, []).append(i)
    for members in by_size.values():
        for i, means in zip(members, paired_bootstrap_means_many([columns[i] for i in members], seed, resamples)):
            out[i] = means
    return out


def _tested(n_pairs: int) -> bool:
    """Whether n paired differences get a bootstrap (a CI and a p-value): at least 2 and :data:`MIN_PAIRS`."""
    return n_pairs >= max(2, MIN_PAIRS)


def _paired_resamples(resamples: int) -> int:
    return max(40, int(resamples))  # from 40 on, p < 0.05 exactly when the interval excludes 0


def paired_comparison_of_differences(metric: str, a_name: str, b_name: str, diffs: np.ndarray,
                                     seed: int = DEFAULT_SEED, resamples: int = 10_000,
                                     block: int = SIGN_FLIP_BLOCK, means: np.ndarray | None = None
                                     ) -> PairedComparison | None:
    """:func:`paired_comparison` from the paired differences, already in :func:`id_digest` order; ``means``: their
    sorted resample means when already made (:func:`paired_means_of`, the same seed and resamples)."""
    if diffs.size < 2:
        return None
    if not _tested(diffs.size):
        return untested(metric, a_name, b_name, int(diffs.size), float(diffs.mean()))
    resamples = _paired_resamples(resamples)
    if means is None:
        means = paired_bootstrap_means(diffs, seed, resamples, block)
    c = -(-resamples // 40)  # ceil(0.025 R)
    low, high = float(means[c - 1]), float(means[resamples - c])
    p_value = bootstrap_p_value(means, int(diffs.size))
    return PairedComparison(metric, a_name, b_name, int(diffs.size), float(diffs.mean()), low, high, p_value)


def bootstrap_p_value(sorted_means: np.ndarray, n_units: int) -> float:
    r"""The two-sided p-value of a paired bootstrap from its ``R`` sorted resample means over ``n_units``
    resampled units (pairs, or conversations): :math:`\max(2^{-(n-1)}, \min(1, \max(1, 2 \min(\#\{m \le 0\},
    \#\{m \ge 0\})) / R))`.

    Never exactly 0: with no resample on the far side of 0, 1/R is all R resamples can say. Never below
    :math:`2^{-(n-1)}`, the exact sign-flip p-value of n differences all of one sign: n units cannot carry more
    evidence than that, and without the floor 6 pairs of one sign would read "p < 0.001" instead of 0.031. For
    n >= :data:`MIN_PAIRS` the floor is below 0.05, so ``p < 0.05`` still holds exactly when the interval
    excludes 0."""
    resamples = sorted_means.size
    at_or_below = int(np.searchsorted(sorted_means, 0.0, side="right"))
    at_or_above = resamples - int(np.searchsorted(sorted_means, 0.0, side="left"))
    p_value = min(1.0, max(1, 2 * min(at_or_below, at_or_above)) / resamples)
    return max(p_value, 0.5 ** max(n_units - 1, 0))
