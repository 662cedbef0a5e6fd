"""Agreement of binary decisions with human labels: the confusion matrix, the statistics it gives (precision,
recall, F1, accuracy, balanced accuracy, Cohen's kappa) with percentile-bootstrap intervals, and the kappas of
several raters (Cohen's for two, Fleiss' for more). What ``validate``, ``review``'s tallies and the jury report.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

import numpy as np

from genevals.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED


#: Every agreement statistic :func:`binary_metrics` returns, in order.
STAT_NAMES = ("precision", "recall", "f1", "accuracy", "balanced_accuracy", "kappa")


def confusion(pred: Sequence[bool], gold: Sequence[bool]) -> dict[str, int]:
    """tp, fp, fn, tn of binary predictions against gold labels."""
    p, g = np.asarray(pred, bool), np.asarray(gold, bool)
    return {"tp": int(np.sum(p & g)), "fp": int(np.sum(p & ~g)), "fn": int(np.sum(~p & g)),
            "tn": int(np.sum(~p & ~g))}


def binary_metrics(cm: Mapping[str, int]) -> dict[str, float | None]:
    r"""Precision, recall, F1, accuracy, balanced accuracy and Cohen's kappa from a confusion matrix.

    Conventions (as scikit-learn with ``zero_division=0``): precision is 0 with no predicted positives, recall 0
    with no gold positives, :math:`F_1 = 2tp / (2tp + fp + fn)` (0 when that is 0/0); balanced accuracy is the
    mean recall over the classes present in the gold labels; :math:`\kappa = (p_o - p_e) / (1 - p_e)`, None
    when :math:`p_e = 1`.
    """
    tp, fp, fn, tn = cm["tp"], cm["fp"], cm["fn"], cm["tn"]
    n = tp + fp + fn + tn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0
    accuracy = (tp + tn) / n if n else None
    class_recalls = []
    if tp + fn:
        class_recalls.append(tp / (tp + fn))
    if tn + fp:
        class_recalls.append(tn / (tn + fp))
    balanced = sum(class_recalls) / len(class_recalls) if class_recalls else None
    kappa = None
    if n:
        po = (tp + tn) / n
        pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = (po - pe) / (1 - pe) if pe < 1 else None
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": accuracy,
            "balanced_accuracy": balanced, "kappa": kappa}


def agreement_cis(pred: Sequence[bool], gold: Sequence[bool], seed: int = DEFAULT_SEED,
                  resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> dict[str, list[float] | None]:
    """Percentile bootstrap CIs of every :func:`binary_metrics` statistic, resampling rows with
    ``default_rng(seed)``."""
    p, g = np.asarray(pred, bool), np.asarray(gold, bool)
    n = len(p)
    if n < 2:
        return {k: None for k in STAT_NAMES}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    pp, gg = np.take(p, idx), np.take(g, idx)
    tp, fp = (pp & gg).sum(1), (pp & ~gg).sum(1)
    fn, tn = (~pp & gg).sum(1), (~pp & ~gg).sum(1)
    values: dict[str, list[float]] = {k: [] for k in STAT_NAMES}
    for i in range(resamples):
        stats = binary_metrics({"tp": int(tp[i]), "fp": int(fp[i]), "fn": int(fn[i]), "tn": int(tn[i])})
        for k in STAT_NAMES:
            if stats[k] is not None:
                values[k].append(stats[k])
    alpha = (1 - confidence) / 2
    return {k: [float(x) for x in np.quantile(v, [alpha, 1 - alpha])] if v else None for k, v in values.items()}


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    r"""Cohen's kappa between two raters' labels on the same units (any categories):
    :math:`\kappa = (p_o - p_e) / (1 - p_e)`, :math:`p_e = \sum_c p_{a,c}\, p_{b,c}`; None with no units or when
    :math:`p_e = 1` (both raters gave one and the same label throughout: agreement is not measurable)."""
    if len(a) != len(b):
        raise ValueError(f"cohen_kappa: {len(a)} labels against {len(b)}")
    n = len(a)
    if not n:
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    pe = sum((list(a).count(c) / n) * (list(b).count(c) / n) for c in set(a) | set(b))
    return (po - pe) / (1 - pe) if pe < 1 else None


def fleiss_kappa(units: Sequence[Sequence[Any]]) -> float | None:
    r"""Fleiss' kappa (Fleiss 1971) of units each labelled by the same number m >= 2 of raters.

    For unit i with :math:`n_{ic}` votes for category c, :math:`P_i = (\sum_c n_{ic}^2 - m) / (m(m-1))`;
    :math:`\bar P` is their mean, :math:`p_c` the share of all votes in c, :math:`\bar P_e = \sum_c p_c^2` and
    :math:`\kappa = (\bar P - \bar P_e) / (1 - \bar P_e)`. With two raters it is Scott's pi. None with no units
    or when :math:`\bar P_e = 1` (every vote the same label). Units with another number of raters are refused:
    leave out the units where a rater gave no label."""
    rows = [list(u) for u in units]
    if not rows:
        return None
    m = len(rows[0])
    if m < 2 or any(len(r) != m for r in rows):
        raise ValueError(f"fleiss_kappa: every unit needs the same number (>= 2) of ratings, got "
                         f"{sorted({len(r) for r in rows})}")
    totals: Counter = Counter()
    agreement = 0.0
    for r in rows:
        counts = Counter(r)
        totals.update(counts)
        agreement += (sum(k * k for k in counts.values()) - m) / (m * (m - 1))
    p_bar = agreement / len(rows)
    pe = sum((k / (m * len(rows))) ** 2 for k in totals.values())
    return (p_bar - pe) / (1 - pe) if pe < 1 else None
