"""The ranking metrics of :func:`genevals.metrics.retrieval.ranking.evaluate` for a whole batch of queries at once.

Each query's ranking becomes one row of a grade matrix (padded with grade 0 past its end); every metric is then
a running sum or product along the rows, taken at each cutoff. ``np.cumsum`` and ``np.cumprod`` add and multiply
in rank order, as the one-query loop does, and a position that earns nothing adds exactly 0.0, so the values
are the same floats as :func:`~genevals.metrics.retrieval.ranking.evaluate`'s
(``tests/metrics/retrieval/test_ranking_columns.py`` checks equality). Formulas and conventions:
:mod:`genevals.metrics.retrieval.ranking`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from genevals.metrics.retrieval.ranking import _check_k, _discounts

if TYPE_CHECKING:
    import numpy as np


def evaluate_many(rankings: Sequence[Sequence[str]], qrels: Sequence[Mapping[str, float]], cutoffs: Iterable[int],
                  relevance_level: float = 1) -> dict[str, np.ndarray]:
    """:func:`~genevals.metrics.retrieval.ranking.evaluate` of each (ranking, qrels) pair, as one array per key.

    Same keys; ``first_relevant_rank`` is 0 and ``auc`` is NaN where ``evaluate`` gives None; ``num_relevant``
    is an integer array."""
    import numpy as np  # here: the registry imports every metrics module, also for `genevals --help`

    cuts = sorted(set(cutoffs))
    for k in cuts:
        _check_k(k)
    n = len(rankings)
    lengths = np.fromiter((len(r) for r in rankings), dtype=np.int64, count=n)
    depth = max(int(lengths.max(initial=0)), 1)
    grades = np.zeros((n, depth))
    totals = np.zeros(n, dtype=np.int64)
    g_max = np.zeros(n)
    positives: list[list[float]] = []
    for q, (ranking, labels) in enumerate(zip(rankings, qrels)):
        get = labels.get
        grades[q, :len(ranking)] = [get(d, 0.0) for d in ranking]
        values = labels.values()
        totals[q] = sum(1 for v in values if v >= relevance_level)
        pos = sorted((v for v in values if v > 0), reverse=True)
        positives.append(pos)
        if pos:
            g_max[q] = pos[0]
    width = max(max((len(p) for p in positives), default=0), 1)
    ideal = np.zeros((n, width))
    for q, pos in enumerate(positives):
        ideal[q, :len(pos)] = pos
    n_pos = np.fromiter((len(p) for p in positives), dtype=np.int64, count=n)
    return evaluate_grades(grades, lengths, ideal, n_pos, totals, g_max, cuts, relevance_level)


def evaluate_grades(grades: np.ndarray, lengths: np.ndarray, ideal: np.ndarray, n_pos: np.ndarray,
                    totals: np.ndarray, g_max: np.ndarray, cuts: Sequence[int], relevance_level: float
                    ) -> dict[str, np.ndarray]:
    """The arrays of :func:`evaluate_many` from the queries' grades in rank order (``grades``: one row per query,
    padded with 0 past ``lengths``), their positive labels sorted descending (``ideal``, padded with 0; ``n_pos``
    of them), the number of relevant labels (``totals``) and the largest label (``g_max``, 0 when none is
    positive); ``cuts`` sorted and checked. The columnar retrieval path
    (:mod:`genevals.metrics.retrieval.columnar`) calls it with grades joined from columns, never a dict."""
    import numpy as np

    n, depth = grades.shape
    width = ideal.shape[1]
    # Only the first `head` ranks count towards an @k output (k <= the largest cutoff); map, auc and the first
    # relevant rank count every rank, but only the relevant ones change them: they are summed over those alone.
    head = max(1, min(depth, cuts[-1] if cuts else 1))
    disc = np.asarray(_discounts(max(head, width, cuts[-1] if cuts else 1))[:max(head, width)])
    valid = np.arange(depth) < lengths[:, None]
    rel_all = (grades >= relevance_level) & valid
    at_q, at_rank = np.nonzero(rel_all)  # every relevant position, by query, in rank order
    del rel_all
    found = np.bincount(at_q, minlength=n)  # relevant documents retrieved, per query
    offsets = np.concatenate(([0], np.cumsum(found)[:-1]))
    nth = np.arange(len(at_q)) - offsets[at_q]  # 0 for a query's first relevant position, 1 for its second, ...
    # AP: the precision at each relevant rank added in rank order, as the one-query loop adds (the ranks between
    # add exactly 0.0), in a matrix of the relevant ranks alone
    precision_at = np.zeros((n, max(int(found.max(initial=0)), 1)))
    precision_at[at_q, nth] = (nth + 1) / (at_rank + 1.0)
    ap = np.cumsum(precision_at, axis=1)[:, -1]
    # AUC's correctly ordered pairs: for each relevant document, the non-relevant ones retrieved below it
    auc_correct = np.bincount(at_q, weights=(lengths[at_q] - at_rank - 1) - (found[at_q] - nth - 1),
                              minlength=n).astype(np.int64)
    nonrel = lengths - found
    any_rel = found > 0
    first = np.zeros(n, dtype=np.int64)
    first[at_q[::-1]] = at_rank[::-1] + 1  # each query's smallest relevant rank written last

    grades, valid = grades[:, :head], valid[:, :head]
    rel = (grades >= relevance_level) & valid
    hits = np.cumsum(rel, axis=1)
    ranks = np.arange(1, head + 1, dtype=float)
    positive = grades > 0
    dcg_lin = np.cumsum(np.where(positive, grades * disc[:head], 0.0), axis=1)
    gains = np.where(positive, np.power(2.0, grades) - 1.0, 0.0)
    dcg_exp = np.cumsum(gains * disc[:head], axis=1)
    r = gains / np.power(2.0, g_max)[:, None]
    # p_continue before each position: the running product of (1 - r) over the positions above it
    before = np.ones((n, head))
    if head > 1:
        before[:, 1:] = np.cumprod(1.0 - r[:, :-1], axis=1)
    err = np.cumsum(np.where(positive, before * r / ranks, 0.0), axis=1)

    ideal_lin = np.cumsum(ideal * disc[:width], axis=1)
    ideal_exp = np.cumsum(np.where(ideal > 0, np.power(2.0, ideal) - 1.0, 0.0) * disc[:width], axis=1)

    rows = np.arange(n)
    empty = lengths == 0
    out: dict[str, np.ndarray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for k in cuts:
            at = np.minimum(k, lengths) - 1
            at = np.where(empty, 0, at)
            h = np.where(empty, 0, hits[rows, at])
            p = h / k
            rec = np.where(totals > 0, h / np.maximum(totals, 1), 0.0)
            i_at = np.maximum(np.minimum(k, n_pos) - 1, 0)
            il = np.where(n_pos > 0, ideal_lin[rows, i_at], 0.0)
            ie = np.where(n_pos > 0, ideal_exp[rows, i_at], 0.0)
            dl = np.where(empty, 0.0, dcg_lin[rows, at])
            de = np.where(empty, 0.0, dcg_exp[rows, at])
            out[f"precision@{k}"] = p
            out[f"recall@{k}"] = rec
            out[f"f1@{k}"] = np.where(p + rec > 0, 2 * p * rec / (p + rec), 0.0)
            out[f"hit_rate@{k}"] = (h > 0).astype(float)
            out[f"ndcg@{k}"] = np.where(il > 0, dl / il, 0.0)
            out[f"ndcg_exp@{k}"] = np.where(ie > 0, de / ie, 0.0)
            out[f"err@{k}"] = np.where(empty, 0.0, err[rows, at])
        out["mrr"] = np.where(any_rel, 1.0 / np.maximum(first, 1), 0.0)
        out["map"] = np.where(totals > 0, ap / np.maximum(totals, 1), 0.0)
        out["first_relevant_rank"] = first
        out["auc"] = np.where((totals > 0) & (nonrel > 0), auc_correct / (totals * np.maximum(nonrel, 1)), np.nan)
    out["num_relevant"] = totals
    return out
