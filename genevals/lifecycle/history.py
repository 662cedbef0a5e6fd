"""What a run does with the history: checks where it records itself and its baseline before anything is scored
(:meth:`Recorder.start`), takes the samples' values from the report's pass (:meth:`Recorder.values`, handed to
``build_data``), and at the end records the run and compares it with the baseline (:meth:`Recorder.finish`).

The baseline is settled once the input is read and before the run folder is touched
(:meth:`Recorder.check_input`): ``latest[~N]`` is then picked among the runs of this input
(:mod:`genevals.history.inputs`, by the digest of the rows just read, else by file name) that the history held
at the start, and a baseline that shares no question id with the run is refused (exit 2), before any scoring.
The run of the same file name is read at the start, so a damaged one is refused at once. ``latest`` looks only at
this run's project's runs (:mod:`genevals.history.project`; runs recorded without one when none of the project's
matches), and the run is recorded with its project.
"""
from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from genevals.lifecycle.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_THRESHOLD
from genevals.lifecycle.messages import Messages
from genevals.lifecycle.settings import Settings
from genevals.output.terminal import visible


def history_path(given: str | None) -> Path:
    """The history ``given`` names, else the default; HistoryError for an empty ``''`` (which would otherwise
    quietly mean the default)."""
    from genevals.history.store import HistoryError, default_path

    if given is None:
        return default_path()
    if not str(given).strip():
        raise HistoryError("--history '': an empty path; name the history's SQLite file, or leave --history out "
                           "for the default")
    return Path(given).expanduser()


def forget_folder(given: str | None, folder: Path) -> int:
    """Delete the runs the history ``given`` names (None: the default) recorded with run folder ``folder``; how
    many (0 where there is no history file yet)."""
    from genevals.history.store import History

    path = history_path(given)
    if not path.is_file():
        return 0
    with History(path) as history:
        return history.forget_folder(str(Path(folder).resolve()))


class Recorder:
    """The history's part in one run (see the module's docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.started = time.time()
        self.started_at = ""
        self.baseline: Any = None
        self.columns: dict[str, Any] = {}
        self.wanted: set[str] = set()
        #: with ``latest~N``: N, and the runs there were at the start (their input keys)
        self.back: int | None = None
        self.entries: list[Any] = []
        #: the project folder the run belongs to (:func:`genevals.history.project.project_of`), once asked
        self._project: str | None = None
        self._project_known = False

    @property
    def project(self) -> str | None:
        if not self._project_known:
            from genevals.history.project import project_of

            self._project, self._project_known = project_of(self.settings.input_given), True
        return self._project

    def start(self) -> str | None:
        """The problem with the history settings, as a message naming the option; None when there is none."""
        from genevals.history.record import now
        from genevals.history.store import ENV, History, HistoryError

        self.started_at = now()
        if not self.settings.uses_history or self.settings.dry_run:  # a dry run never touches the history
            return None
        try:
            path = history_path(self.settings.history)
        except HistoryError as exc:
            return str(exc)
        try:
            history = History(path, create=self.settings.record)
        except HistoryError as exc:
            named = ("--history" if self.settings.history is not None else f"${ENV}" if os.environ.get(ENV)
                     else "the run history")
            return f"{named}: {exc}"
        with history:
            if self.settings.baseline is not None:
                try:
                    self._start_baseline(history)
                except HistoryError as exc:
                    return f"--baseline: {exc}"
        return None

    def _start_baseline(self, history: Any) -> None:
        from genevals.history import inputs

        ref = str(self.settings.baseline).strip()
        run_id = history.resolve(ref)  # refuses what is no run id, and a latest~N past the history's runs
        if not ref.startswith("latest"):
            self.baseline = history.get(run_id, values=True)
            return
        self.back = int(ref.partition("~")[2] or 0)
        self.entries = history.inputs()
        guess = inputs.latest(self.entries, None, inputs.name_of(self.settings.input_given), self.back, self.project)
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

        if self.settings.baseline is None or self.settings.dry_run:
            return
        where = f"--baseline {visible(self.settings.baseline)}"
        given = self.settings.input_name or ""
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

    def _pick_latest(self, digest: str | None, given: str | None) -> str | None:
        """Set :attr:`baseline` to the run ``latest~N`` means for this input; the problem, if any."""
        from genevals.history import inputs
        from genevals.history.store import History, HistoryError

        picked = inputs.latest(self.entries, digest, inputs.name_of(given), self.back or 0, self.project)
        if picked is None:
            self.baseline = None
            found = len(inputs.candidates(self.entries, digest, inputs.name_of(given), self.project))
            this = f"this input ({given or 'no input name'}, digest {(digest or '-')[:8]}, by digest, else file name)"
            if found:
                return (f"the history holds {found} earlier run{'s' if found != 1 else ''} of {this}; "
                        f"latest~{self.back} names none")
            elsewhere = len(inputs.same(self.entries, digest, inputs.name_of(given)))
            if elsewhere:  # runs of a file of this name in other projects: never this one's baseline
                return (f"no earlier run of {this} in this project ({self.project}); the history's "
                        f"{elsewhere} run{'s' if elsewhere != 1 else ''} of a file of that name "
                        f"{'are' if elsewhere != 1 else 'is'} another project's. Give the baseline's run id "
                        "(`genevals history` lists them)")
            others = ", ".join(inputs.describe(e) for e in self.entries[-3:][::-1])
            return (f"no earlier run of {this} in the history; the latest are of other inputs: {others}. "
                    "Give the baseline's run id (`genevals history` lists them)")
        if self.baseline is None or self.baseline.id != picked.id:
            try:
                with History(history_path(self.settings.history), create=False) as history:
                    self.baseline = history.get(picked.id, values=True)
            except HistoryError as exc:
                self.baseline = None
                return str(exc)
        return None

    def values(self, store: Any, systems: Sequence[tuple[int, str]], metrics: Sequence[str]) -> None:
        """``build_data``'s ``on_values``: keep the values of the headline and gated metrics."""
        from genevals.history.record import columns_of
        from genevals.registry import headlines

        gated = [t.metric for t in self.settings.thresholds]
        self.wanted = set(headlines(list(metrics), gated)) | set(gated)
        self.columns = columns_of(store, systems, metrics, self.wanted)

    def finish(self, summary: Mapping[str, Any], judge: Any, say: Messages) -> int:
        """Record the run (when asked to) and compare it with the baseline: EXIT_THRESHOLD when a gated metric
        regressed significantly, EXIT_BAD_INPUT when nothing could be compared after all (the runs share ids but
        no metric scored on them, or every metric was scored under another signature than the baseline's:
        :meth:`check_input` refused the rest before scoring), else EXIT_OK. Problems with the history are errors,
        said: the run's files are written."""
        import sqlite3

        from genevals.history.gitstate import git_commit
        from genevals.history.record import build
        from genevals.history.store import History, HistoryError
        from genevals.output.runfolder import read_manifest

        out = self.settings.out_dir
        try:
            manifest = (read_manifest(out) or {}) if out is not None else {}
        except ValueError:
            manifest = {}
        if self.settings.record:
            from genevals.judge.redact import Redactor

            redactor = judge.redactor if hasattr(judge, "jurors") else \
                Redactor.for_judge(getattr(judge, "api_key", None), getattr(judge, "base_url", None))  # a jury: all
            record = build(summary, manifest, self.columns, headline=self.wanted,
                           started=self.started_at, seconds=round(time.time() - self.started, 3),
                           out_dir=str(Path(out).resolve()) if out is not None else None, git=git_commit(),
                           redact=redactor.deep, project=self.project)
            where = history_path(self.settings.history)
            try:
                with History(where) as history:
                    run_id = history.add(record)
                say.note(f"genevals: recorded as run #{run_id} in {visible(where)}")
            except (HistoryError, OSError, sqlite3.Error) as exc:  # the run's files are written: say so, go on
                say.error(f"genevals: error: the run could not be recorded in {visible(where)}: {visible(exc)}")
        if self.baseline is None:
            return EXIT_OK
        given = str((summary.get("meta") or {}).get("input") or manifest.get("input") or "")
        return self._compare(summary, manifest.get("input_digest"), given, say)

    def _compare(self, summary: Mapping[str, Any], digest: str | None, given: str, say: Messages) -> int:
        from genevals.history import baseline as compare
        from genevals.history import inputs
        from genevals.registry import declaration_of
        from genevals.stats import DEFAULT_SEED

        base = self.baseline
        named = f"--baseline {visible(self.settings.baseline)}: run {visible(inputs.describe(base))}"
        gated = {t.metric: t.kind for t in self.settings.thresholds}
        declared = {name: declaration_of(name) or {} for name in self.wanted}
        directions = {name: ("higher" if gated[name] == "fail_under" else "lower") if name in gated
                      else declared[name].get("direction") for name in self.wanted}
        families = {name: d["family"] for name, d in declared.items() if isinstance(d.get("family"), str)}
        changes = compare.compare(self.columns, base, directions, set(gated), summary.get("seed") or DEFAULT_SEED,
                                  summary.get("signatures"), families)
        apart = list(dict.fromkeys(f"{visible(c.metric)} not compared: {visible(c.not_compared)}"
                                   for c in changes if c.not_compared is not None))
        if apart and all(c.not_compared is not None for c in changes):  # a gate on nothing is no pass
            say.error(f"genevals: error: {named}: nothing was compared: {'; '.join(apart)}")
            return EXIT_BAD_INPUT
        if not changes:
            say.error(f"genevals: error: {named} cannot be this run's baseline: "
                      f"{compare.nothing_shared(self.columns, base)}; nothing was compared. Give a run of this "
                      f"input, {visible(given or '-')} (`genevals history` lists the runs)")
            return EXIT_BAD_INPUT
        other = not (digest and base.input_digest == digest) and inputs.name_of(base.input) != inputs.name_of(given)
        if other:
            say.note(f"genevals: note: {named} is of another input than this run's ({visible(given or '-')}): "
                     "compared on the question ids both scored")
        for change in changes:
            if change.regression:
                say.gate(f"genevals: baseline: {change.line(base.id)}")
            elif change.not_compared is not None:  # other settings: never a regression, and said
                say.warning(f"genevals: baseline: {change.line(base.id)}")
            else:
                say.note(f"genevals: baseline: {change.line(base.id)}")
        if not gated:
            say.note("genevals: note: --baseline fails the run only on a metric gated by --fail-under/--fail-over")
        return EXIT_THRESHOLD if any(change.regression and change.gated for change in changes) else EXIT_OK
