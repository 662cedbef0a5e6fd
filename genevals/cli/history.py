"""``genevals history``: the runs the history holds (``genevals history``), one of them with each headline
metric's trend across runs (``genevals history show RUN``); and what ``genevals run`` does with the history:
``--history PATH`` / ``--no-history`` (where it records itself) and ``--baseline RUN`` (exit 1 when a gated metric
regressed significantly against that earlier run).

Exit codes (:mod:`genevals.cli.common`): 0, or 2 for a history that cannot be read or a run it does not hold.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, count
from genevals.output.terminal import visible

_PATH_HELP = ("the run history's SQLite file (default: $GENEVALS_HISTORY, else "
              "$XDG_DATA_HOME/genevals/history.sqlite, i.e. ~/.local/share/genevals/history.sqlite)")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("history", help="list the runs recorded in the run history, or show one",
                                   description="The runs every `genevals run` recorded: `genevals history` lists "
                                               "them, `genevals history show RUN` shows one and each headline "
                                               "metric's trend across the runs of its input.")
    parser.add_argument("--history", default=None, metavar="PATH", help=_PATH_HELP)
    parser.add_argument("--last", type=count, default=20, metavar="N", help="list the last N runs (default 20)")
    parser.set_defaults(handler=cmd_list)
    sub = parser.add_subparsers(dest="history_command")
    show = sub.add_parser("show", help="one run, and each headline metric across runs")
    show.add_argument("run", metavar="RUN", help="a run id (from `genevals history`), latest, or latest~N")
    show.add_argument("--history", default=argparse.SUPPRESS, metavar="PATH", help=_PATH_HELP)
    show.set_defaults(handler=cmd_show)
    return parser


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """``genevals run``'s history options."""
    group = parser.add_argument_group("run history")
    group.add_argument("--history", default=None, metavar="PATH", help="record the run in this history; "
                       + _PATH_HELP.replace("the run history's SQLite file (", "("))
    group.add_argument("--no-history", action="store_true", help="do not record the run in the history")
    group.add_argument("--baseline", default=None, metavar="RUN",
                       help="compare with run RUN of the history (an id, latest or latest~N) on the question ids "
                            "both scored (paired bootstrap); exit 1 when a --fail-under/--fail-over metric "
                            "regressed significantly")


def _path(args: argparse.Namespace) -> Path:
    """The history ``--history`` names, else the default; HistoryError for an empty ``--history ''`` (which
    would otherwise quietly mean the default)."""
    from genevals.history.store import HistoryError, default_path

    given = getattr(args, "history", None)
    if given is None:
        return default_path()
    if not given.strip():
        raise HistoryError("--history '': an empty path; name the history's SQLite file, or leave --history out "
                           "for the default")
    return Path(given).expanduser()


def cmd_list(args: argparse.Namespace) -> int:
    from genevals.history.store import History, HistoryError

    try:
        path = _path(args)
        with History(path, create=False) as history:
            runs = history.runs(args.last or None)
            damaged = history.damaged
    except HistoryError as exc:
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"{len(runs)} run{'s' if len(runs) != 1 else ''} in {visible(path)}"
          + (" (the latest)" if args.last and len(runs) + len(damaged) == args.last else ""))
    for run in runs:
        systems = ", ".join(run.systems[:4]) + (" ..." if len(run.systems) > 4 else "")
        print(visible(f"#{run.id}  {run.finished[:19].replace('T', ' ')}  {(run.git_commit or '-')[:12]:<12}  "
                      f"{run.n_samples} samples  {systems}  {run.input or '-'}"))
    for what in damaged:
        print(f"genevals: warning: run {what} in {visible(path)} is damaged; left out", file=sys.stderr)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from genevals.history.store import History, HistoryError
    from genevals.history.trends import related, text_table

    try:
        with History(_path(args), create=False) as history:
            run = history.get(args.run)
            runs = [r for r in related(history.runs(), run.input) if r.id is not None and r.id <= (run.id or 0)]
    except HistoryError as exc:
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(visible(f"run #{run.id}: finished {run.finished} ({run.seconds or 0:.1f}s), genevals "
                  f"{run.genevals_version}"))
    for label, value in (("input", f"{run.input} ({run.input_rows} rows, digest {run.input_digest})"),
                         ("output", run.out_dir), ("commit", run.git_commit or "- (not in a git repository)"),
                         ("systems", ", ".join(run.systems)), ("seed", run.seed)):
        print(f"  {label}: {visible(value)}")
    for family, signature in sorted(run.signatures.items()):
        print(f"  {visible(family)}: {visible(signature)}")
    gates = [f"{kind} {metric}={limit:g}" for kind, limits in run.thresholds.items() for metric, limit in
             limits.items()]
    if gates:
        print(f"  gates: {visible(', '.join(gates))}")
    print(f"\ntrends across {len(runs)} run{'s' if len(runs) != 1 else ''} of this input (mean [95% CI]):")
    print(text_table(runs))
    return EXIT_OK


class Recorder:
    """What ``genevals run`` does with the history: checks ``--history`` and ``--baseline`` before anything is
    scored (:meth:`start`), takes the samples' values from the report's pass (:meth:`values`, handed to
    ``build_data``), and at the end records the run and compares it with the baseline (:meth:`finish`)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.started = time.time()
        self.baseline: Any = None
        self.columns: dict[str, Any] = {}
        self.wanted: set[str] = set()

    def start(self) -> str | None:
        """The problem with the history options, as a message naming the option; None when there is none."""
        from genevals.history.record import now
        from genevals.history.store import History, HistoryError

        self.started_at = now()
        if self.args.no_history and self.args.history is not None:
            return "--history and --no-history: give one of them"
        if self.args.no_history and self.args.baseline is None:
            return None
        try:
            path = _path(self.args)
        except HistoryError as exc:
            return str(exc)
        try:
            history = History(path, create=not self.args.no_history)
        except HistoryError as exc:
            from genevals.history.store import ENV

            named = ("--history" if self.args.history is not None else f"${ENV}" if os.environ.get(ENV)
                     else "the run history")
            return f"{named}: {exc}"
        with history:
            if self.args.baseline is not None:
                try:
                    self.baseline = history.get(self.args.baseline, values=True)
                except HistoryError as exc:
                    return f"--baseline: {exc}"
        return None

    def values(self, store: Any, systems: Sequence[tuple[int, str]], metrics: Sequence[str]) -> None:
        """``build_data``'s ``on_values``: keep the values of the headline and gated metrics."""
        from genevals.history.record import columns_of
        from genevals.registry import headlines

        self.wanted = set(headlines(list(metrics), [t.metric for t in self.args.thresholds]))
        self.wanted |= {t.metric for t in self.args.thresholds}
        self.columns = columns_of(store, systems, metrics, self.wanted)

    def finish(self, summary: Mapping[str, Any], judge: Any) -> bool:
        """Record the run (unless --no-history) and compare it with the baseline; True when a gated metric
        regressed significantly. Problems with the history are errors, printed: the run's files are written."""
        import sqlite3

        from genevals.history import baseline as compare
        from genevals.history.gitstate import git_commit
        from genevals.history.record import build
        from genevals.history.store import History, HistoryError
        from genevals.judge.redact import Redactor
        from genevals.output.runfolder import read_manifest
        from genevals.registry import declaration_of
        from genevals.stats import DEFAULT_SEED

        redactor = Redactor.for_judge(getattr(judge, "api_key", None), getattr(judge, "base_url", None))
        if not self.args.no_history:
            record = build(summary, read_manifest(self.args.out), self.columns, headline=self.wanted,
                           started=self.started_at, seconds=round(time.time() - self.started, 3),
                           out_dir=str(Path(self.args.out).resolve()), git=git_commit(),
                           redact=redactor.deep)
            try:
                with History(_path(self.args)) as history:
                    run_id = history.add(record)
                print(f"genevals: recorded as run #{run_id} in {visible(_path(self.args))}", file=sys.stderr)
            except (HistoryError, OSError, sqlite3.Error) as exc:  # the run's files are written: say so, go on
                print(f"genevals: error: the run could not be recorded in {visible(_path(self.args))}: "
                      f"{visible(exc)}", file=sys.stderr)
        if self.baseline is None:
            return False
        gated = {t.metric: t.kind for t in self.args.thresholds}
        directions = {name: ("higher" if gated[name] == "fail_under" else "lower") if name in gated
                      else (declaration_of(name) or {}).get("direction") for name in self.wanted}
        changes = compare.compare(self.columns, self.baseline, directions, set(gated),
                                  summary.get("seed") or DEFAULT_SEED)
        if not changes:
            print(f"genevals: warning: --baseline {visible(self.args.baseline)}: no system and metric of this run "
                  f"shares question ids with run #{self.baseline.id}; nothing was compared", file=sys.stderr)
        for change in changes:
            print(f"genevals: baseline: {change.line(self.baseline.id)}", file=sys.stderr)
        if not gated and changes:
            print("genevals: note: --baseline fails the run only on a metric gated by --fail-under/--fail-over",
                  file=sys.stderr)
        return any(change.regression and change.gated for change in changes)
