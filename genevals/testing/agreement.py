"""The agreement gate in :func:`~genevals.testing.assert_scores` (``require_agreement=LABELS, min_kappa=0.6``,
also through the ``genevals`` marker): as ``genevals run --require-agreement`` (:mod:`genevals.validation.gate`),
the labels and the minimum are checked before anything is scored, the agreement is measured on the run's own
labelled samples, and a judge that does not reach the minimum (or whose labels are too few to tell) fails the
test before any gate on a judge-backed output may pass or fail it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from genevals.output import thresholds as th


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


def measure(asked: Required, results: Any, out_dir: Any) -> Any:
    """The agreement on ``results`` (its samples kept), recorded in its summary (and summary.json, when the run
    wrote a folder)."""
    from genevals.output.runfolder import SUMMARY_FILE
    from genevals.stats import DEFAULT_SEED
    from genevals.validation.gate import from_results, measure as measured, record

    seed = getattr(results, "seed", None)
    found = measured(asked.rows, from_results(results.samples), asked.min_kappa, asked.source,
                     seed=seed if isinstance(seed, int) else DEFAULT_SEED)
    summary = results.summary()
    if out_dir is not None and (Path(out_dir) / SUMMARY_FILE).is_file():
        record(out_dir, summary, found)
    else:
        summary.setdefault("meta", {})["judge_agreement"] = found.to_dict()
    return found


def decided(gates: Sequence[th.Threshold], found: Any) -> tuple[list[th.Threshold], list[str]]:
    """(the gates that may decide, a line for each set aside): all of them unless the judge failed its agreement
    gate, when those on its outputs are set aside."""
    from genevals import registry
    from genevals.validation.gate import judged_outputs

    if found is None or found.passed:
        return list(gates), []
    judged = set(judged_outputs({g.metric: registry.declaration_of(g.metric) or {} for g in gates}))
    kept = [g for g in gates if g.metric not in judged]
    return kept, [f"gate not checked: {g.kind}[{g.metric!r}] = {g.limit:g}: the judge did not pass "
                  "require_agreement" for g in gates if g.metric in judged]
