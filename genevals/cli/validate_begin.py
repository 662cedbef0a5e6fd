"""``genevals validate BEGIN.tsv|FOLDER``: a judge's agreement with BEGIN's attribution labels
(:mod:`genevals.validation.begin`), printed as a validation card. ``--limit N`` takes a fixed stratified
subsample of N rows (a slow judge on a small machine), never the first N (the files are sorted by source)."""
from __future__ import annotations

import argparse
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_JUDGE_ERRORS, EXIT_OK
from genevals.output.terminal import say


def cmd(args: argparse.Namespace, out: Path, files: list[Path], judge_settings) -> int:
    """``judge_settings(args)``: (the JudgeConfig, the judge's settings), as validate reads them from the options."""
    from genevals.cli import failures
    from genevals.stats import DEFAULT_SEED
    from genevals.validation import Rule, build_metric
    from genevals.validation.begin import load_begin
    from genevals.validation.begin_report import card_text, stratified, validate, write_outputs
    from genevals.validation.labels import LabelledInputError

    try:
        if args.judge not in ("local", "llm", "cascade"):
            raise ValueError(f"--judge {args.judge}: a BEGIN file has attribution labels, not citation labels; "
                             "use --judge local, llm or cascade")
        if getattr(args, "jury", None) is not None:
            raise ValueError("--jury: a BEGIN file is validated with one judge (--judge local, llm or cascade)")
        if args.task_type is not None:
            raise ValueError("--task-type: a BEGIN file has no task types (its rows have a data_source)")
        rule = Rule.parse(args.rule)
        rows = [row for path in files for row in load_begin(path)]
        whole = len(rows)
        if args.limit is not None:
            rows = stratified(rows, args.limit)
        if not rows:
            raise ValueError("no rows to validate")
        config, options = judge_settings(args)
        metric = build_metric(args.judge, options, config)
    except (LabelledInputError, ValueError, TypeError) as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    if args.judge != "local" and not args.no_preflight:
        from genevals.judge.preflight import preflight

        problem = preflight(config)
        if problem is not None:
            say(f"genevals: error: {problem}")
            return EXIT_BAD_INPUT
    from genevals.cli.progress import interruptible

    meta = {"input": str(args.input), "files": [str(p) for p in files]}
    if len(rows) < whole:
        meta["subsample"] = f"{len(rows)} of {whole} rows, each label in its share (--limit {args.limit})"
    scored = interruptible(args.quiet, "answer", lambda bar: validate(
        rows, metric, rule, args.judge, seed=args.seed if args.seed is not None else DEFAULT_SEED,
        resamples=args.resamples, progress=bar, meta=meta))
    if scored is None:
        return EXIT_INTERRUPTED
    report, outcomes = scored
    paths = write_outputs(report, outcomes, out)
    if not args.quiet:
        print(card_text(report))
        print(f"wrote {paths['json']} and {paths['rows']}")
    if args.judge != "local":
        found = failures.from_statuses(args.judge, ((o["status"], o["reason"] or "") for o in outcomes))
        if failures.report(found, args.max_judge_errors):
            return EXIT_JUDGE_ERRORS
    return EXIT_OK
