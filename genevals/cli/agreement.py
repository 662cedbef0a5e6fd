"""``genevals run --require-agreement LABELS [--min-kappa K]``: the agreement gate on the command line
(:mod:`genevals.validation.gate` measures it).

The labels are read and checked with the other options, before anything is scored (exit 2 naming the file, the
line and the field). After the run's files are written, the judge's agreement with the labels is measured on
this run's labelled samples and recorded in summary.json (``meta.judge_agreement``) and the report. Below the
minimum, on too few labels to tell, or on no labelled sample at all, the run exits 3 and the thresholds on
judge-backed outputs are not checked (they are listed as such); thresholds on other outputs are checked as
always.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from genevals.cli.common import option_type


def _min_kappa():
    from genevals.validation.gate import MIN_KAPPA

    return MIN_KAPPA


def add_options(parser: argparse.ArgumentParser) -> None:
    gate = parser.add_argument_group("agreement gate")
    gate.add_argument("--require-agreement", default=None, metavar="LABELS",
                      help="a labels export (genevals review export): before a threshold on a judge-backed metric "
                           "(faithfulness, contradiction_rate, ...) decides, the judge's Cohen's kappa with these "
                           "labels on this run's labelled samples must reach --min-kappa, its 95%% CI's lower "
                           "bound included; else exit 3 (results are written first)")
    gate.add_argument("--min-kappa", type=option_type(_min_kappa), default=None, metavar="K",
                      help="the least kappa for --require-agreement (default 0.6, from -1 to 1)")


def problem(args: argparse.Namespace) -> str | None:
    """The labels read and checked (kept in ``args``), or the message that says why they cannot be used."""
    from genevals.validation.gate import read_labels
    from genevals.validation.labels import LabelledInputError

    given = getattr(args, "require_agreement", None)
    if given is None:
        if getattr(args, "min_kappa", None) is not None:
            return "--min-kappa: applies to --require-agreement LABELS, which is not given"
        return None
    try:
        args.agreement_labels = read_labels(given)
    except LabelledInputError as exc:
        return f"--require-agreement: {exc}"
    return None


def check_run(args: argparse.Namespace, selected: Sequence[Any]) -> None:
    """InputError, before scoring, when --require-agreement is given and no selected metric is judged by a
    judge the labels measure."""
    from genevals import registry
    from genevals.input.readers import InputError
    from genevals.validation.gate import JUDGE_FAMILIES, VERDICT_OUTPUT, judged_outputs

    if getattr(args, "require_agreement", None) is None:
        return
    if VERDICT_OUTPUT not in judged_outputs(registry.declarations(selected)):
        raise InputError("--require-agreement", None, None,
                         f"the labels are compared with the hallucination judge's {VERDICT_OUTPUT} verdict "
                         f"({', '.join(JUDGE_FAMILIES)}), which this run does not compute; add -m faithfulness")


def gate(args: argparse.Namespace, summary: dict[str, Any]):
    """The agreement, measured on the written run, recorded in summary.json and said on the terminal (a gate
    result: also with -q); None without --require-agreement."""
    from genevals.validation.gate import MIN_KAPPA, measure_run, record

    if getattr(args, "require_agreement", None) is None:
        return None
    if getattr(args, "dry_run", False):  # no verdicts to compare: the gate waits for the real run
        if not args.quiet:
            print("genevals: note: --require-agreement: not measured on a dry run (no verdicts)", file=sys.stderr)
        return None
    minimum = MIN_KAPPA.default if args.min_kappa is None else args.min_kappa
    seed = args.seed if getattr(args, "seed", None) is not None else summary.get("seed")
    found = measure_run(args.agreement_labels, args.out, minimum, args.require_agreement,
                        **({"seed": seed} if isinstance(seed, int) else {}))
    record(args.out, summary, found)
    if found.passed:
        print(f"genevals: {found.line()}", file=sys.stderr)
    else:
        print(f"genevals: error: {found.line()}; exit 3 (results are written)", file=sys.stderr)
    return found


def decided(args: argparse.Namespace, thresholds: Sequence[Any], found: Any) -> list[Any]:
    """The thresholds that may decide the exit code: all of them, unless the judge failed its agreement gate,
    when those on judge-backed outputs are set aside (each named)."""
    from genevals.output.runfolder import read_outputs
    from genevals.output.thresholds import flag
    from genevals.validation.gate import judged_outputs

    if found is None or found.passed or not thresholds:
        return list(thresholds)
    judged = set(judged_outputs(read_outputs(args.out)))
    for t in thresholds:
        if t.metric in judged:
            print(f"genevals: threshold not checked: {flag(t.kind)} {t.metric}={t.limit:g}: the judge did not pass "
                  "--require-agreement", file=sys.stderr)
    return [t for t in thresholds if t.metric not in judged]
