r"""The judge's agreement with human labels for a whole run, from a review queue's stratified sample.

``genevals review --queue N`` draws the answers to review by stratified random sampling (strata: the judge's
verdict and how informative the answer is; :mod:`genevals.review.queue`) and oversamples the strata where the
judge is likeliest wrong. A plain mean over the reviewed answers then over-counts those strata, so the judge
looks worse than it is. The export writes each drawn answer's ``stratum``, ``stratum_size`` :math:`N_h` (the
answers of the run in that stratum) and ``inclusion_probability`` :math:`\pi_i = n_h / N_h`; from those:

* **Stratified estimator** (the figures reported): each labelled answer of stratum :math:`h` weighs
  :math:`w_h = N_h / m_h`, :math:`m_h` the answers of that stratum with a label and a prediction. The weighted
  confusion matrix :math:`\hat C = \sum_i w_{h(i)} [\mathrm{pred}_i, \mathrm{gold}_i]` estimates the run's, so
  :math:`\widehat{acc} = \sum_h (N_h / N)\, \bar y_h` with :math:`y_i = [\mathrm{pred}_i = \mathrm{gold}_i]`
  and :math:`N = \sum_h N_h`, and Cohen's :math:`\hat\kappa = (\hat p_o - \hat p_e) / (1 - \hat p_e)` with
  :math:`\hat p_e` from :math:`\hat C`'s margins (a ratio estimator: consistent, not exactly unbiased).
  When every drawn answer has a label (:math:`m_h = n_h`) this is the Horvitz-Thompson estimator
  :math:`\widehat{acc}_{HT} = N^{-1} \sum_i y_i / \pi_i`, unbiased; with answers missing it assumes they are
  missing at random within their stratum, and says how many are missing.
* **Horvitz-Thompson** :math:`\widehat{acc}_{HT}` is reported beside it, with the rows' own :math:`\pi_i`.
* **CIs**: stratified percentile bootstrap: each resample draws :math:`m_h` answers with replacement within
  each stratum (a stratum reviewed in full, :math:`m_h = N_h`, is not resampled: it has no sampling error),
  and recomputes every figure from the weighted confusion matrix.

A stratum of the run with no labelled answer cannot be estimated: the figures are then None and the stratum
is named (an early stop left the least informative strata unreviewed), never silently dropped.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from genevals.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

#: the statistics a weighted confusion matrix gives (as genevals.stats.agreement.binary_metrics)

from genevals.stats.agreement import binary_metrics
STATS = ("accuracy", "kappa", "precision", "recall", "f1", "balanced_accuracy")


class WeightError(ValueError):
    """Rows whose design fields disagree (two sizes for one stratum, a probability outside (0, 1])."""


def design_of(row: Mapping[str, Any]) -> tuple[str, int, float] | None:
    """(stratum, stratum size, inclusion probability) of an exported row; None when it was not drawn by a queue;
    WeightError naming the field when a field is present but unusable."""
    if row.get("inclusion_probability") is None:
        return None
    p, stratum, size = row.get("inclusion_probability"), row.get("stratum"), row.get("stratum_size")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1:
        raise WeightError(f"inclusion_probability: a number in (0, 1], not {p!r}")
    if not isinstance(stratum, str) or not stratum:
        raise WeightError(f"stratum: a name is needed with inclusion_probability, not {stratum!r}")
    if size is None:  # older exports: n_h / pi_h is the stratum's size
        size = 0
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise WeightError(f"stratum_size: a count of answers, not {size!r}")
    return stratum, size, float(p)


def _metrics(tp, fp, fn, tn) -> dict[str, np.ndarray]:
    """binary_metrics over arrays of (weighted) cells, for the bootstrap."""
    with np.errstate(divide="ignore", invalid="ignore"):
        n = tp + fp + fn + tn
        po = (tp + tn) / n
        pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = np.where(pe < 1, (po - pe) / (1 - pe), np.nan)
        recall = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        specificity = np.where(tn + fp > 0, tn / (tn + fp), np.nan)
        balanced = np.where(tp + fn > 0, np.where(np.isnan(specificity), recall, (recall + specificity) / 2),
                            specificity)
        return {"accuracy": po, "kappa": kappa, "precision": np.where(tp + fp > 0, tp / (tp + fp), 0.0),
                "recall": recall, "f1": np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0),
                "balanced_accuracy": balanced}


def weighted_agreement(pred: Sequence[bool], gold: Sequence[bool], strata: Sequence[str],
                       sizes: Mapping[str, int], probabilities: Sequence[float] | None = None,
                       drawn: Mapping[str, int] | None = None, seed: int = DEFAULT_SEED,
                       resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> dict[str, Any]:
    """The run-level agreement of ``pred`` with ``gold`` (one entry per labelled, scored answer of stratum
    ``strata[i]``), with ``sizes[h]`` = :math:`N_h` for every stratum of the run (those with no labelled answer
    included: they make the estimate impossible). ``probabilities``: each row's :math:`\\pi_i`, for the
    Horvitz-Thompson figure; ``drawn``: :math:`n_h`, to count the drawn answers left without a label."""
    p, g, s = np.asarray(pred, bool), np.asarray(gold, bool), np.asarray(strata, dtype=object)
    total = int(sum(sizes.values()))
    per_stratum, empty, undrawn = [], [], []
    cells = np.zeros(4)
    groups: list[tuple[np.ndarray, float, bool]] = []
    for h in sorted(sizes):
        inside = np.flatnonzero(s == h)
        m, size = len(inside), int(sizes[h])
        entry = {"stratum": h, "size": size, "labelled": m, "drawn": (drawn or {}).get(h),
                 "accuracy": float(np.mean(p[inside] == g[inside])) if m else None}
        per_stratum.append(entry)
        if size and not m:
            empty.append(h)
            if drawn is not None and not drawn.get(h):
                undrawn.append(h)
            continue
        if not m:
            continue
        weight = size / m
        codes = (~p[inside]).astype(int) * 2 + (~g[inside]).astype(int)  # 0 tp, 1 fp, 2 fn, 3 tn
        cells += weight * np.bincount(codes, minlength=4)
        groups.append((codes, weight, m >= size))
    out: dict[str, Any] = {"n": int(len(p)), "population": total, "strata": per_stratum,
                           "estimator": "stratified (N_h / m_h weights); CIs: stratified percentile bootstrap"}
    missing = {h: e["drawn"] - e["labelled"] for e in per_stratum for h in [e["stratum"]]
               if e["drawn"] is not None and e["drawn"] > e["labelled"]}
    if missing:
        out["unlabelled_drawn"] = missing
    if empty or not len(p):
        out.update({k: None for k in STATS})
        out.update(ci95={k: None for k in STATS}, horvitz_thompson_accuracy=None,
                   unestimable_strata=empty, undrawn_strata=undrawn, confusion=None)
        return out
    cm = dict(zip(("tp", "fp", "fn", "tn"), (float(c) for c in cells)))
    out["confusion"] = cm
    out.update(binary_metrics(cm))
    if probabilities is not None and total:
        y = (p == g).astype(float)
        out["horvitz_thompson_accuracy"] = float(np.sum(y / np.asarray(probabilities, float)) / total)
    out["ci95"] = _bootstrap(groups, seed, resamples, confidence)
    return out


def _bootstrap(groups: list[tuple[np.ndarray, float, bool]], seed: int, resamples: int,
               confidence: float) -> dict[str, list[float] | None]:
    rng = np.random.default_rng(seed)
    cells = np.zeros((resamples, 4))
    for codes, weight, census in groups:
        if census:  # reviewed in full: the same answers in every resample
            cells += weight * np.bincount(codes, minlength=4)
            continue
        picks = codes[rng.integers(0, len(codes), size=(resamples, len(codes)))]
        for c in range(4):
            cells[:, c] += weight * np.sum(picks == c, axis=1)
    stats = _metrics(*cells.T)
    alpha = (1 - confidence) / 2
    out: dict[str, list[float] | None] = {}
    for k in STATS:
        v = stats[k][~np.isnan(stats[k])]
        out[k] = [float(x) for x in np.quantile(v, [alpha, 1 - alpha])] if len(v) else None
    return out


def check_design(rows: Sequence[Mapping[str, Any]]) -> None:
    """WeightError naming the row (``_origin``: FILE:LINE) whose design fields are unusable or disagree with an
    earlier row's on a stratum's size: checked when the labels are read, before any judge is called."""
    sizes: dict[str, tuple[int, str]] = {}
    for row in rows:
        where = row.get("_origin", "a row")
        try:
            design = design_of(row)
        except WeightError as exc:
            raise WeightError(f"{where}: {exc}") from None
        if design is None or not design[1]:
            continue
        stratum, size, _ = design
        if stratum in sizes and sizes[stratum][0] != size:
            raise WeightError(f"{where}: stratum {stratum!r} has stratum_size {size} here but "
                              f"{sizes[stratum][0]} at {sizes[stratum][1]}; rows of one review queue agree")
        sizes.setdefault(stratum, (size, str(where)))


def from_rows(rows: Sequence[Mapping[str, Any]], pred: Sequence[bool | None], gold: Sequence[bool],
              seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES) -> dict[str, Any] | None:
    """The weighted figures of ``genevals validate``: over the rows a queue drew (``inclusion_probability``
    set), each with its prediction (None: unscored, left out like a missing label) and human label; None when
    no row was drawn by a queue. Rows checked by :func:`check_design` first."""
    check_design(rows)
    sizes: dict[str, int] = {}
    drawn: dict[str, int] = {}
    keep_pred, keep_gold, keep_strata, keep_p = [], [], [], []
    off_queue = 0
    blind = 0
    for row, predicted, label in zip(rows, pred, gold):
        design = design_of(row)
        if design is None:
            off_queue += 1
            continue
        stratum, size, probability = design
        if not size and _drawn(row):  # an export without stratum_size: n_h / pi = N_h
            size = round(_drawn(row) / probability)
        sizes[stratum] = size or sizes.get(stratum, 0)
        blind += row.get("blind") is True
        if _drawn(row):
            drawn[stratum] = _drawn(row)
        if isinstance(row.get("queue_strata"), Mapping):  # the strata the queue drew none from
            for h in row["queue_strata"]:
                drawn.setdefault(str(h), 0)
        if predicted is None:
            continue
        keep_pred.append(bool(predicted))
        keep_gold.append(bool(label))
        keep_strata.append(stratum)
        keep_p.append(probability)
    if not sizes:
        return None
    for stratum, count in _population(rows).items():
        sizes.setdefault(stratum, count)
    out = weighted_agreement(keep_pred, keep_gold, keep_strata, sizes, keep_p, drawn or None, seed, resamples)
    out["rows_off_queue"] = off_queue
    out["rows_blind"] = blind
    return out


def _drawn(row: Mapping[str, Any]) -> int:
    value = row.get("stratum_drawn")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _population(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Strata of the run that no labelled row comes from, as the export lists them (``queue_strata`` on each
    row: {stratum: size}), so a stratum left unreviewed is seen, not dropped."""
    out: dict[str, int] = {}
    for row in rows:
        listed = row.get("queue_strata")
        if isinstance(listed, Mapping):
            for h, size in listed.items():
                if isinstance(size, int) and not isinstance(size, bool) and size >= 0:
                    out[str(h)] = size
    return out


def summary_line(w: Mapping[str, Any], unweighted: Mapping[str, Any]) -> str:
    """The weighted figures beside the unweighted ones, for ``genevals validate``'s summary."""
    def fig(name: str, stats: Mapping[str, Any]) -> str:
        value, ci = stats.get(name), (stats.get("ci95") or {}).get(name)
        return "-" if value is None else f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")

    head = (f"  whole run (review queue: {w['n']} labelled of {w['population']} answers, weighted by stratum): ")
    if w.get("unestimable_strata"):
        undrawn = w.get("undrawn_strata") or []
        unlabelled = [h for h in w["unestimable_strata"] if h not in undrawn]
        return head + "no estimate: " + "; ".join(
            ([f"the queue drew no answer from {', '.join(undrawn)} (draw a queue of at least {len(w['strata'])})"]
             if undrawn else [])
            + ([f"no drawn answer of {', '.join(unlabelled)} is labelled yet (review the rest of the queue)"]
               if unlabelled else []))
    missing = sum((w.get("unlabelled_drawn") or {}).values())
    return (head + f"accuracy={fig('accuracy', w)} kappa={fig('kappa', w)}; unweighted accuracy="
            f"{fig('accuracy', unweighted)} kappa={fig('kappa', unweighted)}"
            + (f"; {missing} drawn answers unlabelled (assumed missing at random in their strata)" if missing else ""))
