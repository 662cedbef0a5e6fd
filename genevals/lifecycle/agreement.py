"""The agreement gate (``--require-agreement LABELS [--min-kappa K]``, ``require_agreement=`` in the API and
the pytest plugin), measured by :mod:`genevals.validation.gate`.

The labels are read and checked before anything is scored (naming the file, the line and the field), and so is
whether the run computes the verdict they are compared with. After the run's files are written, the judge's
agreement with the labels is measured on this run's labelled samples and recorded in summary.json
(``meta.judge_agreement``) and the report. Below the minimum, on too few labels to tell, or on no labelled
sample at all, the verdict is exit 3 and the thresholds on judge-backed outputs are set aside (each named);
thresholds on other outputs are checked as always.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from genevals.lifecycle.messages import Messages


class Required:
    """The labels read and the least kappa, before scoring."""

    def __init__(self, source: str, rows: list[dict[str, Any]], min_kappa: float) -> None:
        self.source, self.rows, self.min_kappa = source, rows, min_kappa


def required(labels: str | Path | None, min_kappa: float | None) -> Required | None:
    """The gate asked for, its labels read (LabelledInputError naming the file, line and field; ValueError for a
    ``min_kappa`` with no labels); None when no labels are given."""
    from genevals.validation.gate import MIN_KAPPA, read_labels

    if labels is None:  # a min_kappa alone gates nothing: a mistake, not a setting
        if min_kappa is not None:
            raise ValueError("--min-kappa: applies to --require-agreement LABELS, which is not given")
        return None
    from genevals.settings import check

    minimum = check(MIN_KAPPA, MIN_KAPPA.default if min_kappa is None else min_kappa)
    return Required(str(labels), read_labels(labels), minimum)


def computed(declarations: Mapping[str, Mapping[str, Any]]) -> str | None:
    """Why the gate cannot be measured on a run of these outputs' declarations (it computes no verdict of the
    judge the labels measure), or None."""
    from genevals.validation.gate import JUDGE_FAMILIES, VERDICT_OUTPUT, judged_outputs

    if VERDICT_OUTPUT in judged_outputs(declarations):
        return None
    return (f"the labels are compared with the hallucination judge's {VERDICT_OUTPUT} verdict "
            f"({', '.join(JUDGE_FAMILIES)}), which this run does not compute; add -m faithfulness")


def measure(asked: Required, results: Any, out_dir: Path | None, seed: Any) -> Any:
    """The agreement on the run (its folder's results.jsonl, read once written; else its samples kept),
    recorded in its summary (and summary.json when the run wrote a folder)."""
    from genevals.output.runfolder import SUMMARY_FILE
    from genevals.stats import DEFAULT_SEED
    from genevals.validation.gate import from_results, measure as measured, measure_run, record

    seed = seed if isinstance(seed, int) else DEFAULT_SEED
    summary = results.summary()
    if out_dir is not None and (Path(out_dir) / SUMMARY_FILE).is_file():
        found = measure_run(asked.rows, out_dir, asked.min_kappa, asked.source, seed=seed)
        record(out_dir, summary, found)
    else:
        found = measured(asked.rows, from_results(results.samples), asked.min_kappa, asked.source, seed=seed)
        summary.setdefault("meta", {})["judge_agreement"] = found.to_dict()
    return found


def decided(thresholds: Sequence[Any], found: Any, declarations: Mapping[str, Mapping[str, Any]],
            say: Messages) -> list[Any]:
    """The thresholds that may decide the verdict: all of them, unless the judge failed its agreement gate, when
    those on judge-backed outputs are set aside (each named)."""
    from genevals.output.thresholds import flag
    from genevals.validation.gate import judged_outputs

    if found is None or found.passed or not thresholds:
        return list(thresholds)
    judged = set(judged_outputs(declarations))
    for t in thresholds:
        if t.metric in judged:
            say.gate(f"genevals: threshold not checked: {flag(t.kind)} {t.metric}={t.limit:g}: the judge did not "
                     "pass --require-agreement")
    return [t for t in thresholds if t.metric not in judged]
