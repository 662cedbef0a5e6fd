"""``genevals review RUN_DIR``: serve a run's report for reviewers; ``genevals review export RUN_DIR -o FILE``:
the reviewed answers as labelled JSONL for ``genevals validate``. ``genevals review SET_DIR`` (a folder ``genevals
generate`` wrote): its items served for valid / invalid / unsure decisions (:mod:`genevals.cli.review_set`).

Exit codes (:mod:`genevals.cli.common`): 0 done (or the server was stopped), 2 bad input.
"""
from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, count, option_type
from genevals.settings import Setting
from genevals.output.terminal import say


def _above_zero(value: float) -> None:
    if not value > 0:
        raise ValueError(f"request_timeout: expected more than 0 and at most 3600 seconds, got {value:g}")


#: the review server's settings, declared once
SETTINGS = (
    Setting("port", int, 8765, "port to listen on (0 picks a free one)", minimum=0, maximum=65535),
    Setting("request_timeout", float, 10.0, "seconds a request may take to arrive, or its reply to be taken",
            minimum=0.0, maximum=3600.0, rule=_above_zero),
    Setting("queue", int, None, "answers the review queue draws", minimum=1, maximum=1_000_000),
    Setting("queue_seed", int, 12345, "seed of the review queue's draw", minimum=0, maximum=2**32 - 1),
    Setting("queue_rejected", float, None, "rejected items drawn beside a set's queue, as a share of N",
            minimum=0.0, maximum=1.0),
)
_PORT, _TIMEOUT, _QUEUE, _QUEUE_SEED, _QUEUE_REJECTED = SETTINGS


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``review`` subcommand to ``subparsers`` (from ``parser.add_subparsers``)."""
    p = subparsers.add_parser(
        "review", help="review a run's hallucination verdicts in the browser; export the decisions as labels",
        description="`genevals review RUN_DIR` serves the run's report on 127.0.0.1 so reviewers can mark the "
                    "judge's claims (confirmed hallucination, false alarm, not in the answer, unsure, with a note) and mark "
                    "hallucinations the judge missed; decisions are stored in RUN_DIR/review.sqlite. "
                    "`genevals review export RUN_DIR -o labels.jsonl` writes the reviewed answers in the schema "
                    "`genevals validate` reads. `genevals review SET_DIR` (a folder `genevals generate` wrote) "
                    "serves its items to be marked valid, invalid (with a reason) or unsure; with --queue N the "
                    "valid-item rate of a seeded uniform sample, with its Wilson 95% interval, goes to "
                    "SET_DIR/card.json (human_review), and `review export SET_DIR -o FILE` writes the decisions.")
    p.add_argument("target", metavar="RUN_DIR | SET_DIR | export",
                   help="a run folder or a generated set folder to serve, or `export`")
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR | SET_DIR", help="with `export`: the folder")
    p.add_argument("-o", "--output", default=None, help="with `export`: the JSONL file to write")
    p.add_argument("--citations-out", default=None, metavar="FILE",
                   help="with `export`: where the decisions on citation verdicts go, as labels for `genevals "
                        "validate --judge citations` (default: next to -o, NAME.citations.jsonl; written when "
                        "some citation verdict is settled)")
    p.add_argument("--port", type=option_type(_PORT), default=8765, help="port to listen on (default 8765; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only); anything else needs --allow-remote")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow --host to be a non-loopback address: anyone who can reach it can read the run and "
                        "write decisions")
    p.add_argument("--max-samples", type=count, default=None, metavar="N",
                   help="embed the texts of at most N samples, flagged ones first (default 2000)")
    p.add_argument("--request-timeout", type=option_type(_TIMEOUT), default=10.0, metavar="SECONDS",
                   help="close a connection whose request has not fully arrived within SECONDS, or that does not "
                        "take the reply (default 10)")
    p.add_argument("--blind", action="store_true",
                   help="blind review: serve the answers one by one without the judge's verdicts, which appear for "
                        "an answer once you have decided each of its claims; decisions made before are stored as "
                        "blind (the report is not served)")
    p.add_argument("--queue", type=option_type(_QUEUE), default=None, metavar="N",
                   help="draw N answers to review, stratified by the judge's verdict, disputed and uncertain ones "
                        "oversampled and first; their inclusion probabilities go to review.sqlite and the export, "
                        "so `genevals validate` estimates the judge's agreement on the whole run (a store holds "
                        "one queue: serving again with the same N continues it); for a generated set, N kept items "
                        "drawn uniformly, whose valid-item rate estimates the set's")
    # default None, not the seed: a seed given without --queue would otherwise be dropped without a word
    p.add_argument("--queue-seed", type=option_type(_QUEUE_SEED), default=None, metavar="SEED",
                   help="seed of the queue's random draw (default 12345)")
    p.add_argument("--queue-rejected", type=option_type(_QUEUE_REJECTED), default=None, metavar="SHARE",
                   help="a generated set only: also draw round(SHARE x N) of its rejected items into the queue "
                        "(their valid rate is reported apart; default 0)")
    p.add_argument("--verbose", action="store_true", help="log every request on stderr")
    p.set_defaults(handler=cmd_review)
    return p


def cmd_review(args: argparse.Namespace) -> int:
    from genevals.cli import review_set

    folder = Path(args.run_dir if args.target == "export" and args.run_dir is not None else args.target)
    if review_set.is_set_folder(folder):
        return review_set.cmd_review_set(args, folder)
    if args.queue_rejected is not None:
        say(f"genevals: error: --queue-rejected: draws rejected items of a generated set; {folder} is not one "
            "(no testset.jsonl and card.json)")
        return EXIT_BAD_INPUT
    if args.target == "export" and args.run_dir is not None:
        if args.blind or args.queue is not None:
            print("genevals: error: --blind and --queue serve a review; `review export` writes what is stored",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        if args.queue_seed is not None:
            say(f"genevals: error: --queue-seed {args.queue_seed}: seeds the draw of --queue N, which serves a "
                "review; `review export` writes what is stored")
            return EXIT_BAD_INPUT
        return _export(Path(args.run_dir), args.output, args.citations_out)
    if args.run_dir is not None or args.output is not None or args.citations_out is not None:
        print("genevals: error: use `genevals review RUN_DIR` or `genevals review export RUN_DIR -o FILE`",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.queue_seed is not None and args.queue is None:
        say(f"genevals: error: --queue-seed {args.queue_seed}: seeds the draw of --queue N, which is not given")
        return EXIT_BAD_INPUT
    return _serve(args)


def _export(run_dir: Path, output: str | None, citations_out: str | None = None) -> int:
    from genevals.files import clobber_refusal
    from genevals.output.runfolder import inputs_of
    from genevals.review.export import export_labels
    from genevals.review.store import StoreError

    if not output:
        print("genevals: error: review export needs -o FILE", file=sys.stderr)
        return EXIT_BAD_INPUT
    if Path(output).suffix.lower() not in ("", ".jsonl", ".ndjson", ".json", ".txt"):
        # labels.csv would have held JSONL under a name every spreadsheet opens as CSV
        say(f"genevals: error: -o {output}: review export writes JSONL (the labels `genevals validate` reads), "
            f"not {Path(output).suffix}; name the file .jsonl")
        return EXIT_BAD_INPUT
    cited_path = Path(citations_out) if citations_out else Path(output).with_suffix(".citations.jsonl")
    if cited_path.suffix.lower() not in (".jsonl", ".ndjson", ".json", ".txt") or cited_path == Path(output):
        say(f"genevals: error: --citations-out {cited_path}: a JSONL file other than -o")
        return EXIT_BAD_INPUT
    if not (run_dir / "results.jsonl").is_file():
        say(f"genevals: error: {run_dir}: neither a run folder (no results.jsonl) nor a set `genevals generate` "
            "wrote (no testset.jsonl and card.json)")
        return EXIT_BAD_INPUT
    for option, path in (("-o", Path(output)), ("--citations-out", cited_path)):
        problem = clobber_refusal(path, inputs_of(run_dir))
        if problem is not None:
            say(f"genevals: error: {option} {path} {problem}")
            return EXIT_BAD_INPUT
    try:
        counts, cited = export_labels(run_dir, output, cited_path)
    except (OSError, ValueError, StoreError, sqlite3.Error) as exc:  # ValueError: a garbage line in results
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    say(f"wrote {output}: {counts.written} reviewed answers ({counts.hallucinated} hallucinated)"
        + (f"; {counts.unsettled} left out with flagged claims still undecided" if counts.unsettled else "")
        + (f"; {counts.unreviewed} flagged answers left out with no decision yet" if counts.unreviewed else ""),
        sys.stdout)
    if counts.queued:
        print(f"review queue: {counts.queued_written} of the {counts.queued} answers it drew are labelled"
              + ("" if counts.queued_written == counts.queued else "; `genevals validate` weights the labelled "
                 "ones and names the strata with none")
              + (f"; {counts.queued_stale} of them are no longer in results.jsonl" if counts.queued_stale else ""))
    if counts.skipped:
        say(f"genevals: warning: {run_dir / 'review.sqlite'}: {counts.skipped} row(s) that are not decisions "
            "(damaged or edited by hand) were left out")
    if cited:
        say(f"wrote {cited_path}: {cited} answers with reviewed citations (for `genevals validate --judge "
            "citations`)", sys.stdout)
    return EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    from genevals.registry import declaration_of
    from genevals.cli.review_set import may_bind
    from genevals.review.server import ServeConfig, serve

    run_dir = Path(args.target)
    if not (run_dir / "results.jsonl").is_file():
        say(f"genevals: error: {run_dir}: neither a run folder (no results.jsonl) nor a set `genevals generate` "
            "wrote (no testset.jsonl and card.json)")
        return EXIT_BAD_INPUT
    if not may_bind(args, "the run"):
        return EXIT_BAD_INPUT
    config = ServeConfig(run_dir=run_dir, host=args.host, port=args.port, allow_remote=args.allow_remote,
                         max_samples=args.max_samples, request_timeout=args.request_timeout, verbose=args.verbose,
                         blind=args.blind, queue=args.queue,
                         queue_seed=_QUEUE_SEED.default if args.queue_seed is None else args.queue_seed)
    try:
        serve(config, declared=declaration_of)
    except (OSError, ValueError, sqlite3.Error) as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    return EXIT_OK
