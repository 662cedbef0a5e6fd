"""``genevals watch --out DIR -m METRICS (--otlp-port P | --follow FILE | --from FILE) ...``: live traces scored
as they come, each window one run folder (:mod:`genevals.watch`).

Exit codes (:mod:`genevals.cli.common`): 0 stopped by SIGTERM (the open window is scored first) or a backfill
done, 130 stopped by SIGINT (Ctrl-C; the open window is scored first too), 2 bad input (an option, a metric name,
a port in use, another watcher on the folder, ``--max-cost`` for a judge model the price table does not price),
before anything is received.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from genevals.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, add_judge_options, csv_list, faithfulness_options,
                                 judge_config)


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "watch", help="score live traces: an OTLP/HTTP receiver, a followed file or a backfill, in windows",
        description="Receives OpenTelemetry traces (OpenInference conventions), decides each trace once (sampled by "
                    "the hash of its id, filtered, capped, sharded), scores the chosen ones in windows, each an "
                    "ordinary run folder DIR/windows/NNNN, and writes one line per trace to DIR/decisions.jsonl. "
                    "Spans are committed to DIR/queue.sqlite before they are acknowledged; SIGTERM scores the "
                    "open window and exits; a restart after a kill scores an interrupted window again.")
    p.add_argument("--out", required=True, metavar="DIR", help="the watch folder")
    p.add_argument("-m", "--metrics", type=csv_list, required=True, metavar="METRICS",
                   help="comma-separated metrics, as genevals run takes them")
    source = p.add_argument_group("where traces come from (one or more)")
    source.add_argument("--otlp-port", type=int, default=None, metavar="P",
                        help="serve OTLP/HTTP POST /v1/traces on 127.0.0.1:P (0: a free port, written to "
                             "DIR/watch.json)")
    source.add_argument("--follow", default=None, metavar="FILE", help="follow an OTLP JSON lines file (tail -F)")
    source.add_argument("--from", dest="backfill", default=None, metavar="FILE",
                        help="backfill: score a past OTLP JSON lines export through the same path, then exit")
    source.add_argument("--until", type=float, default=None, metavar="T",
                        help="with --from: leave out spans starting after T (seconds since 1970)")
    choose = p.add_argument_group("which traces")
    choose.add_argument("--sample", type=float, default=1.0, metavar="RATE",
                        help="score a trace when the hash of its id is below RATE (default 1: all)")
    choose.add_argument("--filter", default=None, metavar="EXPR",
                        help="only traces whose resource or root-span attributes match (key=value, key!=value, "
                             "key~regex, key, !key, joined by ',')")
    choose.add_argument("--shard", default="0/1", metavar="I/N", help="score only hash shard I of N (default 0/1)")
    when = p.add_argument_group("when")
    when.add_argument("--window", default="60s", help="60s (a duration) or 500 (traces) a window (default 60s)")
    when.add_argument("--grace", default="2s", help="wait after a root span arrives (default 2s)")
    when.add_argument("--max-wait", default="600s", help="a trace with no root after this is incomplete")
    when.add_argument("--session-idle", default="300s", help="score a session after this quiet (default 300s)")
    caps = p.add_argument_group("limits")
    caps.add_argument("--max-judge-calls", type=int, default=None, metavar="N",
                      help="judge calls a window, each trace's estimated (the judge's dry run until a window is "
                           "scored, then the calls measured per trace): traces past it are over_budget")
    caps.add_argument("--max-cost", type=float, default=None, metavar="USD",
                      help="estimated judge cost a window, priced as --max-judge-calls counts (--judge-prices must "
                           "price the judge's model): traces past it are over_budget")
    caps.add_argument("--queue-limit", type=int, default=200_000, metavar="SPANS",
                      help="spans waiting in the queue before the receiver answers 429 (default 200000)")
    caps.add_argument("--max-body", type=int, default=16 << 20, metavar="BYTES",
                      help="largest request body, gzip inflated (default 16 MiB): 413 above")
    after = p.add_argument_group("after each window")
    after.add_argument("--alert", action="append", default=[], metavar="EXPR", help="e.g. 'faithfulness<0.8'")
    after.add_argument("--alert-command", default=None, metavar="CMD",
                       help="run CMD when an alert fires (the firing as JSON on stdin and in GENEVALS_ALERT)")
    after.add_argument("--alert-url", default=None, metavar="URL", help="POST the firing as JSON to URL")
    after.add_argument("--min-coverage", type=float, default=None, metavar="SHARE",
                       help="no alert on a window whose coverage (scored / samples) is below SHARE")
    after.add_argument("--otel-endpoint", default=None, metavar="URL",
                       help="send each window's results as gen_ai.evaluation.result events")
    after.add_argument("--history", default=None, metavar="FILE",
                       help="record each window in this history (default: the default history, as genevals run "
                            "records; $GENEVALS_HISTORY or ~/.local/share/genevals/history.sqlite)")
    after.add_argument("--no-history", action="store_true", help="record no window in any history")
    after.add_argument("--baseline-window", type=int, default=None, metavar="K",
                       help="the trend page's drift test compares each window with window K (default: the first)")
    add_judge_options(p)
    p.set_defaults(handler=main)
    return p


def main(args: argparse.Namespace) -> int:
    from genevals.watch.config import StoreError, WatchError

    try:
        config = _config(args)
        from genevals.watch.loop import Watcher  # after the check that opentelemetry-proto is installed

        watcher = Watcher(config)
        _warm()
    except (WatchError, StoreError, OSError) as exc:
        print(f"genevals watch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    stop, got = threading.Event(), []

    def stopping(signum, _frame) -> None:  # the loop scores the open window, then returns
        got.append(signum)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stopping)
    try:
        watcher.run(stop)
        # SIGTERM is how a service is stopped (0); Ctrl-C exits 130, as every genevals command does
        return EXIT_INTERRUPTED if signal.SIGINT in got else EXIT_OK
    except OSError as exc:  # the port in use, the folder not writable
        print(f"genevals watch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except WatchError as exc:
        print(f"genevals watch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _config(args: argparse.Namespace):
    from genevals.extras import install_command
    from genevals.registry import JUDGE, MissingExtra, UnknownMetric, resolve
    from genevals.watch import config as c

    lacking = absent_otel()
    if lacking is not None:
        raise c.WatchError(f"genevals watch needs {lacking}, which is not installed: "
                           f"{install_command('otel', lacking)}")
    if args.history is not None and args.no_history:
        raise c.WatchError("--history and --no-history: give one of them")
    if args.dry_run:
        raise c.WatchError("--dry-run: genevals watch scores as traces come; estimate with genevals run --dry-run "
                           "on an export instead")
    try:
        judge = judge_config(args)
    except ValueError as exc:
        raise c.WatchError(str(exc)) from None
    try:
        judge_metrics = sum(item.kind == JUDGE for item in resolve(args.metrics, judge=judge))
    except (UnknownMetric, MissingExtra) as exc:
        raise c.WatchError(f"--metrics: {exc}") from None
    seconds, traces = c.window(args.window)
    return c.WatchConfig(
        out=Path(args.out), metrics=tuple(args.metrics), sample=args.sample, filter=args.filter,
        window_seconds=seconds, window_traces=traces, otlp_port=args.otlp_port,
        follow=Path(args.follow) if args.follow else None, backfill=Path(args.backfill) if args.backfill else None,
        until=args.until, grace=c.duration(args.grace, "--grace"), max_wait=c.duration(args.max_wait, "--max-wait"),
        session_idle=c.duration(args.session_idle, "--session-idle"), max_judge_calls=args.max_judge_calls,
        judge_metrics=judge_metrics, max_cost=args.max_cost, queue_limit=args.queue_limit, max_body=args.max_body, alerts=tuple(args.alert),
        alert_command=args.alert_command, alert_url=args.alert_url, min_coverage=args.min_coverage,
        otel_endpoint=args.otel_endpoint, history=_history(args), baseline_window=args.baseline_window,
        shard=c.shard(args.shard), judge=judge, options=_options(args),
        max_judge_errors=args.max_judge_errors)


def _options(args: argparse.Namespace) -> dict | None:
    faithfulness = faithfulness_options(args)
    return {"faithfulness": faithfulness} if faithfulness else None


def absent_otel() -> str | None:
    """The distribution the OTLP decoding needs and lacks (genevals[otel]), else None."""
    from genevals.extras import absent

    return absent((("opentelemetry.proto", "opentelemetry-proto"), ("google.protobuf", "protobuf")))


def _history(args: argparse.Namespace) -> str | bool:
    """Where each window is recorded, as genevals run records a run: the file given, else the default history."""
    if args.no_history:
        return False
    return args.history if args.history is not None else True


def _warm() -> None:
    """One tiny in-memory run (token F1 of one row: no judge, no file) before the first trace is accepted: the
    scoring path's imports (numpy, pandas, the engine, about 110 MB) are paid at start, not inside the first
    window, so the first window's delay is the others' and the watcher's memory is flat from its first spans
    (benchmarks/bench_watch.py)."""
    import warnings

    import genevals
    import genevals.input.traces.openinference  # noqa: F401 -- what every window reads its traces with
    import genevals.report.render  # noqa: F401 -- and writes its page with

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        genevals.evaluate([{"id": "warm", "question": "q", "answer": "a", "references": ["a"]}], ["token_f1"])
