r"""Statistics of conversation turns: the turns of one conversation are not independent (one user, one topic,
one retrieval index state), so their mean's interval comes from a cluster bootstrap over conversations, and
two systems are compared by pairing conversations (Field & Welsh 2007, "Bootstrapping clustered data"; Davison
& Hinkley 1997, sec. 3.8).

A value that belongs to no conversation is a cluster of its own, so a run without conversations gets exactly
the percentile bootstrap of :mod:`genevals.stats` in distribution (not draw for draw: that path is kept as it
was for such runs).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from genevals.keys import id_digest
from genevals.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from genevals.stats.paired import (MIN_PAIRS, PairedComparison, bootstrap_p_value, identical, paired_differences,
                                   untested)
from genevals.stats.summary import MetricSummary, unscored_count

#: codes are kept as float64 in spilled columns: below 2**53 they are exact
CODE_BITS = (1 << 53) - 1
#: (resamples x clusters) drawn at once at most
BLOCK = 2_000_000


def conversation_code(system: str, conversation_id: str) -> int:
    """A conversation's cluster code: the same in every process (worker engines count parts apart)."""
    return id_digest(f"conversation\x00{len(system)}:{system}{conversation_id}") & CODE_BITS


def clusters_of(values: Sequence[float], codes: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(sum, count) of the values of each cluster, the clusters in a canonical order (by count, then sum): the
    turn-level mean of any resample depends on these pairs only, so the interval does not depend on the order
    the values were counted in, nor on the codes themselves."""
    values, codes = np.asarray(values, dtype=float), np.asarray(codes, dtype=float)
    _, inverse = np.unique(codes, return_inverse=True)
    sums = np.bincount(inverse, weights=values)
    counts = np.bincount(inverse).astype(float)
    order = np.lexsort((sums, counts))
    return sums[order], counts[order]


def _resampled_means(sums: np.ndarray, counts: np.ndarray, seed: int, resamples: int) -> np.ndarray:
    r"""The turn-level means :math:`\sum_c s^*_c / \sum_c n^*_c` of ``resamples`` draws of the K clusters with
    replacement (one seeded generator, in blocks of rows)."""
    k = sums.size
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    rows = max(1, BLOCK // k)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        idx = rng.integers(0, k, size=(stop - start, k))
        means[start:stop] = np.take(sums, idx).sum(axis=1) / np.take(counts, idx).sum(axis=1)
    return means


def cluster_bootstrap_ci(values: Sequence[float], codes: Sequence[float], seed: int = DEFAULT_SEED,
                         resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> tuple[float, float]:
    r"""Percentile cluster bootstrap of the turn-level mean.

    With the values grouped into K clusters (conversations), cluster c holding :math:`n_c` values summing to
    :math:`s_c`, the estimate is :math:`\bar x = \sum_c s_c / \sum_c n_c` (the mean of all turns). Each of the R
    resamples draws K clusters with replacement and takes :math:`\sum s^*_c / \sum n^*_c`; the
    :math:`(1-c)/2` and :math:`(1+c)/2` quantiles of those R means are the interval. Correlated turns make the
    clusters' means vary more than independent turns would, and the interval widens accordingly; with one value
    per cluster it is :func:`genevals.stats.bootstrap_ci`'s interval in distribution. One cluster: no spread to
    resample, the interval is the mean itself."""
    sums, counts = clusters_of(values, codes)
    if sums.size == 0:
        raise ValueError("cluster_bootstrap_ci: no values")
    if sums.size == 1:
        mean = float(sums[0] / counts[0])
        return mean, mean
    means = _resampled_means(sums, counts, seed, resamples)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def summarise_clustered(values: Sequence[float], codes: Sequence[float], statuses: Mapping[str, int],
                        conversations: int | None = None, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """:meth:`MetricSummary.to_dict` of the scored turn values with the cluster bootstrap's interval, and the
    coverage in conversations as well as turns: ``conversations`` (with a scored turn), ``conversations_total``
    (every conversation of the system, when given) and ``ci_method``. ``codes`` are conversation codes
    (:func:`conversation_code`, from 0) and, for a sample of no conversation, a negative code of its own."""
    values = np.asarray(values, dtype=float)
    unscored = unscored_count(statuses)
    if not values.size:
        summary = MetricSummary(None, None, None, 0, unscored, dict(statuses)).to_dict()
        scored_conversations = 0
    else:
        low, high = cluster_bootstrap_ci(values, codes, seed)
        summary = MetricSummary(float(np.mean(np.sort(values))), low, high, int(values.size), unscored,
                                dict(statuses)).to_dict()
        found = np.unique(np.asarray(codes, dtype=float))
        scored_conversations = int(np.sum(found >= 0))  # a negative code is a sample of no conversation
    summary["conversations"] = scored_conversations
    if conversations is not None:
        summary["conversations_total"] = conversations
    summary["ci_method"] = "cluster bootstrap over conversations"
    return summary


def paired_clustered(metric: str, a_name: str, a: Mapping[str, float], b_name: str, b: Mapping[str, float],
                     conversation_of: Mapping[str, str], seed: int = DEFAULT_SEED, resamples: int = 10_000
                     ) -> PairedComparison | None:
    r"""Compare two systems on the turns both scored, pairing conversations: a turn's difference
    :math:`d_i = a_i - b_i` belongs to its conversation (``conversation_of[id]``; an id without one is its own),
    and each of the R resamples draws the K conversations with replacement and takes
    :math:`\sum d^*/\sum n^*`. The interval and the p-value come from the same sorted means as in
    :func:`genevals.stats.paired_comparison` (:math:`c = \lceil 0.025R \rceil`; :math:`p = \min(1, \max(1,
    2\min(\#\{m \le 0\}, \#\{m \ge 0\}))/R)`), so ``p < 0.05`` exactly when the interval excludes 0.
    ``n_pairs`` counts conversations, and fewer than :data:`genevals.stats.MIN_PAIRS` of them get no test."""
    shared = sorted(set(a) & set(b), key=id_digest)
    if not shared:
        return None
    diffs = paired_differences(np.array([a[k] for k in shared], dtype=float),
                               np.array([b[k] for k in shared], dtype=float))
    codes = np.array([conversation_code("", conversation_of[k]) if k in conversation_of
                      else -1.0 - i for i, k in enumerate(shared)], dtype=float)
    return paired_clustered_differences(metric, a_name, b_name, diffs, codes, seed, resamples)


def paired_clustered_differences(metric: str, a_name: str, b_name: str, diffs: np.ndarray, codes: np.ndarray,
                                 seed: int = DEFAULT_SEED, resamples: int = 10_000) -> PairedComparison | None:
    """:func:`paired_clustered` from the paired differences and each one's cluster code."""
    sums, counts = clusters_of(diffs, codes)
    if sums.size < 2:
        return None
    if not np.any(diffs):  # every pair equal: no test (genevals.stats.paired.identical)
        return identical(metric, a_name, b_name, int(sums.size))
    if sums.size < MIN_PAIRS:  # the sign-flip bound counts the units resampled: conversations
        return untested(metric, a_name, b_name, int(sums.size), float(diffs.mean()))
    resamples = max(40, int(resamples))
    means = np.sort(_resampled_means(sums, counts, seed, resamples))
    c = -(-resamples // 40)
    low, high = float(means[c - 1]), float(means[resamples - c])
    p_value = bootstrap_p_value(means, int(sums.size))
    return PairedComparison(metric, a_name, b_name, int(sums.size), float(diffs.mean()), low, high, p_value)
