"""``genevals history``: the runs the history holds (``genevals history``), one of them with each headline
metric's trend across runs (``genevals history show RUN``); and what ``genevals run`` does with the history:
``--history PATH`` / ``--no-history`` (where it records itself) and ``--baseline RUN`` (exit 1 when a gated metric
regressed significantly against that earlier run).

Exit codes (:mod:`genevals.cli.common`): 0, or 2 for a history that cannot be read or a run it does not hold.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, count
from genevals.output.terminal import say, visible

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
    """The history ``--history`` names, else the default (HistoryError for an empty ``--history ''``)."""
    from genevals.lifecycle.history import history_path

    return history_path(getattr(args, "history", None))


def cmd_list(args: argparse.Namespace) -> int:
    from genevals.history.store import History, HistoryError

    try:
        path = _path(args)
        with History(path, create=False) as history:
            runs = history.runs(args.last or None)
            damaged = history.damaged
    except HistoryError as exc:
        say(f"genevals: error: {exc}")
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
            runs = [r for r in related(history.runs(), run.input_digest, run.input) if r.id is not None and r.id <= (run.id or 0)]
    except HistoryError as exc:
        say(f"genevals: error: {exc}")
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
