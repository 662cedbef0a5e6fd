r"""The agreement of a judge with BEGIN's labels, against the best trivial baseline on the same rows.

The positive class is *not attributable* (a hallucination, in ``genevals validate``'s terms). For each judge:

- **AUC** of the judge's score: the offline checker's p(hallucinated) where it gives one, else
  :math:`1 - \text{faithfulness}` (the Mann-Whitney probability that a not-attributable
  response scores above an attributable one, ties counting one half);
- **balanced accuracy** :math:`(TPR + TNR) / 2` and **Cohen's kappa** of the rule's yes/no (any claim not
  supported: not attributable);
- each with a 95% percentile **cluster bootstrap** interval: resamples draw whole groups (the responses of
  several models to one turn share a knowledge snippet, and are not independent), BEGIN having no dialogue id.

Baselines, scored on exactly the rows the judge scored: **word overlap**, the share of the response's words
found in the knowledge (its AUC needs no threshold; its yes/no thresholds it at the cut that maximises balanced
accuracy on the other folds of a 5-fold split by group, so it is never fitted on the rows it is scored on), and
**always the majority** class (balanced accuracy 0.5, kappa 0, AUC 0.5); beside them, the judge's own score
cut the way the overlap is (``judge_cut_fitted``: its ranking with a threshold fitted as the baseline's). The
best baseline by balanced accuracy is the one compared: the judge's difference from it comes with a paired
cluster bootstrap interval.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from genevals.metrics.faithfulness.turn_overlap import overlap
from genevals.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["overlap"]

FOLDS = 5


def auc(score: np.ndarray, gold: np.ndarray) -> float | None:
    """P(score of a positive > score of a negative), ties one half (rank form); None without both classes."""
    pos, neg = int(gold.sum()), int((~gold).sum())
    if not pos or not neg:
        return None
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(len(score))
    sorted_scores = score[order]
    # average ranks of ties
    _, first, counts = np.unique(sorted_scores, return_index=True, return_counts=True)
    avg = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    return float((ranks[gold].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


def balanced_accuracy(pred: np.ndarray, gold: np.ndarray) -> float | None:
    pos, neg = gold.sum(), (~gold).sum()
    if not pos or not neg:
        return None
    return float(((pred & gold).sum() / pos + (~pred & ~gold).sum() / neg) / 2.0)


def kappa(pred: np.ndarray, gold: np.ndarray) -> float | None:
    n = len(gold)
    if not n:
        return None
    observed = float((pred == gold).mean())
    expected = float(pred.mean() * gold.mean() + (1 - pred.mean()) * (1 - gold.mean()))
    return 0.0 if expected == 1.0 else (observed - expected) / (1.0 - expected)


def figures(score: np.ndarray, pred: np.ndarray, gold: np.ndarray) -> dict[str, float | None]:
    return {"auc": auc(score, gold), "balanced_accuracy": balanced_accuracy(pred, gold), "kappa": kappa(pred, gold)}


def _fold_of(groups: Sequence[str]) -> np.ndarray:
    """Each row's fold: groups dealt round-robin in a fixed order of their names (no group in two folds)."""
    names = sorted(set(groups))
    fold = {g: i % FOLDS for i, g in enumerate(names)}
    return np.array([fold[g] for g in groups])


def _best_cut(values: np.ndarray, gold: np.ndarray) -> float:
    """The threshold t maximising the balanced accuracy of ``values < t`` (not attributable below it)."""
    cuts = np.unique(np.concatenate([values, [np.inf]]))
    best, best_cut = -1.0, float(cuts[-1])
    for cut in cuts:
        ba = balanced_accuracy(values < cut, gold)
        if ba is not None and ba > best:
            best, best_cut = ba, float(cut)
    return best_cut


def overlap_predictions(values: np.ndarray, gold: np.ndarray, groups: Sequence[str]) -> np.ndarray:
    """Out-of-fold yes/no of the word-overlap baseline (each fold's cut fitted on the other folds)."""
    folds = _fold_of(groups)
    pred = np.zeros(len(values), dtype=bool)
    for k in range(FOLDS):
        test = folds == k
        if test.any():
            pred[test] = values[test] < _best_cut(values[~test], gold[~test])
    return pred


def majority_predictions(gold: np.ndarray, groups: Sequence[str]) -> np.ndarray:
    """Out-of-fold 'always the majority class' (the other folds' majority)."""
    folds = _fold_of(groups)
    pred = np.zeros(len(gold), dtype=bool)
    for k in range(FOLDS):
        test = folds == k
        pred[test] = gold[~test].mean() >= 0.5 if (~test).any() else True
    return pred


def _cluster_draws(groups: Sequence[str], seed: int, resamples: int):
    """Row indices of each resample: the groups drawn with replacement, each with all its rows."""
    names, inverse = np.unique(np.asarray(groups), return_inverse=True)
    members = [np.flatnonzero(inverse == g) for g in range(len(names))]
    if not members:  # no row in this part (a source whose rows are all Generic): nothing to resample
        return
    rng = np.random.default_rng(seed)
    for _ in range(resamples):
        yield np.concatenate([members[g] for g in rng.integers(0, len(names), size=len(names))])


def _interval(values: list[float]) -> list[float] | None:
    values = [v for v in values if v is not None and np.isfinite(v)]
    if len(values) < 2:
        return None
    return [round(float(np.percentile(values, 2.5)), 4), round(float(np.percentile(values, 97.5)), 4)]


def compare(score: np.ndarray, pred: np.ndarray, gold: np.ndarray, overlaps: np.ndarray, groups: Sequence[str],
            seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES) -> dict[str, Any]:
    """The judge's figures and the baselines', with cluster bootstrap intervals, on the same rows."""
    gold = gold.astype(bool)
    baselines = {"word_overlap": (1.0 - overlaps, overlap_predictions(overlaps, gold, groups)),
                 "majority": (np.zeros(len(gold)), majority_predictions(gold, groups))}
    # the judge's score cut as the overlap is (in the other folds): what the judge's ranking is worth with a
    # threshold fitted as the baseline's was; the verdict stays on the judge's own rule
    fitted = overlap_predictions(-score, gold, groups)
    systems = {"judge": (score, pred.astype(bool)), "judge_cut_fitted": (score, fitted), **baselines}
    point = {name: figures(s, p, gold) for name, (s, p) in systems.items()}
    best = max(baselines, key=lambda b: point[b]["balanced_accuracy"] if point[b]["balanced_accuracy"] is not None
               else -1.0)
    draws: dict[str, dict[str, list]] = {name: {k: [] for k in point["judge"]} for name in systems}
    diffs: dict[str, list] = {k: [] for k in point["judge"]}
    for idx in _cluster_draws(groups, seed, resamples):
        fig = {name: figures(s[idx], p[idx], gold[idx]) for name, (s, p) in systems.items()}
        for name in systems:
            for k, v in fig[name].items():
                draws[name][k].append(v)
        for k in diffs:
            if fig["judge"][k] is not None and fig[best][k] is not None:
                diffs[k].append(fig["judge"][k] - fig[best][k])
    out: dict[str, Any] = {"n": int(len(gold)), "groups": int(len(set(groups))),
                           "not_attributable_rate": round(float(gold.mean()), 4) if len(gold) else None}
    for name in systems:
        out[name] = {k: (None if v is None else round(v, 4)) for k, v in point[name].items()}
        out[name]["ci95"] = {k: _interval(v) for k, v in draws[name].items()}
    out["best_baseline"] = best
    out["judge_minus_best_baseline"] = {
        k: {"difference": None if point["judge"][k] is None or point[best][k] is None
            else round(point["judge"][k] - point[best][k], 4), "ci95": _interval(v)} for k, v in diffs.items()}
    out["verdict"] = verdict(out["judge_minus_best_baseline"]["balanced_accuracy"], best)
    return out


def verdict(diff: dict[str, Any], best: str) -> str:
    """One plain sentence: is the judge better than the best trivial baseline (by balanced accuracy)?"""
    name = best.replace("_", " ")
    ci = diff.get("ci95")
    if diff.get("difference") is None or ci is None:
        return f"not enough rows to compare the judge with the {name} baseline"
    if ci[0] > 0:
        return f"better than the {name} baseline (balanced accuracy {diff['difference']:+.3f}, 95% CI [{ci[0]:+.3f}, {ci[1]:+.3f}])"
    if ci[1] < 0:
        return f"WORSE than the {name} baseline (balanced accuracy {diff['difference']:+.3f}, 95% CI [{ci[0]:+.3f}, {ci[1]:+.3f}])"
    return (f"NOT better than the {name} baseline: the difference in balanced accuracy, {diff['difference']:+.3f}, "
            f"95% CI [{ci[0]:+.3f}, {ci[1]:+.3f}], includes 0")
