"""Grouped, nested cross-validation and the paired statistics of a validation card, shared by
``bench_triad.py`` and ``bench_citations.py``.

Every choice a card's figure depends on is made on training rows only: in each outer fold (questions assigned to
folds by a seeded shuffle), an inner grouped cross-validation over the training questions picks the feature set
(best inner out-of-fold ROC AUC; ties go to the smaller set) and, where the judge gives a verdict, the decision
threshold (best F1 of the inner out-of-fold probabilities); the coefficients are then fit on the whole training
fold and applied to the held-out one. A trivial baseline gets the same treatment: its orientation and its
threshold come from the training folds. CIs: 2.5 and 97.5 percentiles of BOOT resamples of whole questions,
paired (the judge and its baseline on the same resample) for a difference.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
from sklearn.linear_model import LogisticRegression

FOLDS, INNER, BOOT, SEED = 5, 4, 1000, 0


# -- models -------------------------------------------------------------------------------------------------
def folds_of(groups: np.ndarray, k: int = FOLDS, seed: int = SEED) -> np.ndarray:
    unique = np.unique(groups)
    order = np.random.default_rng(seed).permutation(len(unique))
    fold = {g: int(i) % k for g, i in zip(unique, order)}
    return np.array([fold[g] for g in groups])


def fit(x: np.ndarray, y: np.ndarray, even: bool = False) -> tuple[np.ndarray, float]:
    """Weights and intercept on the raw features (the standardisation folded in); ``even``: classes weighted
    to even odds, so p reads as if either outcome were as likely beforehand."""
    mean, scale = x.mean(0), x.std(0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=1.0, max_iter=1000, class_weight="balanced" if even else None)
    model.fit((x - mean) / scale, y)
    w = model.coef_[0] / scale
    return w, float(model.intercept_[0] - (w * mean).sum())


def predict(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(x @ w + b)))


# -- figures ------------------------------------------------------------------------------------------------
def auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC AUC (ties count half): the Mann-Whitney statistic from average ranks, as ``roc_auc_score`` gives it,
    without its input checks (the bootstraps call it thousands of times)."""
    y = np.asarray(y, dtype=bool)
    pos = int(y.sum())
    if not 0 < pos < len(y):
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranked = np.asarray(s)[order]
    bounds = np.r_[0, np.flatnonzero(ranked[1:] != ranked[:-1]) + 1, len(ranked)]
    average = (bounds[:-1] + bounds[1:] + 1) / 2.0  # 1-based average rank of each run of ties
    ranks = np.empty(len(ranked))
    ranks[order] = np.repeat(average, np.diff(bounds))
    return float((ranks[y].sum() - pos * (pos + 1) / 2) / (pos * (len(y) - pos)))


def f1(pred: np.ndarray, gold: np.ndarray) -> float:
    tp = int((pred & gold).sum())
    return 2 * tp / (int(pred.sum()) + int(gold.sum())) if pred.sum() + gold.sum() else 0.0


def balanced_accuracy(pred: np.ndarray, gold: np.ndarray) -> float:
    pos, neg = gold.sum(), (~gold).sum()
    if not pos or not neg:
        return float("nan")
    return 0.5 * float((pred & gold).sum() / pos + (~pred & ~gold).sum() / neg)


def best_threshold(p: np.ndarray, y: np.ndarray) -> float:
    """The threshold t on p (verdict: p >= t) with the best F1 on these rows (the lowest t among ties)."""
    order = np.argsort(-p, kind="stable")
    ps, ys = p[order], y[order].astype(int)
    tp = np.cumsum(ys)
    k = np.arange(1, len(p) + 1)
    scores = 2 * tp / (k + ys.sum())
    last = np.r_[ps[1:] != ps[:-1], True]  # only cut between distinct values
    scores = np.where(last, scores, -1.0)
    return float(ps[int(np.argmax(scores))])


def bootstrap(groups: np.ndarray, stat: Callable[[np.ndarray], object]) -> np.ndarray:
    """``stat(index)`` on BOOT resamples of whole questions."""
    unique, inverse = np.unique(groups, return_inverse=True)
    members = [np.flatnonzero(inverse == g) for g in range(len(unique))]
    rng = np.random.default_rng(SEED)
    out = []
    for _ in range(BOOT):
        pick = rng.integers(0, len(unique), len(unique))
        out.append(stat(np.concatenate([members[g] for g in pick])))
    return np.array(out, dtype=float)


def ci(values: np.ndarray) -> list[float]:
    values = values[~np.isnan(values)]
    return [round(float(np.percentile(values, 2.5)), 4), round(float(np.percentile(values, 97.5)), 4)]


def verdict_of(difference_ci: Sequence[float]) -> str:
    """"beats", "level with" or "worse than" its baseline, by the paired CI of the difference."""
    lo, hi = difference_ci
    return "beats" if lo > 0 else ("worse than" if hi < 0 else "level with")


# -- nested selection ---------------------------------------------------------------------------------------
def _inner_oof(x: np.ndarray, y: np.ndarray, groups: np.ndarray, even: bool, k: int, seed: int) -> np.ndarray:
    folds = folds_of(groups, k, seed)
    out = np.zeros(len(y))
    for f in range(k):
        train, test = folds != f, folds == f
        if y[train].all() or not y[train].any():
            out[test] = y[train].mean()
            continue
        w, b = fit(x[train], y[train], even)
        out[test] = predict(x[test], w, b)
    return out


def select(x: np.ndarray, y: np.ndarray, groups: np.ndarray, candidates: Mapping[str, Sequence[int]],
           even: bool, threshold: str | float | None, seed: int) -> dict:
    """On these rows only: the candidate feature set with the best inner out-of-fold AUC, its coefficients fit
    on all the rows, and the threshold (``"f1"``: best inner out-of-fold F1; a number: that number)."""
    scored = []
    for rank, (name, columns) in enumerate(candidates.items()):
        p = _inner_oof(x[:, list(columns)], y, groups, even, INNER, seed)
        scored.append((round(auc(y, p), 6), -len(columns), -rank, name, p))
    best = max(scored, key=lambda s: s[:3])
    name, inner = best[3], best[4]
    columns = list(candidates[name])
    w, b = fit(x[:, columns], y, even)
    t = best_threshold(inner, y) if threshold == "f1" else threshold
    return {"name": name, "columns": columns, "weights": w, "intercept": b, "threshold": t,
            "inner_auc": best[0]}


def nested(x: np.ndarray, y: np.ndarray, groups: np.ndarray, candidates: Mapping[str, Sequence[int]],
           even: bool = False, threshold: str | float | None = None) -> dict:
    """Out-of-fold probabilities (and verdicts) with every choice made inside each training fold, and what
    each fold chose."""
    folds = folds_of(groups)
    oof, verdict, chosen = np.zeros(len(y)), np.zeros(len(y), dtype=bool), []
    for k in range(FOLDS):
        train, test = folds != k, folds == k
        pick = select(x[train], y[train], groups[train], candidates, even, threshold, SEED + 1 + k)
        oof[test] = predict(x[test][:, pick["columns"]], pick["weights"], pick["intercept"])
        if pick["threshold"] is not None:
            verdict[test] = oof[test] >= pick["threshold"]
        chosen.append({"features": pick["name"], "threshold": pick["threshold"]})
    return {"probability": oof, "verdict": verdict, "chosen": chosen}


def baseline_oof(score: np.ndarray, y: np.ndarray, groups: np.ndarray, thresholded: bool = True) -> dict:
    """A trivial score, oriented (and, ``thresholded``, cut at its best-F1 threshold) on the training folds."""
    folds = folds_of(groups)
    oof, verdict = np.zeros(len(y)), np.zeros(len(y), dtype=bool)
    for k in range(FOLDS):
        train, test = folds != k, folds == k
        sign = 1.0 if auc(y[train], score[train]) >= 0.5 else -1.0
        oof[test] = sign * score[test]
        if thresholded:
            verdict[test] = oof[test] >= best_threshold(sign * score[train], y[train])
    return {"score": oof, "verdict": verdict}
