"""Pure ranking metrics over one query: a ranked list of ids and graded relevance labels (qrels).

Conventions shared by every function here (they follow trec_eval unless a docstring says otherwise):

* ``ranking`` is the retrieved ids, best first, already deduplicated. The order is used exactly as
  given: nothing here sorts by score (trec_eval sorts by score itself; do that before calling).
* ``qrels`` maps id -> graded relevance. Ids missing from ``qrels`` are unjudged and count as grade 0.
* An id is *relevant* when ``grade >= relevance_level`` (default 1, trec_eval ``-l``). ``R`` is the
  number of relevant ids in ``qrels`` (retrieved or not).
* Graded metrics (nDCG, ERR) use the grades themselves, not the binary relevance: a grade below
  ``relevance_level`` but above 0 still earns gain (as trec_eval ``ndcg_cut``). Negative grades earn 0.
* ``k`` is a cutoff >= 1; positions are 1-based; ``rel_i`` is 1 if the item at position i is relevant.
* Functions return 0.0 where trec_eval prints 0 for a query with nothing to find (R = 0); callers that
  want to flag such queries (``genevals.metrics.retrieval.retrieval.Retrieval`` does) must check R themselves.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

_DISCOUNTS: list[float] = []  # _DISCOUNTS[i] = 1 / log2(i + 2): the discount of 1-based rank i + 1


def _discounts(n: int) -> list[float]:
    while len(_DISCOUNTS) < n:
        _DISCOUNTS.append(1.0 / math.log2(len(_DISCOUNTS) + 2))
    return _DISCOUNTS


def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"cutoff k must be an integer >= 1, got {k!r}")


def num_relevant(qrels: Mapping[str, float], relevance_level: float = 1) -> int:
    """R = |{d in qrels : grade(d) >= relevance_level}|."""
    return sum(1 for g in qrels.values() if g >= relevance_level)


def _rel_flags(ranking: Sequence[str], qrels: Mapping[str, float], relevance_level: float) -> list[bool]:
    get = qrels.get
    return [get(d, 0.0) >= relevance_level for d in ranking]


def linear_gain(grade: float) -> float:
    """gain(g) = g for g > 0, else 0 (trec_eval ndcg / ranx 'jarvelin')."""
    return grade if grade > 0 else 0.0


def exp_gain(grade: float) -> float:
    """gain(g) = 2^g - 1 for g > 0, else 0 (Burges et al. 2005 / ranx 'burges')."""
    return 2.0 ** grade - 1.0 if grade > 0 else 0.0


_GAINS = {"linear": linear_gain, "exp": exp_gain}


def precision_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int,
                   relevance_level: float = 1) -> float:
    """P@k = (sum_{i<=k} rel_i) / k.

    Divides by k even when fewer than k ids were retrieved (trec_eval ``P_k``).
    """
    _check_k(k)
    return sum(_rel_flags(ranking[:k], qrels, relevance_level)) / k


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int,
                relevance_level: float = 1) -> float:
    """R@k = (sum_{i<=k} rel_i) / R, and 0 when R = 0 (trec_eval ``recall_k``)."""
    _check_k(k)
    total = num_relevant(qrels, relevance_level)
    return sum(_rel_flags(ranking[:k], qrels, relevance_level)) / total if total else 0.0


def f1_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int,
            relevance_level: float = 1) -> float:
    """F1@k = 2 P@k R@k / (P@k + R@k), and 0 when both are 0."""
    p = precision_at_k(ranking, qrels, k, relevance_level)
    r = recall_at_k(ranking, qrels, k, relevance_level)
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def hit_rate_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int,
                  relevance_level: float = 1) -> float:
    """Hit@k = 1 if any of the top k is relevant, else 0 (trec_eval ``success_k``)."""
    _check_k(k)
    return 1.0 if any(_rel_flags(ranking[:k], qrels, relevance_level)) else 0.0


def first_relevant_rank(ranking: Sequence[str], qrels: Mapping[str, float],
                        relevance_level: float = 1) -> int | None:
    """min{i : rel_i = 1}, the 1-based rank of the first relevant id; None when none was retrieved."""
    get = qrels.get
    for i, d in enumerate(ranking):
        if get(d, 0.0) >= relevance_level:
            return i + 1
    return None


def reciprocal_rank(ranking: Sequence[str], qrels: Mapping[str, float],
                    relevance_level: float = 1) -> float:
    """RR = 1 / first_relevant_rank, and 0 when nothing relevant was retrieved (trec_eval
    ``recip_rank``). MRR is its mean over queries."""
    r = first_relevant_rank(ranking, qrels, relevance_level)
    return 1.0 / r if r is not None else 0.0


def average_precision(ranking: Sequence[str], qrels: Mapping[str, float],
                      relevance_level: float = 1) -> float:
    """AP = (1/R) * sum_{i : rel_i = 1} P@i, and 0 when R = 0.

    R counts every relevant id in ``qrels``, retrieved or not, so unretrieved relevant ids contribute
    precision 0 (trec_eval ``map``; MAP is its mean over queries).
    """
    total = num_relevant(qrels, relevance_level)
    if not total:
        return 0.0
    hits = 0
    acc = 0.0
    for i, rel in enumerate(_rel_flags(ranking, qrels, relevance_level)):
        if rel:
            hits += 1
            acc += hits / (i + 1)
    return acc / total


def dcg_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None = None,
             gain: str = "linear") -> float:
    """DCG@k = sum_{i<=k} gain(grade_i) / log2(i + 1); ``k=None`` means the whole ranking.

    ``gain`` is "linear" (g) or "exp" (2^g - 1); negative and missing grades earn 0.
    """
    if k is not None:
        _check_k(k)
        ranking = ranking[:k]
    g = _GAINS[gain]
    disc = _discounts(len(ranking))
    get = qrels.get
    return sum(g(get(d, 0.0)) * disc[i] for i, d in enumerate(ranking))


def ideal_dcg_at_k(qrels: Mapping[str, float], k: int | None = None, gain: str = "linear") -> float:
    """IDCG@k: DCG@k of the qrels' grades sorted in descending order (all of them when ``k=None``)."""
    g = _GAINS[gain]
    gains = sorted((g(v) for v in qrels.values() if v > 0), reverse=True)
    if k is not None:
        _check_k(k)
        gains = gains[:k]
    disc = _discounts(len(gains))
    return sum(x * disc[i] for i, x in enumerate(gains))


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None = None,
              gain: str = "linear") -> float:
    """nDCG@k = DCG@k / IDCG@k with linear gain g and 1/log2(i + 1) discount; 0 when IDCG@k = 0.

    With the default linear gain this is trec_eval ``ndcg_cut_k`` (and ``ndcg`` when ``k=None``): the
    ideal list is built from every positive grade in ``qrels`` and cut at k. ``relevance_level`` plays
    no part: any positive grade earns gain, as in trec_eval.
    """
    ideal = ideal_dcg_at_k(qrels, k, gain)
    return dcg_at_k(ranking, qrels, k, gain) / ideal if ideal > 0 else 0.0


def ndcg_exp_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None = None) -> float:
    """nDCG@k with exponential gain 2^g - 1 (Burges et al. 2005; ranx ``ndcg_burges``), else as
    :func:`ndcg_at_k`."""
    return ndcg_at_k(ranking, qrels, k, gain="exp")


def err_at_k(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None = None) -> float:
    """Expected Reciprocal Rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009).

    ERR@k = sum_{r<=k} (1/r) * R_r * prod_{i<r} (1 - R_i), with stopping probability
    R_i = (2^g_i - 1) / 2^g_max, where g_i = max(grade_i, 0) and g_max is the maximum grade in
    ``qrels`` (so a top-graded id has R = 1 - 2^-g_max, never 1). 0 when g_max <= 0.
    """
    if k is not None:
        _check_k(k)
        ranking = ranking[:k]
    g_max = max(qrels.values(), default=0.0)
    if g_max <= 0:
        return 0.0
    scale = 2.0 ** g_max
    get = qrels.get
    p_continue = 1.0
    total = 0.0
    for i, d in enumerate(ranking):
        r = exp_gain(get(d, 0.0)) / scale
        total += p_continue * r / (i + 1)
        p_continue *= 1.0 - r
    return total


def auc(ranking: Sequence[str], qrels: Mapping[str, float], relevance_level: float = 1) -> float | None:
    """ROC AUC of the ranking: P(a relevant id is ranked above a non-relevant one).

    Pairs are (relevant id in ``qrels``, non-relevant *retrieved* id); non-relevant means
    grade < relevance_level, unjudged ids included. Relevant ids that were not retrieved count as
    ranked below every retrieved id, so they lose all their pairs. Ties cannot occur in a ranking.

        AUC = |{(a, b) : a relevant, b retrieved non-relevant, rank(a) < rank(b)}| / (R * N)

    where N is the number of retrieved non-relevant ids. Undefined (None) when R = 0 or N = 0.
    Unretrieved non-relevant ids are unknown and take no part.
    """
    total = num_relevant(qrels, relevance_level)
    above = 0
    correct = 0
    nonrel = 0
    for rel in _rel_flags(ranking, qrels, relevance_level):
        if rel:
            above += 1
        else:
            nonrel += 1
            correct += above
    if total == 0 or nonrel == 0:
        return None
    return correct / (total * nonrel)


def evaluate(ranking: Sequence[str], qrels: Mapping[str, float], cutoffs: Iterable[int],
             relevance_level: float = 1) -> dict[str, float | int | None]:
    """Every metric above in one pass over the ranking: O(n + m log m + |cutoffs|) for n retrieved
    ids and m qrels entries.

    Keys: ``precision@k``, ``recall@k``, ``f1@k``, ``hit_rate@k``, ``ndcg@k``, ``ndcg_exp@k``,
    ``err@k`` for each cutoff, plus ``mrr``, ``map``, ``first_relevant_rank`` (None when nothing
    relevant was retrieved), ``auc`` (None when undefined) and ``num_relevant``. Values equal those of
    the single-metric functions (the tests check this).
    """
    cuts = sorted(set(cutoffs))
    for k in cuts:
        _check_k(k)
    get = qrels.get
    total = 0
    pos_lin: list[float] = []
    g_max = 0.0
    for v in qrels.values():
        if v >= relevance_level:
            total += 1
        if v > 0:
            pos_lin.append(v)
            if v > g_max:
                g_max = v
    pos_lin.sort(reverse=True)
    n = len(ranking)
    disc = _discounts(max(n, min(len(pos_lin), cuts[-1] if cuts else 0)))
    scale = 2.0 ** g_max

    hits = 0
    ap_acc = 0.0
    first = None
    dcg_lin = 0.0
    dcg_exp = 0.0
    err = 0.0
    p_continue = 1.0
    auc_correct = 0
    nonrel = 0
    snaps: dict[int, tuple[int, float, float, float]] = {}
    ci = 0
    for i, d in enumerate(ranking):
        g = get(d, 0.0)
        if g >= relevance_level:
            hits += 1
            ap_acc += hits / (i + 1)
            if first is None:
                first = i + 1
        else:
            nonrel += 1
            auc_correct += hits
        if g > 0:
            dcg_lin += g * disc[i]
            eg = 2.0 ** g - 1.0
            dcg_exp += eg * disc[i]
            r = eg / scale
            err += p_continue * r / (i + 1)
            p_continue *= 1.0 - r
        while ci < len(cuts) and cuts[ci] == i + 1:
            snaps[cuts[ci]] = (hits, dcg_lin, dcg_exp, err)
            ci += 1
    final = (hits, dcg_lin, dcg_exp, err)

    # Ideal DCG at each cutoff, accumulated once over the grades sorted descending.
    ideals: dict[int, tuple[float, float]] = {}
    ideal_lin = ideal_exp = 0.0
    ci = 0
    for j, x in enumerate(pos_lin[:cuts[-1]] if cuts else ()):
        ideal_lin += x * disc[j]
        ideal_exp += (2.0 ** x - 1.0) * disc[j]
        while ci < len(cuts) and cuts[ci] == j + 1:
            ideals[cuts[ci]] = (ideal_lin, ideal_exp)
            ci += 1
    ideal_final = (ideal_lin, ideal_exp)

    out: dict[str, float | int | None] = {}
    for k in cuts:
        h, dl, de, e = snaps.get(k, final)
        p = h / k
        rec = h / total if total else 0.0
        ideal_lin, ideal_exp = ideals.get(k, ideal_final)
        out[f"precision@{k}"] = p
        out[f"recall@{k}"] = rec
        out[f"f1@{k}"] = 2 * p * rec / (p + rec) if p + rec > 0 else 0.0
        out[f"hit_rate@{k}"] = 1.0 if h else 0.0
        out[f"ndcg@{k}"] = dl / ideal_lin if ideal_lin > 0 else 0.0
        out[f"ndcg_exp@{k}"] = de / ideal_exp if ideal_exp > 0 else 0.0
        out[f"err@{k}"] = e
    out["mrr"] = 1.0 / first if first is not None else 0.0
    out["map"] = ap_acc / total if total else 0.0
    out["first_relevant_rank"] = first
    out["auc"] = auc_correct / (total * nonrel) if total and nonrel else None
    out["num_relevant"] = total
    return out
