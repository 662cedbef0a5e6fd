"""The validation card of ``genevals label``'s offline grader: how far a ranking of retrieval systems by its qrels
agrees with the ranking by human qrels.

Measured by ``benchmarks/bench_judged_qrels.py`` (benchmarks/RESULTS.md, "Issue 40: how far judged qrels can be
trusted"): Cranfield 1400's 116 development queries, 12 systems (BM25, TF-IDF, MiniLM dense, their RRF fusions and
degraded variants), each ranked by MAP and nDCG@10 under the human qrels and under the offline grader's qrels of
the depth-10 pool; Kendall tau with a 95% bootstrap interval over topics. The card leads with the out-of-sample
figure (``offline_cv``: each topic graded by weights and cut points fit without it, 5 folds grouped by query), as
the shipped grader's own calibration saw these queries. The figures are a copy of the
``card`` entry of ``benchmarks/judged_qrels.json`` (the package does not ship the benchmarks);
tests/labels/test_card.py checks that the two agree.

Beside each tau, the baselines that say what it is worth: random grades given to the same pool (pooling alone
already ranks a random ranker last under MAP) and the human grades of the same pool (a perfect judge, limited by
the pool only). An LLM judge has no card here: its agreement depends on the model.
"""
from __future__ import annotations

import copy
from typing import Any

#: benchmarks/judged_qrels.json's "card": per measure [tau, 95% low, 95% high] (random: [mean over seeds, min, max]);
#: one line per figure set (offline and offline_cv are two measurements that came out equal on this pool)
MEASURED: dict[str, Any] = {
    "collection": "cranfield: 1400 documents, 116 queries",
    "systems": 12,
    "pool_depth": 10,
    "date": "2026-11-26",
    "offline": {"map": [0.8788, 0.7273, 0.8788], "ndcg@10": [0.6364, 0.5455, 0.7879]},
    "offline_cv": {"map": [0.8788, 0.7273, 0.8788], "ndcg@10": [0.6364, 0.5455, 0.7879]},
    "pearson": {"map": [0.9756, 0.9495, 0.9852], "ndcg@10": [0.9467, 0.9072, 0.9712]},
    "random": {"map": [0.6243, 0.5758, 0.697], "ndcg@10": [0.1212, -0.3636, 0.3939]},
    "human_pool": {"map": [0.9091, 0.8485, 1.0], "ndcg@10": [1.0, 0.9091, 1.0]},
    "without_minilm": {"map": [0.9286, 0.7143, 1.0], "ndcg@10": [0.8571, 0.6429, 1.0]},
}


def card(judge: str = "offline") -> dict[str, Any] | None:
    """``{"figures": ..., "lines": [...]}`` for the offline grader; None for an LLM judge (not measured)."""
    if judge != "offline" or not MEASURED:
        return None
    return {"figures": copy.deepcopy(MEASURED), "lines": lines(MEASURED)}


def lines(f: dict[str, Any]) -> list[str]:
    """The card as a few sentences of text."""

    def tau(entry: list[float | None] | None, interval: bool = True) -> str:
        if not entry or entry[0] is None:
            return "n/a"
        return f"{entry[0]:.2f}" + (f" [{entry[1]:.2f}, {entry[2]:.2f}]" if interval and entry[1] is not None else "")

    off, rnd, perfect = f.get("offline_cv") or f["offline"], f.get("random") or {}, f.get("human_pool") or {}
    held = "offline_cv" in f and f["offline_cv"] is not None
    out = [f"Systems ranked by these labels vs by human qrels ({f['collection']}, {f['systems']} systems, pool depth "
           f"{f['pool_depth']}): Kendall tau {tau(off['map'])} by MAP, {tau(off['ndcg@10'])} by nDCG@10 (95% CI over "
           "topics" + ("; out of sample: each topic graded by a grader fit without it, 5 folds by query)." if held
                       else ")."),
           f"Random grades on the same pool: {tau(rnd.get('map'), False)} by MAP, {tau(rnd.get('ndcg@10'), False)} by "
           f"nDCG@10; human grades on the same pool (a perfect judge): {tau(perfect.get('map'), False)}, "
           f"{tau(perfect.get('ndcg@10'), False)}."]
    if f.get("without_minilm"):
        out.append("It favours systems built on its own model (MiniLM embeddings): without them, tau "
                   f"{tau(f['without_minilm']['map'], False)} by MAP, {tau(f['without_minilm']['ndcg@10'], False)} by "
                   "nDCG@10 (the shipped grader).")
    if held:
        out.append(f"The shipped grader, calibrated on these queries, gives {tau(f['offline']['map'], False)} and "
                   f"{tau(f['offline']['ndcg@10'], False)} (in-sample). Per pair it is a weak "
                   "judge; use it to rank systems, not to grade a document (benchmarks/RESULTS.md).")
    else:
        out.append("In-sample: the grader was calibrated on these queries' BM25 top 10 (benchmarks/RESULTS.md).")
    return out
