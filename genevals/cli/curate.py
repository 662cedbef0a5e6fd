"""``genevals curate RUN_DIR... --out DIR --rule RULE ...``: a test set from scored run folders and their reviews
(:mod:`genevals.curate`).

Exit codes (:mod:`genevals.cli.common`): 0 written; 1 written but empty (no rule chose a sample: each rule's reason
is said, so an empty set never passes for a curated one); 2 bad input (nothing written).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK

#: the set was written but no rule chose a sample
EXIT_EMPTY = 1


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "curate", help="make a test set from run folders: flagged, disputed, low-scoring or sampled answers",
        description="Reads run folders (and each one's review.sqlite), keeps the samples the rules choose, removes "
                    "duplicates (same normalised question and answer, or a rapidfuzz ratio at or above --near), "
                    "takes a reviewer's note that starts with 'reference:' as the row's reference, and writes "
                    "DIR/testset.jsonl (genevals generate's format, for genevals run) and DIR/card.json.")
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders written by genevals run (or watch's windows), "
                   "or trace export files with --from")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for testset.jsonl and card.json")
    p.add_argument("--rule", action="append", required=True, metavar="RULE",
                   help="flagged | disputed | low:METRIC<X | sample:N (repeat for several; a row is kept when "
                        "any rule chooses it)")
    p.add_argument("--seed", type=int, default=12345, help="seed of sample:N's draw (default 12345)")
    p.add_argument("--band-metric", default=None, metavar="METRIC",
                   help="the metric whose value bands stratify sample:N (default: the first metric of the results)")
    p.add_argument("--near", type=float, default=None, metavar="RATIO",
                   help="near-duplicate threshold, rapidfuzz fuzz.ratio 0-100 (default 90)")
    p.add_argument("--from", dest="trace_format", choices=("openinference", "langfuse", "langsmith"), default=None,
                   help="the format of the trace export files given (read as genevals run --from reads them; "
                        "unscored, so only sample:N chooses among their traces)")
    p.add_argument("--review", default=None, metavar="FILE",
                   help="a review.sqlite to read instead of the run folder's own (one run folder only)")
    p.set_defaults(handler=main)
    return p


def main(args: argparse.Namespace) -> int:
    from genevals.curate.config import NEAR_THRESHOLD, CurateConfig, CurateError, parse_rule
    from genevals.curate.testset import curate

    try:
        near = NEAR_THRESHOLD if args.near is None else args.near
        if not 0 < near <= 100:
            raise CurateError(f"--near {near:g}: expected a ratio above 0 and at most 100")
        config = CurateConfig(runs=tuple(Path(r) for r in args.runs), out=Path(args.out),
                              rules=tuple(parse_rule(r) for r in args.rule), seed=args.seed,
                              band_metric=args.band_metric, near=near, trace_format=args.trace_format,
                              review=Path(args.review) if args.review else None)
        outcome = curate(config)
    except CurateError as exc:
        print(f"genevals curate: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"genevals curate: error: {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for name, reason in outcome.chose_nothing.items():
        print(f"genevals curate: rule {name} chose nothing: {reason}", file=sys.stderr)
    if not outcome.rows:
        print("genevals curate: the set is empty (exit 1)", file=sys.stderr)
        return EXIT_EMPTY
    return EXIT_OK
