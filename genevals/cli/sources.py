"""``genevals run``'s inputs other than one row file: a trace export (``--from FORMAT FILE``, ``--system-from``)
and TREC files (``--qrels QRELS --run RUN [--run RUN2 ...]``, each run a system). Both become a reader kind
(:class:`~genevals.input.source.RowSource`) that the planning pass reads once, as it reads a JSONL file. A trace's
row goes through ``--map`` as a file's row does."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

#: the metrics a run of TREC files scores unless -m names others: they hold rankings, no answers
TREC_METRICS = ["retrieval"]


def add_options(parser: argparse.ArgumentParser) -> None:
    from genevals.input.traces import FORMATS

    group = parser.add_argument_group("traces and TREC files")
    group.add_argument("--from", dest="from_format", type=_trace_format, default=None,
                       metavar="{" + ",".join(FORMATS) + "}",
                       help="INPUT is a trace export: OTLP JSON spans with OpenInference attributes, a Langfuse "
                            "trace export or a LangSmith run export; one sample per trace")
    group.add_argument("--system-from", default=None, metavar="ATTR",
                       help="with --from: the attribute (a dotted path) naming each trace's system")
    group.add_argument("--qrels", default=None, metavar="QRELS", help="a TREC qrels file (with --run)")
    group.add_argument("--run", dest="trec_runs", action="append", default=[], metavar="RUN",
                       help="a TREC run file, one system each (repeatable; with --qrels; default metrics: retrieval)")


def _trace_format(name: str) -> str:
    """``--from``'s value, one of the trace formats; else a usage error with a did-you-mean (exit 2)."""
    from genevals.input.traces import FORMATS
    from genevals.settings import did_you_mean

    if name not in FORMATS:
        raise argparse.ArgumentTypeError(f"unknown trace format '{name}'{did_you_mean(name, FORMATS)} "
                                         f"(formats: {', '.join(FORMATS)})")
    return name


def problem(args: argparse.Namespace) -> str | None:
    """The first combination of these options that cannot work, naming the options; None when all can."""
    if args.trec_runs or args.qrels:
        if args.input:
            return f"INPUT {args.input}: give either an input file or --qrels with --run, not both"
        if not args.trec_runs:
            return "--qrels: give the runs to evaluate with --run RUN (repeatable)"
        if not args.qrels:
            return "--run: give the relevance judgements with --qrels QRELS"
        if args.from_format:
            return "--from: reads INPUT, not TREC files; leave it out with --qrels/--run"
    elif not args.input:
        return "INPUT: give the input file (JSONL, CSV or Parquet), or --qrels with --run"
    if args.system_from is not None and not args.from_format:
        return "--system-from: names a trace attribute, so it needs --from FORMAT"
    if args.system_from is not None and not args.system_from.strip():
        return "--system-from: the attribute name is empty"
    # a trace becomes a row of fields (id, question, answer, contexts, system) that a mapping can rearrange
    # (--map id=question pairs systems' traces of one question); a TREC run has no such row
    if args.trec_runs and (args.map or args.map_file or args.show_mapping or getattr(args, "ignore_fields", None)):
        return "--map/--map-file/--show-mapping/--ignore-fields: apply to row files' columns, not to --run input"
    return None


def data(args: argparse.Namespace) -> Any:
    """What the run reads: the input path, or the reader kind these options name."""
    if args.trec_runs:
        from genevals.input.trec import TrecSource

        return TrecSource(Path(args.qrels), tuple(Path(r) for r in args.trec_runs))
    if args.from_format:
        from genevals.input.traces import TraceSource

        return TraceSource(Path(args.input), args.from_format, args.system_from)
    return args.input


def metrics(args: argparse.Namespace) -> list[str] | None:
    """The metrics asked for; with TREC runs and none asked for, retrieval only."""
    return TREC_METRICS if args.trec_runs and args.metrics is None else args.metrics
