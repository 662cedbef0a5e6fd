"""``genevals run --require-agreement LABELS [--min-kappa K]``: the agreement gate's options (the lifecycle runs
the gate: :mod:`genevals.lifecycle.agreement`; :mod:`genevals.validation.gate` measures it).

The labels are read and checked with the other options, before anything is scored (exit 2 naming the file, the
line and the field). After the run's files are written, the judge's agreement with the labels is measured on
this run's labelled samples and recorded in summary.json (``meta.judge_agreement``) and the report. Below the
minimum, on too few labels to tell, or on no labelled sample at all, the run exits 3 and the thresholds on
judge-backed outputs are not checked (they are listed as such); thresholds on other outputs are checked as
always.
"""
from __future__ import annotations

import argparse
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
