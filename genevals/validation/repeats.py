"""``genevals validate --judge-repeats N``: agreement with the human labels for one judge verdict and for the
majority of N, on the same rows, so a user can see whether the repeats pay for themselves.

Per row judged with repeats (``details["repeats"]`` of faithfulness), repeat r's prediction follows the rule
from that repeat alone: ``any``: its faithfulness < 1; ``contradicted``: one of its verdicts is contradicted;
``threshold:X``: its faithfulness < X. The majority prediction is the row's own (from the majority verdicts).
Only rows where every repeat answered are compared (a failed repeat is no verdict); ``single`` gives each
repeat's figures and ``single_mean`` their mean, ``majority`` the majority's, each with its bootstrap CIs.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genevals import types
from genevals.stats.agreement import agreement_cis, binary_metrics, confusion

FIGURES = ("f1", "precision", "recall", "accuracy", "balanced_accuracy", "kappa")


def _repeat_prediction(details: Mapping[str, Any], rule: Any, r: int) -> bool:
    value = details["repeats"]["values"][r]
    if rule.kind == "contradicted":
        return any(isinstance(v, Mapping) and (v.get("repeats") or [None] * (r + 1))[r] == types.CONTRADICTED
                   for v in details.get("verdicts", []))
    return value < (1.0 if rule.kind == "any" else rule.threshold)


def _figures(pred: Sequence[bool], gold: Sequence[bool], seed: int, resamples: int) -> dict[str, Any]:
    cm = confusion(pred, gold)
    return {"n": len(pred), "confusion": cm, **binary_metrics(cm), "ci95": agreement_cis(pred, gold, seed, resamples)}


def repeats_agreement(outcomes: Sequence[Any], rule: Any, seed: int, resamples: int) -> dict[str, Any] | None:
    """The comparison above, or None when no row was judged with repeats."""
    rows = [o for o in outcomes if o.pred is not None and isinstance(o.details.get("repeats"), Mapping)]
    if not rows:
        return None
    n = max(len(o.details["repeats"].get("values") or []) for o in rows)
    complete = [o for o in rows if len(o.details["repeats"].get("values") or []) == n
                and all(v is not None for v in o.details["repeats"]["values"])]
    gold = [o.gold for o in complete]
    single = [_figures([_repeat_prediction(o.details, rule, r) for o in complete], gold, seed, resamples)
              for r in range(n)] if complete else []
    flipped = sum(1 for o in complete if len({_repeat_prediction(o.details, rule, r) for r in range(n)}) > 1)
    return {"repeats": n, "rows": len(complete), "rows_with_a_failed_repeat": len(rows) - len(complete),
            "rows_whose_prediction_flips": flipped,
            "majority": _figures([bool(o.pred) for o in complete], gold, seed, resamples) if complete else None,
            "single": single,
            "single_mean": {k: (sum(s[k] for s in single if s[k] is not None) /
                                max(1, sum(1 for s in single if s[k] is not None))) if single else None
                            for k in FIGURES}}
