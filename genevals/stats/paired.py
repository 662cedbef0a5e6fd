"""The paired test of two systems on the question ids both scored: one seeded paired bootstrap gives the
interval of the mean difference and its two-sided p-value, so "significant" is exactly "the interval excludes 0";
too few pairs get no test at all.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from genevals.keys import id_digest
from genevals.stats.bootstrap import DEFAULT_SEED

#: The fewest pairs a paired test may judge at p < 0.05. Under "no difference" each pair's difference is as
#: likely to have either sign, so n pairs have 2^n equally likely sign patterns, and the most extreme result (every
#: difference of one sign) has the exact two-sided sign-flip p-value 2/2^n = 1/2^(n-1): 1/16 for 5 pairs, 1/32
#: for 6. With 5 pairs or fewer no result can reach 0.05, whatever the bootstrap says (it calls 2 pairs of one
#: sign p < 1/R: every resample has their sign).
MIN_PAIRS = 6
#: What a comparison of fewer than :data:`MIN_PAIRS` pairs says instead of a p-value.
TOO_FEW_PAIRS = "too few pairs to test"
#: A difference within this fraction of the values' scale is float noise, not a difference (:func:`paired_differences`).
NOISE = 1e-12
#: What a comparison of two systems whose values are equal on every pair says instead of a test.
IDENTICAL = "identical on every sample"


def paired_differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r"""The paired differences :math:`d_i = a_i - b_i`, each one within float noise of 0 made exactly 0:
    :math:`|d_i| \le` :data:`NOISE` :math:`\cdot \max(\max_j |a_j|, \max_j |b_j|)` (two ways of summing the same
    numbers differ in their last bits; that is no difference between systems). Every paired comparison takes its
    differences from here."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    diffs = a - b
    if diffs.size:
        scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))))
        diffs[np.abs(diffs) <= NOISE * scale] = 0.0
    return diffs


def too_few_pairs_text(n_pairs: int) -> str:
    """Why a comparison of ``n_pairs`` pairs has no p-value (for the terminal, summary.json and the report)."""
    return (f"{TOO_FEW_PAIRS}: {n_pairs} pair{'s' if n_pairs != 1 else ''}, the smallest p-value possible is "
            f"1/2^{max(n_pairs - 1, 0)} = {0.5 ** max(n_pairs - 1, 0):.4g}; p < 0.05 needs {MIN_PAIRS}")


@dataclass
class PairedComparison:
    """One paired comparison. With fewer than :data:`MIN_PAIRS` pairs there is no test: no interval, no
    p-value (None), never significant. ``identical``: every difference is 0 (:func:`paired_differences`), so no test is
    made either: the mean difference and the interval are exactly 0 and the p-value 1, whatever the number of
    pairs."""
    metric: str
    system_a: str
    system_b: str
    n_pairs: int
    mean_difference: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    identical: bool = False

    @property
    def too_few_pairs(self) -> bool:
        return self.p_value is None

    @property
    def significant(self) -> bool:
        return self.p_value is not None and self.p_value < 0.05

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "a": self.system_a, "b": self.system_b, "n_pairs": self.n_pairs,
                "mean_difference": self.mean_difference, "ci95": [self.ci_low, self.ci_high],
                "p_value": self.p_value, "significant": self.significant, "identical": self.identical}


def untested(metric: str, a_name: str, b_name: str, n_pairs: int, mean_difference: float) -> PairedComparison:
    """The comparison of fewer than :data:`MIN_PAIRS` pairs: the mean difference, and no test."""
    return PairedComparison(metric, a_name, b_name, n_pairs, mean_difference, None, None, None)


def identical(metric: str, a_name: str, b_name: str, n_pairs: int) -> PairedComparison:
    """The comparison of ``n_pairs`` pairs equal on every one: no test, difference 0, p-value 1."""
    return PairedComparison(metric, a_name, b_name, n_pairs, 0.0, 0.0, 0.0, 1.0, identical=True)


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
    shared = [k for _, k in sorted((id_digest(k), k) for k in set(a) & set(b))]
    diffs = paired_differences(np.array([a[k] for k in shared], dtype=float), np.array([b[k] for k in shared], dtype=float))
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
    """:func:`paired_comparison` from the paired differences (:func:`paired_differences`), already in :func:`id_digest`
    order; ``means``: their sorted resample means when already made (:func:`paired_means_of`, the same seed and
    resamples). Differences that are all 0 are :func:`identical`: no bootstrap."""
    if diffs.size < 2:
        return None
    if not np.any(diffs):
        return identical(metric, a_name, b_name, int(diffs.size))
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
