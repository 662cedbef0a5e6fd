"""The checks ``genevals run`` makes of its options before anything is read or scored: each gives the first value
that cannot work as a message naming the option (exit 2), so a run never fails half-way for an option."""
from __future__ import annotations

import argparse
import re

from genevals.cli import sources
from genevals.cli.common import judge_option_split


def check_options(args: argparse.Namespace) -> str | None:
    """The first option value that cannot work, as a message naming the option; None when all can. Checked
    before anything is read or scored: a zero budget or a cutoff of 10^20 would otherwise hang the run, and an
    output folder that cannot be made would fail only after the scoring."""
    from genevals.engine.arguments import check_out_dir
    from genevals.input.readers import InputError
    from genevals.language import LanguageSetting
    from genevals.metrics.semantic.bertscore_settings import DEVICE
    from genevals.metrics.retrieval.retrieval import MAX_CUTOFF

    try:
        judge_option_split(args)
    except ValueError as exc:
        return str(exc)
    if args.metrics is not None and not args.metrics:
        return "--metrics: names no metric (comma-separated names, e.g. rouge,token_f1; see `genevals metrics`)"
    if args.cutoffs is not None and not args.cutoffs:
        return "--cutoffs: names no cutoff (comma-separated whole numbers, e.g. 1,5,10)"
    too_far = [k for k in args.cutoffs or () if not 1 <= k <= MAX_CUTOFF]
    too_far += [name for name in args.metrics or () if re.search(r"@\d{6,}\Z", name)
                and int(name.rpartition("@")[2][:7]) > MAX_CUTOFF]
    if too_far:
        option = "--cutoffs" if args.cutoffs and too_far[0] in args.cutoffs else "--metrics"
        return f"{option}: {too_far[0]}: a cutoff must be from 1 to {MAX_CUTOFF:,}"
    if args.device is not None and not DEVICE.match(args.device):
        return f"--device: unknown device '{args.device}' (cpu, cuda, cuda:N or mps)"
    try:  # here, so the message names the option (the API names its argument, language=)
        LanguageSetting.parse(args.language, "--language")
    except ValueError as exc:
        return str(exc)
    if args.citation_pattern is not None:
        from genevals.claims.citations import PatternError, compile_pattern

        try:
            compile_pattern(args.citation_pattern)
        except PatternError as exc:
            return f"--citation-pattern: {exc}"
    if args.judge_prices is not None:
        from genevals.judge.config import prices_problem

        problem = prices_problem(args.judge_prices)
        if problem is not None:
            return f"--judge-prices: {problem}"
    if args.input == "":  # Path("") is ".", the current folder: "is a directory" would not say what is wrong
        return "INPUT: the path is empty; give the input file (JSONL, CSV or Parquet)"
    if sources.problem(args) is not None:
        return sources.problem(args)
    if not args.out:  # Path("") is "." too: the run would be written into the current folder
        return "--out: the path is empty; give the output folder (default: reports/latest)"
    try:
        check_out_dir(args.out, "--out")
    except InputError as exc:
        return str(exc)
    except OSError as exc:  # a name too long, a symlink loop: found by stat() before anything is made
        return f"--out: {args.out}: {exc.strerror or exc}"
    return None


#: the options whose destination is not their name
_OPTION_NAMES = {"input": "INPUT", "thresholds": "--fail-under/--fail-over", "trec_runs": "--run",
                 "from_format": "--from"}


def unwritable_option(args: argparse.Namespace) -> str | None:
    """The first option value holding text that cannot be written as UTF-8 (a lone surrogate, as a file name
    or argument with bytes that are not UTF-8 gives one), as an error message naming the option; else None.
    Such text would reach results.jsonl or summary.json and fail there, mid-run (see :mod:`genevals.utf8`)."""
    import os

    from genevals import utf8

    for dest, value in vars(args).items():
        found = utf8.find(value)
        if found is not None:
            # the value as the bytes it came from (a file name's \xff), escaped: it cannot be printed as it is
            shown = f" {os.fsencode(value).decode('utf-8', 'backslashreplace')}" if isinstance(value, str) else ""
            return (f"{_OPTION_NAMES.get(dest, '--' + dest.replace('_', '-'))}{shown}: invalid Unicode "
                    f"({found[1]}); it cannot be written as UTF-8")
    return None
