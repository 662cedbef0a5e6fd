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

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, EXIT_THRESHOLD, count
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
            runs = [r for r in related(history.runs(), run.input_digest, run.input) if r.id is not None and r.id <= (run.id or 0)]
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
    ``build_data``), and at the end records the run and compares it with the baseline (:meth:`finish`).

    ``--baseline`` is settled once the input is read and before the run folder is touched
    (:meth:`check_input`): ``latest[~N]`` is then picked among the runs of this input
    (:mod:`genevals.history.inputs`, by the digest of the rows just read, else by file name) that the history
    held at the start, and a baseline that shares no question id with the run is refused (exit 2), before any
    scoring. The run of the same file name is read at the start, so a damaged one is refused at once."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.started = time.time()
        self.baseline: Any = None
        self.columns: dict[str, Any] = {}
        self.wanted: set[str] = set()
        #: with ``latest~N``: N, and the runs there were at the start (their input keys)
        self.back: int | None = None
        self.entries: list[Any] = []

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
                    self._start_baseline(history)
                except HistoryError as exc:
                    return f"--baseline: {exc}"
        return None

    def _start_baseline(self, history: Any) -> None:
        from genevals.history import inputs

        ref = str(self.args.baseline).strip()
        run_id = history.resolve(ref)  # refuses what is no run id, and a latest~N past the history's runs
        if not ref.startswith("latest"):
            self.baseline = history.get(run_id, values=True)
            return
        self.back = int(ref.partition("~")[2] or 0)
        self.entries = history.inputs()
        guess = inputs.latest(self.entries, None, inputs.name_of(getattr(self.args, "input", None)), self.back)
        if guess is not None:
            self.baseline = history.get(guess.id, values=True)

    def check_input(self, plan: Any) -> None:
        """RunSpec's ``before_writing``: pick ``latest[~N]`` for this input and refuse a baseline that shares no
        question id with the run's samples (an InputError naming --baseline)."""
        import numpy as np

        from genevals.history import baseline as compare
        from genevals.history import inputs
        from genevals.input.rows import InputError
        from genevals.keys import id_digest

        if self.args.baseline is None:
            return
        where = f"--baseline {visible(self.args.baseline)}"
        given = self._input_name()
        if self.back is not None:
            problem = self._pick_latest(plan.input_digest().hexdigest(), given)
            if problem is not None:
                raise InputError(where, None, None, visible(problem))
        ids: dict[str, set[int]] = {}
        for sample in plan.samples():
            ids.setdefault(sample.system, set()).add(id_digest(str(sample.id)))
        keys = {system: np.fromiter(found, dtype=np.uint64, count=len(found)) for system, found in ids.items()}
        problem = compare.unshared_ids(keys, self.baseline)
        if problem is not None:
            raise InputError(where, None, None, f"run {visible(inputs.describe(self.baseline))} cannot be this "
                             f"run's baseline: {problem}; nothing would be compared. Give a run of this input, "
                             f"{visible(given or '-')} (`genevals history` lists the runs)")

    def _input_name(self) -> str:
        """The input as the run names it (summary.json's meta input)."""
        from genevals.cli import sources

        data = sources.data(self.args)
        return str(getattr(data, "name", self.args.input) or "")

    def _pick_latest(self, digest: str | None, given: str | None) -> str | None:
        """Set :attr:`baseline` to the run ``latest~N`` means for this input; the problem, if any."""
        from genevals.history import inputs
        from genevals.history.store import History, HistoryError

        picked = inputs.latest(self.entries, digest, inputs.name_of(given), self.back or 0)
        if picked is None:
            self.baseline = None
            found = len(inputs.same(self.entries, digest, inputs.name_of(given)))
            this = f"this input ({given or 'no input name'}, digest {(digest or '-')[:8]}, by digest, else file name)"
            if found:
                return (f"the history holds {found} earlier run{'s' if found != 1 else ''} of {this}; "
                        f"latest~{self.back} names none")
            others = ", ".join(inputs.describe(e) for e in self.entries[-3:][::-1])
            return (f"no earlier run of {this} in the history; the latest are of other inputs: {others}. "
                    "Give the baseline's run id (`genevals history` lists them)")
        if self.baseline is None or self.baseline.id != picked.id:
            try:
                with History(_path(self.args), create=False) as history:
                    self.baseline = history.get(picked.id, values=True)
            except HistoryError as exc:
                self.baseline = None
                return str(exc)
        return None

    def values(self, store: Any, systems: Sequence[tuple[int, str]], metrics: Sequence[str]) -> None:
        """``build_data``'s ``on_values``: keep the values of the headline and gated metrics."""
        from genevals.history.record import columns_of
        from genevals.registry import headlines

        self.wanted = set(headlines(list(metrics), [t.metric for t in self.args.thresholds]))
        self.wanted |= {t.metric for t in self.args.thresholds}
        self.columns = columns_of(store, systems, metrics, self.wanted)

    def finish(self, summary: Mapping[str, Any], judge: Any) -> int:
        """Record the run (unless --no-history) and compare it with the baseline: EXIT_THRESHOLD when a gated
        metric regressed significantly, EXIT_BAD_INPUT when nothing could be compared after all (the runs share ids
        but no metric scored on them: :meth:`check_input` refused the rest before scoring), else EXIT_OK.
        Problems with the history are errors, printed: the run's files are written."""
        import sqlite3

        from genevals.history.gitstate import git_commit
        from genevals.history.record import build
        from genevals.history.store import History, HistoryError
        from genevals.output.runfolder import read_manifest

        try:
            manifest = read_manifest(self.args.out) or {}
        except ValueError:
            manifest = {}
        if not self.args.no_history:
            from genevals.judge.redact import Redactor

            redactor = judge.redactor if hasattr(judge, "jurors") else \
                Redactor.for_judge(getattr(judge, "api_key", None), getattr(judge, "base_url", None))  # a jury: all
            record = build(summary, manifest, self.columns, headline=self.wanted,
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
            return EXIT_OK
        given = str((summary.get("meta") or {}).get("input") or manifest.get("input") or "")
        return self._compare(summary, manifest.get("input_digest"), given)

    def _compare(self, summary: Mapping[str, Any], digest: str | None, given: str) -> int:
        from genevals.history import baseline as compare
        from genevals.history import inputs
        from genevals.registry import declaration_of
        from genevals.stats import DEFAULT_SEED

        base, quiet = self.baseline, getattr(self.args, "quiet", False)
        named = f"--baseline {visible(self.args.baseline)}: run {visible(inputs.describe(base))}"
        gated = {t.metric: t.kind for t in self.args.thresholds}
        directions = {name: ("higher" if gated[name] == "fail_under" else "lower") if name in gated
                      else (declaration_of(name) or {}).get("direction") for name in self.wanted}
        changes = compare.compare(self.columns, base, directions, set(gated), summary.get("seed") or DEFAULT_SEED)
        if not changes:
            print(f"genevals: error: {named} cannot be this run's baseline: "
                  f"{compare.nothing_shared(self.columns, base)}; nothing was compared. Give a run of this input, "
                  f"{visible(given or '-')} (`genevals history` lists the runs)", file=sys.stderr)
            return EXIT_BAD_INPUT
        other = not (digest and base.input_digest == digest) and inputs.name_of(base.input) != inputs.name_of(given)
        if other and not quiet:
            print(f"genevals: note: {named} is of another input than this run's ({visible(given or '-')}): "
                  "compared on the question ids both scored", file=sys.stderr)
        for change in changes:
            if change.regression or not quiet:
                print(f"genevals: baseline: {change.line(base.id)}", file=sys.stderr)
        if not gated and not quiet:
            print("genevals: note: --baseline fails the run only on a metric gated by --fail-under/--fail-over",
                  file=sys.stderr)
        return EXIT_THRESHOLD if any(change.regression and change.gated for change in changes) else EXIT_OK
