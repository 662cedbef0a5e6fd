"""The label command's card, computed from what ``bench_judged_qrels.py`` measured: the generator of
``genevals/labels/label_card.json`` (``bench_judged_qrels.py --card``), and of nothing else.

Every figure comes from the per-topic matrices (systems x topics, per labeller and measure) the benchmark keeps in
``judged_qrels.json`` (``per_topic``), so :func:`figures` can be run again on them alone: tests/labels/test_card.py
does, and checks the card holds what it gives.

- out of sample: the ``offline_cv`` labeller (each topic graded by a grader fit without it), Kendall tau [95% CI];
- the best trivial baseline per measure: of every pooled document relevant (``pool``), word overlap
  (``overlap``) and random grades (``random``, seed 0), the highest tau, with the paired bootstrap interval of
  tau(offline_cv) - tau(baseline) (the same resampled topics for both) and a verdict: better when the interval is
  above 0, worse when below, level when it covers 0;
- random grades (mean over seeds) and the human grades of the pool (a perfect judge), for scale;
- the systems not built on MiniLM, out of sample;
- the shipped grader's own tau (``offline``), in-sample.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

MEASURES = ("map", "ndcg@10")
TRIVIAL = {"pool": "every pooled document relevant (no judge)", "overlap": "word overlap with the query",
           "random": "random grades (seed 0)"}
CV_HOW = "each query graded by a grader fit without it, 5 folds grouped by query"


def _draws(topics: int, boot: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, topics, size=(boot, topics))


def _taus(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of each row of ``a`` (resamples x systems) with the same row of ``b``, at once:
    (n_c - n_d) / sqrt(pairs untied in a * pairs untied in b) over the system pairs (scipy's kendalltau, vectorised;
    NaN where either side ties every system)."""
    i, j = np.triu_indices(a.shape[1], 1)
    sa, sb = np.sign(a[:, i] - a[:, j]), np.sign(b[:, i] - b[:, j])
    denominator = np.sqrt((sa != 0).sum(1) * (sb != 0).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sa * sb).sum(1) / denominator


def _tau(a: np.ndarray, b: np.ndarray) -> float:
    return float(_taus(a[None, :], b[None, :])[0])


def _round(x: float) -> float | None:
    return round(float(x), 4) if np.isfinite(x) else None


def _ci(values: Sequence[float]) -> list[float] | None:
    finite = [v for v in values if np.isfinite(v)]
    return [round(float(np.percentile(finite, q)), 4) for q in (2.5, 97.5)] if finite else None


def tau_ci(human: np.ndarray, judged: np.ndarray, boot: int) -> dict[str, Any]:
    """Kendall tau of the system means, and its percentile 95% interval over ``boot`` resamples of the topics."""
    draws = _draws(human.shape[1], boot)
    h, j = human[:, draws].mean(2), judged[:, draws].mean(2)
    return {"tau": _round(_tau(human.mean(1), judged.mean(1))), "ci95": _ci(_taus(h.T, j.T).tolist())}


def versus(human: np.ndarray, judged: np.ndarray, baseline: np.ndarray, boot: int) -> dict[str, Any]:
    """tau(judged) - tau(baseline), each against ``human``, with the paired percentile 95% interval (the same
    resampled topics for both) and its verdict."""
    draws = _draws(human.shape[1], boot)
    h, j, b = (m[:, draws].mean(2) for m in (human, judged, baseline))
    diff = _tau(human.mean(1), judged.mean(1)) - _tau(human.mean(1), baseline.mean(1))
    ci = _ci((_taus(h.T, j.T) - _taus(h.T, b.T)).tolist())
    verdict = None if ci is None else "better" if ci[0] > 0 else "worse" if ci[1] < 0 else "level"
    return {"difference": _round(diff), "difference_ci95": ci, "verdict": verdict}


def figures(matrices: Mapping[str, Mapping[str, np.ndarray]], random_taus: Mapping[str, Sequence[float]],
            systems: Sequence[str], minilm: frozenset[str], boot: int) -> dict[str, Any]:
    """The card's figures from ``matrices`` (labeller -> measure -> systems x topics values: human, offline,
    offline_cv, human_pool, pool, overlap, random) and each random seed's tau per measure."""
    human = matrices["human"]
    out: dict[str, Any] = {"out_of_sample": {"how": CV_HOW}, "in_sample": {}, "best_trivial": {},
                           "baselines": {"random": {"seeds": len(next(iter(random_taus.values())))},
                                         "human_pool": {}}}
    others = [i for i, s in enumerate(systems) if s not in minilm]
    if 2 < len(others) < len(systems):
        out["without_minilm"] = {"systems": len(others), "out_of_sample": {}}
    for m in MEASURES:
        out["out_of_sample"][m] = tau_ci(human[m], matrices["offline_cv"][m], boot)
        out["in_sample"][m] = tau_ci(human[m], matrices["offline"][m], boot)
        out["baselines"]["human_pool"][m] = tau_ci(human[m], matrices["human_pool"][m], boot)
        taus = [t for t in random_taus[m] if t is not None and np.isfinite(t)]
        out["baselines"]["random"][m] = {"tau": _round(np.mean(taus)) if taus else None,
                                         "range": [_round(min(taus)), _round(max(taus))] if taus else None}
        # a baseline that ties every system (every pooled document relevant, by nDCG@10) ranks nothing
        candidates = {name: _tau(human[m].mean(1), matrices[name][m].mean(1)) for name in TRIVIAL
                      if name in matrices and np.ptp(matrices[name][m].mean(1)) > 0}
        if candidates:
            name = max(candidates, key=lambda n: candidates[n])
            out["best_trivial"][m] = {"name": name, "label": TRIVIAL[name],
                                      **tau_ci(human[m], matrices[name][m], boot),
                                      **versus(human[m], matrices["offline_cv"][m], matrices[name][m], boot)}
        if "without_minilm" in out:
            out["without_minilm"]["out_of_sample"][m] = tau_ci(human[m][others], matrices["offline_cv"][m][others],
                                                               boot)
    return out


def card(report: Mapping[str, Any], matrices: Mapping[str, Mapping[str, np.ndarray]],
         random_taus: Mapping[str, Sequence[float]], minilm: frozenset[str], inputs: Mapping[str, Any],
         check: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """label_card.json: where it comes from, the figures, and ``check`` (two topics' pooled documents and the
    shipped grader's grades of them) for a cheap regrade."""
    pairs = report["pairs"].get("offline_cv") or {}
    return {"generated_by": "HF_HUB_OFFLINE=1 python benchmarks/bench_judged_qrels.py --json "
                            "benchmarks/judged_qrels.json --card",
            "date": report["date"], "inputs": dict(inputs), "collection": report["collection"],
            "topics": int(next(iter(matrices["human"].values())).shape[1]), "systems": len(report["systems"]),
            "pool_depth": report["pool_depth"], "bootstrap": report["bootstrap"],
            "pooled_pairs": report["pooled_documents"],
            **figures(matrices, random_taus, report["systems"], minilm, report["bootstrap"]),
            "pairs": {"pairs": pairs.get("pairs"), "kappa": pairs.get("kappa"),
                      "judged_relevant": pairs.get("judged_relevant"), "human_relevant": pairs.get("human_relevant")},
            "check": {t: dict(sorted(grades.items())) for t, grades in check.items()}}


def matrices_of(report: Mapping[str, Any]) -> dict[str, dict[str, np.ndarray]]:
    """The per-topic matrices ``judged_qrels.json`` keeps, as arrays."""
    return {name: {m: np.array(v, dtype=float) for m, v in by.items()} for name, by in report["per_topic"].items()}
