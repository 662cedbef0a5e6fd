"""The agreement gate in :func:`~genevals.testing.assert_scores` (``require_agreement=LABELS, min_kappa=0.6``,
also through the ``genevals`` marker): as ``genevals run --require-agreement`` (:mod:`genevals.validation.gate`),
the labels and the minimum are checked here before anything is scored, naming the test's arguments; the run's
lifecycle (:mod:`genevals.lifecycle.agreement`) measures the agreement on the run's own labelled samples, and a
judge that does not reach the minimum (or whose labels are too few to tell) fails the test before any gate on a
judge-backed output may pass or fail it.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


class Required:
    """The labels read and the minimum checked, before scoring."""

    def __init__(self, labels: Any, min_kappa: Any) -> None:
        __tracebackhide__ = True
        from genevals.input.readers import InputError
        from genevals.settings import check
        from genevals.validation.gate import MIN_KAPPA, read_labels

        if isinstance(labels, bool) or not isinstance(labels, (str, Path)):
            raise TypeError(f"require_agreement: expected the path of a labels export (genevals review export), "
                            f"got {type(labels).__name__}")
        try:
            self.min_kappa = check(MIN_KAPPA, min_kappa)
        except ValueError as exc:
            raise InputError("min_kappa", None, None, str(exc).removeprefix("min_kappa: ")) from None
        self.source = str(labels)
        self.rows = read_labels(labels)  # LabelledInputError (a ValueError) naming the file, line and field


def required(labels: Any, min_kappa: Any) -> Required | None:
    """The gate asked for, checked; None when ``require_agreement`` is not given (then ``min_kappa`` must not be)."""
    __tracebackhide__ = True
    from genevals.validation.gate import MIN_KAPPA

    if labels is None:  # a min_kappa alone gates nothing: a mistake, not a setting
        if min_kappa is not None:
            raise ValueError("min_kappa: applies to require_agreement=LABELS, which is not given")
        return None
    return Required(labels, MIN_KAPPA.default if min_kappa is None else min_kappa)


def check_metrics(metrics: Any, evaluate: Mapping[str, Any]) -> None:
    """ValueError, before scoring, when the metrics asked for compute no answer-level verdict of the judge the
    labels measure (a mistake in the metrics themselves is left to :func:`genevals.evaluate` to name)."""
    __tracebackhide__ = True
    from genevals import registry
    from genevals.validation.gate import JUDGE_FAMILIES, VERDICT_OUTPUT

    try:
        resolved = registry.resolve(metrics, evaluate.get("options"))  # the offline stand-in is judged too
    except (ValueError, TypeError):
        return
    if not any((r.asked in JUDGE_FAMILIES or r.cls.family in JUDGE_FAMILIES)
               and (r.outputs is None or VERDICT_OUTPUT in r.outputs) for r in resolved):
        raise ValueError(f"require_agreement: the labels are compared with the hallucination judge's "
                         f"{VERDICT_OUTPUT} verdict ({', '.join(JUDGE_FAMILIES)}), which these metrics do not "
                         f"compute; add '{VERDICT_OUTPUT}' to metrics")
