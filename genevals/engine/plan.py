"""What every engine does before scoring, in one pass over the input: read and validate
every row (so by default nothing is scored when any row is bad), and let the metrics that need it see every
sample (BERTScore's run-wide idf). Then :func:`start_run` opens the run folder and, when resuming, counts the
results already there and leaves them out of what is still to score.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from genevals import registry

from genevals.output import runfolder
from genevals.engine import manifest
from genevals.engine.arguments import is_dataframe
from genevals.engine.recorder import RunRecorder
from genevals.engine.spec import RaySettings
from genevals.engine.spool import Spool
from genevals.engine.units import turn_done, whole_conversations
from genevals.conversations.ledger import Ledger
from genevals.input.fields import FieldTracker
from genevals.input.readers import ALIASES, KNOWN_FIELDS, HeaderError, InputError, iter_samples
from genevals.keys import sample_key_digest
from genevals.language import LanguageSetting, language_of
from genevals.language.majority import Majority, MajorityTally
from genevals.language.setting import without_majority
from genevals.input.source import RowSource
from genevals.types import Sample
from genevals.output.terminal import say


class InputErrors(InputError):
    """Every bad row found by the planning pass."""

    def __init__(self, errors: Sequence[InputError], n_good: int | None = None):
        self.errors = list(errors)
        first = self.errors[0]
        super().__init__(first.source, first.line, first.field, first.message)
        problems = grouped(self.errors, None if n_good is None else n_good + len(self.errors))
        shown = "\n".join(f"  {line}" for line in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        # Skipping is no way out when no row is good: it would skip them all.
        rest = ("no row is valid" if n_good == 0
                else "use on_error='skip' / --on-error skip to score the rest")
        self.args = (f"{len(self.errors)} bad row(s); nothing was scored ({rest}):\n{shown}{more}",)

    def __str__(self) -> str:
        return self.args[0]


def grouped(errors: Sequence[InputError], rows: int | None = None, lines_shown: int = 5) -> list[str]:
    """One line per problem, not per row: errors that say the same about the same field (a column every row
    lacks, a mapping no row fits) are one line, with how many rows have it (of ``rows``, the input's) and the first
    few of their lines."""
    groups: dict[tuple, list[InputError]] = {}
    for error in errors:
        groups.setdefault((error.source, error.field, error.message), []).append(error)
    out = []
    for same in groups.values():
        if len(same) == 1:
            out.append(str(same[0]))
            continue
        lines = [str(e.line) for e in same[:lines_shown] if e.line is not None]
        more = ", ..." if len(same) > lines_shown else ""
        every = "every row: " if len(same) == rows else ""
        where = f" (lines {', '.join(lines)}{more})" if lines else ""
        out.append(f"{same[0]} [{every}{len(same)} rows{where}]")
    return out


@dataclass
class Plan:
    """What the planning pass found in the run's input: the good samples (held in :attr:`spool` for the
    scoring pass), the bad rows, and the input's digest."""

    spec: Any  # the RunSpec
    n_good: int
    spool: Spool
    errors: list[InputError] = field(default_factory=list)
    #: input mistakes that did not stop the run (unknown fields), one line each
    warnings: list[str] = field(default_factory=list)
    #: a digest of every row, for the run folder's manifest (None: taken from the kept samples when asked)
    digest: manifest.InputDigest | None = field(default_factory=manifest.InputDigest)
    #: with samples kept in memory: the row number (0-based) of each of ``errors``, to digest the rows in order
    error_rows: list[int] = field(default_factory=list)
    #: the conversations' turns, counted once (still to score: all of them, until :func:`start_run` takes out
    #: those a resumed folder holds): a conversation is the unit of work (:func:`whole_conversations`)
    conversations: Ledger = field(default_factory=Ledger)

    @property
    def data(self) -> Any:
        return self.spec.data

    @property
    def selected(self) -> list[registry.Selected]:
        return list(self.spec.selected)

    @property
    def n_rows(self) -> int:
        return self.n_good + len(self.errors)

    def input_digest(self) -> manifest.InputDigest:
        """The digest of every row in input order. For rows kept in memory it is taken only now, when a run
        folder needs it: hashing each validated row is as costly as scoring cheap metrics, and a run without a
        folder never uses it."""
        if self.digest is None:
            digest = manifest.InputDigest()
            samples, errors = iter(self.spool.kept or ()), iter(zip(self.error_rows, self.errors))
            pending = next(errors, None)
            for row in range(self.n_rows):
                if pending is not None and pending[0] == row:
                    digest.add(pending[1])
                    pending = next(errors, None)
                else:
                    digest.add(next(samples))
            self.digest = digest
        return self.digest

    def samples(self) -> Iterator[Sample]:
        """The good samples, in input order, as the planning pass validated them."""
        return self.spool.samples()

    def close(self) -> None:
        self.spool.close()


def _source_name(data: Any) -> str:
    if isinstance(data, RowSource):
        return data.name
    return str(data) if isinstance(data, (str, Path)) else "<data>"


def plan_run(spec: Any) -> Plan:
    """Read, validate and prepare in one pass over the input of ``spec`` (a
    :class:`~genevals.engine.spec.RunSpec`): each row is read and validated once, here; the good samples wait
    in a :class:`~genevals.engine.spool.Spool` for the scoring pass.

    Mistakes about the input as a whole are InputErrors too, whatever ``on_error``: no rows at all, a header
    without a required column, a ``--map`` source no row has, and with ``strict`` an unknown field (else a
    warning in :attr:`Plan.warnings`)."""
    data, column_map = spec.data, spec.column_map
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], Sample):
        data = [s.to_dict() for s in data]
    preparing = [s.metric for s in spec.selected if s.metric.needs_prepare]
    counting = _majority_counting(spec)
    tracker = FieldTracker(KNOWN_FIELDS, ALIASES, column_map, spec.ignore_fields)
    from_file = isinstance(data, (str, Path, RowSource))  # a RowSource reads files: digested from their bytes
    n_good, errors, error_rows = 0, [], []
    conversations = Ledger()
    # A file is never held whole: its samples wait on disk. Rows given in memory are held by the caller anyway,
    # and a generator can be read only once: their samples are kept in memory.
    spool = Spool(on_disk=from_file)
    # A file is digested from the bytes this pass reads; rows in memory later, only if a run folder asks
    # (Plan.input_digest); a DataFrame's during this pass.
    digest = manifest.InputDigest() if from_file or is_dataframe(data) else None
    try:
        # Resumed samples are prepared too, so a resumed run scores exactly like an uninterrupted one.
        for item in iter_samples(data, column_map, tracker, digest if from_file else None, spec.history_tokens):
            if isinstance(item, HeaderError):
                raise item
            if digest is not None and not from_file:
                digest.add(item)
            if isinstance(item, InputError):
                error_rows.append(n_good + len(errors))
                errors.append(item)
                continue
            n_good += 1
            # decided now, kept on the sample (it travels in the spool): never again; not once a bad row means
            # that nothing will be scored (on_error "raise": 100k rows, 41 s of detection before the error)
            if counting is not None and not (errors and spec.on_error == "raise"):
                if counting[1].full:  # the workers detect the rest, in parallel (language.majority.COUNTED)
                    counting[1].skip()
                else:
                    counting[1].add(language_of(item, counting[0]))
            spool.add(item)
            conversations.add(item)
            for metric in preparing:
                metric.prepare_sample(item)
        source = _source_name(data)
        if from_file:
            assert digest is not None
            digest.rows = n_good + len(errors)
        if n_good == 0 and not errors:
            raise InputError(source, None, None, "no rows (the input is empty, blank or only a header)")
        unmapped = tracker.unmapped()
        if unmapped:
            raise InputError(source, None, None, "; ".join(unmapped))
        if spec.strict and (tracker.unknown or tracker.literals):
            what = "unknown fields" if tracker.unknown else "list cells that are not JSON"
            raise InputError(source, None, None, f"{what} (--strict):\n  " + "\n  ".join(tracker.warnings()))
        if errors and spec.on_error == "raise":
            raise InputErrors(errors, n_good)
    except BaseException:
        spool.close()
        raise
    for metric in preparing:
        metric.finish_prepare()
    if counting is not None:
        _set_majority(spec, counting[0], counting[1].result())
    for sel in spec.selected:  # one value per conversation, on its last turn: which one, the ledger says
        see = getattr(sel.metric, "see_conversations", None)  # a ConversationScope (not imported: a run of
        if see is not None:                                    # other families loads no conversation module)
            see(conversations)
    return Plan(spec, n_good, spool, errors, tracker.warnings(), digest, error_rows, conversations)


def _majority_counting(spec: Any) -> tuple[LanguageSetting, MajorityTally] | None:
    """(the setting to detect with, the count of sure detections) when the run's unsure samples take its
    majority language: ``--language auto`` (no ``auto:CODE``, no code) and a metric that reads the language."""
    metrics = [s.metric for s in spec.selected]
    setting = next((m.language for m in metrics if m.reads_language), None)
    if setting is None or setting.fixed or setting.fallback:
        return None
    return without_majority(setting), MajorityTally()


def _set_majority(spec: Any, setting: LanguageSetting, majority: Majority) -> None:
    """Every metric of the run (a jury's and a cascade's own judges too) scores with the majority counted."""
    counted = replace(setting, majority=majority)
    for sel in spec.selected:
        for metric in (sel.metric, *getattr(sel.metric, "members", ())):
            if metric.language == setting:
                metric.language = counted


def start_run(plan: Plan) -> tuple[RunRecorder, Iterator[list[Sample]], int]:
    """Prepare the run folder, open the recorder, count the results already there (when resuming) into it,
    and return it, the units still to score (each a sample alone or a conversation's turns still to score:
    :func:`~genevals.engine.units.whole_conversations`), and how many samples were done."""
    spec = plan.spec
    if spec.before_writing is not None:
        spec.before_writing(plan)
    out, resume, seed, meta = spec.output.out_dir, spec.output.resume, spec.output.seed, dict(spec.output.meta)
    if isinstance(spec.engine, RaySettings):
        meta = {"engine": "ray", **meta}
    if plan.warnings:
        meta = {**meta, "unknown_fields": list(plan.warnings)}
    if out is not None:
        wanted = manifest.build(plan.selected, plan.input_digest(), input_name=_source_name(plan.data),
                                column_map=spec.column_map, seed=seed, history_tokens=spec.history_tokens)
        if resume:
            check_resume(out, wanted)
    earlier = runfolder.prepare(out, resume)
    if earlier is not None:  # said at once: a run that crashes later never gets to say it
        say(f"genevals: note: the earlier run in {out} was moved to {earlier}", flush=True)
        meta = {**meta, "earlier_run": str(earlier)}
    present = frozenset(n for n in runfolder.RUN_FILES if out is not None and (out / n).exists())
    if out is not None:
        runfolder.write_manifest(out, wanted)
    recorder = RunRecorder(plan.selected, out, errors=plan.errors, seed=seed, keep_samples=spec.output.keep_samples,
                           meta=meta)
    recorder.earlier, recorder.present = earlier, present
    try:
        done = _replay_previous(recorder, out, plan.conversations.turns) if resume else set()
    except runfolder.ResultsError as exc:  # a garbage line: resuming would score its sample again
        recorder.close()
        raise InputError(exc.source, exc.line, None, exc.message) from None
    # Nothing resumed: no key to look up (a digest per sample is ~3 us, 10% of a retrieval run's reading).
    todo = (s for s in plan.samples() if sample_key_digest(s.system, s.id) not in done) if done else plan.samples()
    # The one place samples are grouped: from here on a conversation's turns travel as one unit.
    return recorder, whole_conversations(todo, plan.conversations.turns), len(done)


class ResumeMismatch(InputError):
    """``resume`` against a run folder made from another input, other metrics or other settings."""


#: how to get out of a refused --resume
_FRESH = ("To start a fresh run, use another --out, or leave out --resume (the earlier run is then moved to "
          f"{runfolder.EARLIER_DIR}/<date-time>/ in the folder).")


def check_resume(out: Path, wanted: Mapping[str, Any]) -> None:
    """ResumeMismatch naming every difference between the folder's manifest and the run asked for, or saying
    that the manifest is missing, empty or unreadable: a folder whose run cannot be checked is not continued.
    A folder without results has nothing to mix."""
    results = out / runfolder.RESULTS_FILE
    if results.exists() and not results.is_file():  # a folder, say: nothing to continue, nor to append to
        raise ResumeMismatch(str(results), None, None, f"--resume: not a file, so its results cannot be "
                             f"continued.\n{_FRESH}")
    if not runfolder.has_results(out):
        return
    try:
        found = runfolder.read_manifest(out)
    except ValueError as exc:
        raise ResumeMismatch(str(out), None, None, f"--resume cannot check what this folder's results were made "
                             f"from: {exc}.\n{_FRESH}") from None
    if found is None:
        raise ResumeMismatch(str(out), None, None, f"--resume cannot check what this folder's results were made "
                             f"from: it has no {runfolder.MANIFEST_FILE}.\n{_FRESH}")
    differ = manifest.differences(found, wanted)
    if differ:
        raise ResumeMismatch(str(out), None, None, "--resume would mix two different runs; this folder was "
                             "made with different\n  " + "\n  ".join(differ) + f"\n{_FRESH}")


def _replay_previous(recorder: RunRecorder, out: Path | None, conversations: dict[tuple[str, str], int]
                     ) -> set[int]:
    """Count the results already in the run folder into the summary, and take their turns out of
    ``conversations``; return their keys' digests.

    Resumed samples are streamed, never held: only a 64-bit digest per sample is kept, to skip them. A folder
    of this version holds whole conversations only; one of the earlier format (a line per turn) may hold part
    of one: its turns count as done, and the rest are scored and written as one line."""
    done: set[int] = set()
    if out is None:
        return done
    for previous in runfolder.read_results(out):
        key = sample_key_digest(previous.sample.system, previous.sample.id)
        if key not in done:
            done.add(key)
            recorder.record(previous)
            turn_done(conversations, previous.sample)
    return done
