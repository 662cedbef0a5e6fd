"""``genevals review SET_DIR`` and ``genevals review export SET_DIR -o FILE`` for a folder ``genevals generate``
wrote: its items served for reviewers (:mod:`genevals.review.set_app`); the decisions as JSONL, and the valid-item
rate of the queue into card.json's ``human_review`` (:mod:`genevals.review.set_review`).

Exit codes (:mod:`genevals.cli.common`): 0 done (or the server was stopped), 2 bad input.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK
from genevals.output.terminal import say


def is_set_folder(folder: Path) -> bool:
    from genevals.review.testset import is_set_folder as recognised

    return recognised(folder)


def cmd_review_set(args: argparse.Namespace, folder: Path) -> int:
    from genevals.review.store import StoreError
    from genevals.review.testset import SetError

    exporting = args.target == "export" and args.run_dir is not None
    if exporting and (args.blind or args.queue is not None or args.queue_seed is not None
                      or args.queue_rejected is not None):
        say("genevals: error: --blind and --queue* serve a review; `review export` writes what is stored")
        return EXIT_BAD_INPUT
    if args.citations_out is not None or args.max_samples is not None:
        say("genevals: error: --citations-out and --max-samples are for run folders; "
            f"{folder} is a generated test set")
        return EXIT_BAD_INPUT
    if not exporting and (args.run_dir is not None or args.output is not None):
        say("genevals: error: use `genevals review SET_DIR` or `genevals review export SET_DIR -o FILE`")
        return EXIT_BAD_INPUT
    if not exporting and args.queue is None and (args.queue_seed is not None or args.queue_rejected is not None):
        say("genevals: error: --queue-seed and --queue-rejected shape the draw of --queue N, which is not given")
        return EXIT_BAD_INPUT
    try:
        return _export(folder, args.output) if exporting else _serve(args, folder)
    except (SetError, StoreError, OSError, sqlite3.Error) as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT


def _export(folder: Path, output: str | None) -> int:
    from genevals.atomic import write_whole
    from genevals.review import set_review
    from genevals.review.store import ReviewStore, store_path
    from genevals.review.testset import load_set

    if not output:
        say("genevals: error: review export needs -o FILE")
        return EXIT_BAD_INPUT
    if Path(output).suffix.lower() not in ("", ".jsonl", ".ndjson"):
        say(f"genevals: error: -o {output}: review export writes JSONL; name the file .jsonl")
        return EXIT_BAD_INPUT
    gen = load_set(folder)
    if Path(output).resolve().parent == folder.resolve():
        say(f"genevals: error: -o {output}: inside the set folder; write the export elsewhere")
        return EXIT_BAD_INPUT
    if not store_path(folder).is_file():
        say(f"genevals: error: {folder}: no review.sqlite (serve it with `genevals review {folder}` first)")
        return EXIT_BAD_INPUT
    with ReviewStore(folder, readonly=True) as store:
        queue = store.queue()
        decisions = set_review.read_decisions(store) if store.version >= 5 else []
        skipped = store.skipped
    rows = set_review.export_rows(gen, queue, decisions)
    write_whole(output, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    say(f"wrote {output}: {len(rows)} reviewed items", sys.stdout)
    if skipped:
        say(f"genevals: warning: {store_path(folder)}: {skipped} row(s) that are not decisions were left out")
    if queue is None:
        say("genevals: warning: no review queue: the decisions are not a random sample, so no valid-item rate is "
            "written to card.json (serve with --queue N)")
        return EXIT_OK
    rates = set_review.estimate(gen, queue, decisions)
    section = set_review.card_section(rates, queue)
    set_review.write_card(gen, section)
    kept = rates["kept"]
    rate = "not measured (no queued item decided)" if kept["rate"] is None else \
        f"{kept['rate']:.3f} (95% CI {kept['ci95'][0]:.3f}-{kept['ci95'][1]:.3f})"
    say(f"valid-item rate: {rate}, n={kept['n']} of {kept['queue']} queued ({kept['unsure']} unsure left out, "
        f"{kept['undecided']} undecided); written to {folder / 'card.json'} (human_review)", sys.stdout)
    return EXIT_OK


def may_bind(args: argparse.Namespace, what: str) -> bool:
    """Whether the review server may bind ``--host``: a loopback address, or another with ``--allow-remote``
    (then with a warning: it has no login, so anyone who reaches the port reads ``what``); else an error said."""
    from genevals.review.server import is_loopback

    if is_loopback(args.host):
        return True
    if not args.allow_remote:
        say(f"genevals: error: --host {args.host} is not a loopback address; the review server has no "
            "login, so binding it needs --allow-remote")
        return False
    say(f"genevals: warning: binding {args.host}: anyone who can reach this port can read {what} and "
        "write decisions")
    return True


def _serve(args: argparse.Namespace, folder: Path) -> int:
    from genevals.review.set_app import SetServeConfig, serve

    if not may_bind(args, "the set"):
        return EXIT_BAD_INPUT
    config = SetServeConfig(run_dir=folder, host=args.host, port=args.port, allow_remote=args.allow_remote,
                            request_timeout=args.request_timeout, verbose=args.verbose, blind=args.blind,
                            queue=args.queue, queue_seed=12345 if args.queue_seed is None else args.queue_seed,
                            queue_rejected=args.queue_rejected or 0.0)
    serve(config)
    return EXIT_OK
