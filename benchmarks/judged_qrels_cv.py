"""The offline labeller, out of sample: grades for each topic from a grader fit without that topic.

The shipped grader (:mod:`genevals.labels.offline`) has two fitted parts, and both saw the Cranfield development
queries: context_relevance_local's logistic regression (fit on WikiQA and on these queries' BM25 top 10) and the
upper cut points 0.6 and 0.75 (tertiles of the pairs it calls relevant on 40 of them). A Kendall tau from it is
therefore in-sample. This labeller refits both inside K folds of topics (grouped by query, fixed seed):

- for fold k, the feature set and its weights are chosen and fit by the recipe ``benchmarks/bench_triad.py`` ships
  the calibration with (``nested_cv.select``: the candidate sets of :data:`bench_triad.CANDIDATES`, the one with
  the best inner grouped out-of-fold AUC; standardised features, C = 1, classes weighted to even odds) on WikiQA's
  development half plus the Cranfield triad rows of the queries *outside* fold k (the chunk's embedded length
  stays the shipped ``HEAD_PIECES``); the same selection on every row gives the shipped weights (checked:
  ``all_rows`` in the provenance);
- the cut points are 0.5 (the model's own even-odds threshold) and the tertiles of p among the pooled pairs of
  the queries outside fold k with p >= 0.5;
- the pooled pairs of fold k's queries are graded with that fold's weights and cut points.

Every topic's grades thus come from a grader that never saw the topic, and the tau computed from them is an
out-of-sample figure for new queries of the same collection. (The MiniLM encoder itself was trained elsewhere.)
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from genevals.metrics.triad.triad_features import CONTEXT_FEATURES

FOLDS, SEED = 5, 0
TRIAD = {"wikiqa": "triad/wikiqa_context_relevance_dev.jsonl",
         "cranfield": "triad/cranfield_context_relevance_dev.jsonl"}


def _features(question: str, texts: Sequence[str]) -> np.ndarray:
    from genevals.metrics.triad.local_relevance import ContextRelevanceLocal
    from genevals.types import Context, Sample

    sample = Sample(id="pool", answer="", question=question,
                    contexts=tuple(Context(text=t, rank=i + 1) for i, t in enumerate(texts)))
    rows, _ = ContextRelevanceLocal.chunk_features(sample)
    return np.array(rows, dtype=float).reshape(len(texts), -1)


def _select(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, float, str]:
    """The shipped recipe on these rows: (weights over every feature, 0 where the chosen set leaves one out,
    intercept, the chosen set's name)."""
    import nested_cv
    from bench_triad import CANDIDATES, EVEN, columns

    candidates = columns("context_relevance", CONTEXT_FEATURES)
    assert set(candidates) == set(CANDIDATES["context_relevance"])
    ship = nested_cv.select(x, y, groups, candidates, True, EVEN, SEED)
    w = np.zeros(x.shape[1])
    w[ship["columns"]] = ship["weights"]
    return w, float(ship["intercept"]), ship["name"]


def _training_rows(datasets: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features, relevant, query id or '' for WikiQA, question group) of the triad development rows."""
    feats, gold, owner, groups = [], [], [], []
    for name, path in TRIAD.items():
        for line in (datasets / path).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            texts = [c["text"] for c in r["contexts"]]
            feats.append(_features(r["question"], texts))
            gold += [r["relevant"].get(c["id"], 0) > 0 for c in r["contexts"]]
            owner += [r["id"] if name == "cranfield" else ""] * len(texts)
            groups += [f"{name}:{r['id']}"] * len(texts)
    return np.vstack(feats), np.array(gold), np.array(owner), np.array(groups)


def folds_of(topics: Sequence[str]) -> dict[str, int]:
    order = np.random.default_rng(SEED).permutation(len(topics))
    return {t: int(i) % FOLDS for t, i in zip(topics, order)}


def grades(pooled: Mapping[str, list[str]], queries: Mapping[str, str], docs: Mapping[str, Mapping[str, str]],
           datasets: Path) -> tuple[dict[str, dict[str, float]], dict[str, Any]]:
    """Out-of-fold qrels for the pooled pairs, and what was fit in each fold."""
    from genevals.metrics.triad.calibration import calibration

    x_train, y_train, owner, groups = _training_rows(datasets)
    w_all, b_all, set_all = _select(x_train, y_train, groups)
    shipped = calibration("context_relevance", CONTEXT_FEATURES)
    all_rows = {"feature_set": set_all, "weights": [round(float(v), 6) for v in w_all], "intercept": round(b_all, 6),
                "matches_shipped": bool(np.allclose(w_all, shipped.weights, atol=1e-4)
                                        and abs(b_all - shipped.intercept) < 1e-4)}
    topics = list(pooled)
    pair_x = {t: _features(queries[t], [docs[d]["text"] for d in pooled[t]]) for t in topics}
    fold = folds_of(topics)
    qrels: dict[str, dict[str, float]] = {}
    fitted = []
    for k in range(FOLDS):
        held = {t for t in topics if fold[t] == k}
        keep = np.array([o == "" or o not in held for o in owner])
        w, b, chosen = _select(x_train[keep], y_train[keep], groups[keep])

        def prob(x: np.ndarray) -> np.ndarray:
            return 1.0 / (1.0 + np.exp(-(x @ w + b)))

        seen = np.concatenate([prob(pair_x[t]) for t in topics if t not in held] or [np.zeros(0)])
        relevant = seen[seen >= 0.5]
        upper = [float(np.quantile(relevant, q)) for q in (1 / 3, 2 / 3)] if relevant.size else [0.6, 0.75]
        cuts = (0.5, *upper)
        for t in held:
            p = prob(pair_x[t])
            # an empty document is left unjudged, as the shipped grader leaves it
            qrels[t] = {d: float(sum(v >= c for c in cuts)) for d, v in zip(pooled[t], p)
                        if docs[d]["text"].strip()}
        fitted.append({"fold": k, "topics": len(held), "feature_set": chosen, "weights": [round(float(v), 4) for v in w],
                       "intercept": round(b, 4), "cut_points": [round(c, 4) for c in cuts]})
    return qrels, {"folds": FOLDS, "seed": SEED, "grouped_by": "query", "all_rows": all_rows, "fitted": fitted}
