"""The offline detector's out-of-sample accuracy, as computed by ``tools/train_grounding.py`` and stored in
``detector.json`` (:mod:`genevals.grounding.figure` shows it; no figure is typed by hand).

The figure is response-level F1 (an answer is predicted hallucinated when the judge flags it) of the
*out-of-fold* predictions of grouped k-fold cross-validation on RAGTruth dev: folds by ``source_id``, so no
answer is scored by a model that saw an answer about the same source, and every setting chosen on the training
folds only. The word-overlap rule is scored on the same folds as the baseline. Both F1s and their paired
difference get 95% percentile bootstrap CIs that resample *sources* (clusters), not answers:

    F1 = 2 TP / (2 TP + FP + FN)    (0 when TP = 0)
    for r in 1..R: draw G sources with replacement; F1_r(judge), F1_r(baseline) on their answers (with
    multiplicity); CI = the 2.5th and 97.5th percentiles of F1_r, and of F1_r(judge) - F1_r(baseline).

The judge and the baseline *tie* when the difference's CI contains 0. The out-of-fold predictions themselves are
stored beside the figure (:func:`encode_oof`), so the figure can be recomputed from the file
(:func:`recompute`). :mod:`genevals.grounding.figure` reads it for display (without numpy).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from genevals.grounding.figure import BASELINE, JUDGE, TASK_NAMES

RESAMPLES = 2000


def f1_counts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """2 TP / (2 TP + FP + FN), and 0 where TP = 0 (elementwise)."""
    tp, fp, fn = (np.asarray(x, dtype=float) for x in (tp, fp, fn))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0)


def _per_group(pred: np.ndarray, gold: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """(3, G): TP, FP and FN counts of each group."""
    return np.vstack([np.bincount(groups, weights=(pred & gold).astype(float), minlength=n_groups),
                      np.bincount(groups, weights=(pred & ~gold).astype(float), minlength=n_groups),
                      np.bincount(groups, weights=(~pred & gold).astype(float), minlength=n_groups)])


def compare(gold: np.ndarray, groups: np.ndarray, judge: np.ndarray, baseline: np.ndarray, seed: int,
            resamples: int = RESAMPLES) -> dict[str, Any]:
    """Both F1s and F1(judge) - F1(baseline), each with its 95% CI from one cluster bootstrap over ``groups``
    (resample r draws ``rng.integers(0, G, G)``, the same stream as ``train_grounding.paired_difference``)."""
    gold, judge, baseline = (np.asarray(x, dtype=bool) for x in (gold, judge, baseline))
    _, groups = np.unique(np.asarray(groups), return_inverse=True)  # sorted group order, as the script's
    n_groups = int(groups.max()) + 1
    counts = [_per_group(p, gold, groups, n_groups) for p in (judge, baseline)]
    rng = np.random.default_rng(seed)
    weights = np.vstack([np.bincount(rng.integers(0, n_groups, n_groups), minlength=n_groups)
                         for _ in range(resamples)])  # (R, G): how often each group was drawn
    f1s = [f1_counts(*(weights @ c.T).T) for c in counts]

    def ci(values: np.ndarray) -> list[float]:
        lo, hi = np.percentile(values, [2.5, 97.5])
        return [float(lo), float(hi)]

    point = [float(f1_counts(*c.sum(axis=1))) for c in counts]
    diff_ci = ci(f1s[0] - f1s[1])
    return {"n": len(gold), "sources": n_groups, JUDGE: {"f1": point[0], "ci95": ci(f1s[0])},
            BASELINE: {"f1": point[1], "ci95": ci(f1s[1])},
            "difference": {"diff": point[0] - point[1], "ci95": diff_ci},
            "tie": bool(diff_ci[0] <= 0 <= diff_ci[1])}


def summarise(gold: np.ndarray, groups: np.ndarray, tasks: np.ndarray, judge: np.ndarray, baseline: np.ndarray,
              seed: int, resamples: int = RESAMPLES) -> dict[str, Any]:
    """:func:`compare` on all answers and on each task type (sources resampled within it)."""
    tasks = np.asarray(tasks)
    out = compare(gold, groups, judge, baseline, seed, resamples)
    out["per_task"] = {t: compare(*(np.asarray(x)[tasks == t] for x in (gold, groups, judge, baseline)), seed,
                                  resamples) for t in TASK_NAMES if (tasks == t).any()}
    return out


# -- the stored out-of-fold predictions ------------------------------------------------------------------------
def encode_oof(gold: Sequence[bool], groups: Sequence[str], tasks: Sequence[str], folds: Sequence[int],
               preds: Mapping[str, Sequence[bool]]) -> dict[str, Any]:
    """Compact, row-aligned: labels and predictions as "0"/"1" strings, each row's source as an index into the
    sorted source list (the ids themselves are not needed to recompute), its task and its fold."""
    _, index = np.unique(np.asarray(groups), return_inverse=True)
    return {"gold": _bits(gold), "source": [int(i) for i in index], "task": list(map(str, tasks)),
            "fold": "".join(str(int(f)) for f in folds), "pred": {k: _bits(v) for k, v in preds.items()}}


def _bits(values: Sequence[bool]) -> str:
    return "".join("1" if x else "0" for x in values)


def _bools(bits: str) -> np.ndarray:
    return np.frombuffer(bits.encode(), dtype=np.uint8) == ord("1")


def recompute(cv: Mapping[str, Any], resamples: int = RESAMPLES) -> dict[str, Any]:
    """The headline block from a cross_validated record's stored ``oof`` predictions."""
    oof = cv["oof"]
    return summarise(_bools(oof["gold"]), np.array(oof["source"]), np.array(oof["task"]),
                     _bools(oof["pred"][JUDGE]), _bools(oof["pred"][BASELINE]), int(cv["seed"]), resamples)
