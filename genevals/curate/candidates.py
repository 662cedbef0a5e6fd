"""The samples of the run folders, each with what its reviewers said: the candidates the rules choose from.

Rows come from :func:`genevals.output.runfolder.records` (the one reader of results.jsonl), decisions from
:func:`genevals.review.store.read_store`. Only current, fresh decisions count
(:func:`genevals.review.tally.fresh_by_claim`, :func:`~genevals.review.tally.stale_reason`): one made on an earlier
version of the run says nothing about this one.

A sample is **disputed** when, on one of its claims, its reviewers disagree with each other (a *confirmed* beside
a *false alarm* or *not in the answer*), or their consensus (:func:`genevals.review.tally.consensus`) disagrees
with the judge (a flagged claim called no hallucination, an unflagged one confirmed); or when a reviewer marked
answer text as a hallucination the judge missed.

A trace export (a file, with its format: :data:`genevals.input.traces.FORMATS`) is read through the trace import
(:class:`genevals.input.traces.TraceSource`): each trace one candidate, with its trace and span ids, unscored and
unreviewed, so only ``sample:N`` chooses among them (its band ``unscored``).

A reviewer's **correction** is a current decision's note that starts with ``reference:`` (any case): the text
after it becomes the row's reference; the latest one wins.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genevals.curate.config import CORRECTION_PREFIX, CurateError
from genevals.input.rows import InputError
from genevals.input.traces import TraceSource
from genevals.output import runfolder
from genevals.review.claims import load_samples
from genevals.review.store import NOT_HALLUCINATED, StoreError, current, read_store
from genevals.review.tally import consensus, fresh_by_claim, stale_reason


@dataclass(frozen=True)
class Correction:
    text: str
    reviewer: str
    decision_id: int | None


@dataclass(frozen=True)
class Candidate:
    """One scored sample of a run folder, as results.jsonl holds it, with its review."""
    run: Path
    line: int
    row: Mapping[str, Any]
    window: Any = None
    #: why the sample is disputed ("" when it is not)
    disputed: str = ""
    correction: Correction | None = None

    @property
    def system(self) -> str:
        return str(self.row.get("system", "default"))

    @property
    def id(self) -> str:
        return str(self.row.get("id"))

    def text(self, name: str) -> str:
        value = self.row.get(name)
        return value if isinstance(value, str) else ""

    def metric(self, name: str) -> Mapping[str, Any] | None:
        metrics = self.row.get("metrics")
        value = metrics.get(name) if isinstance(metrics, Mapping) else None
        return value if isinstance(value, Mapping) else None


def _store_dir(run: Path, review: Path | None) -> Path:
    if review is None:
        return run
    if review.name != "review.sqlite":
        raise CurateError(f"--review {review}: expected a review store named review.sqlite")
    if not review.is_file():
        raise CurateError(f"--review {review}: no such file")
    return review.parent


def _disputes(run: Path, decisions: list) -> dict[tuple[str, str], str]:
    """(system, sample id) -> why it is disputed, for every disputed sample of ``run``."""
    if not decisions:
        return {}
    samples = load_samples(run)
    out: dict[tuple[str, str], str] = {}
    for (system, sample_id, index), group in fresh_by_claim(decisions, samples).items():
        votes = {d.decision for d in group}
        claim = samples[(system, sample_id)].claim(index)
        verdict = consensus(group)
        if "confirmed" in votes and votes & set(NOT_HALLUCINATED):
            out.setdefault((system, sample_id), f"reviewers disagree on claim {index}")
        elif claim is not None and claim.flagged and verdict in NOT_HALLUCINATED:
            out.setdefault((system, sample_id), f"reviewers call claim {index} {verdict}; the judge flagged it")
        elif claim is not None and not claim.flagged and verdict == "confirmed":
            out.setdefault((system, sample_id), f"reviewers confirm claim {index} as a hallucination; the judge "
                                                "found it supported")
    for d in current(decisions):
        if d.decision == "missed" and not stale_reason(d, samples):
            out.setdefault((d.system, d.sample_id), f"a reviewer marked text {d.span[0]}-{d.span[1]} the judge "
                                                    "missed")
    return out


def _corrections(decisions: list) -> dict[tuple[str, str], Correction]:
    out: dict[tuple[str, str], Correction] = {}
    for d in current(decisions):  # oldest first: the latest correction wins
        note = d.note.strip()
        if note[:len(CORRECTION_PREFIX)].casefold() == CORRECTION_PREFIX and note[len(CORRECTION_PREFIX):].strip():
            out[(d.system, d.sample_id)] = Correction(note[len(CORRECTION_PREFIX):].strip(), d.reviewer, d.id)
    return out


def _window(run: Path) -> Any:
    """The window a watcher's run folder covers (its summary's ``meta.watch.window``, as ``genevals watch``
    writes it), when it says."""
    try:
        meta = runfolder.read_summary(run).get("meta")
    except (OSError, ValueError):
        return None
    watch = meta.get("watch") if isinstance(meta, Mapping) else None
    return watch.get("window") if isinstance(watch, Mapping) else None


def read_run(run: Path, review: Path | None = None) -> Iterator[Candidate]:
    """The candidates of one run folder; CurateError naming the file (and line) it cannot read."""
    if not run.is_dir():
        raise CurateError(f"{run}: not a run folder (no such folder)")
    if not (run / runfolder.RESULTS_FILE).is_file():
        raise CurateError(f"{run}: not a run folder (no {runfolder.RESULTS_FILE}; make one with `genevals run`)")
    try:
        decisions = read_store(_store_dir(run, review), queue=False).decisions
        disputes, corrections = _disputes(run, decisions), _corrections(decisions)
        window = _window(run)
        for line, _, row in runfolder.records(run):
            key = (str(row.get("system", "default")), str(row.get("id")))
            yield Candidate(run, line, row, window, disputes.get(key, ""), corrections.get(key))
    except (StoreError, runfolder.ResultsError) as exc:
        raise CurateError(str(exc)) from None
    except OSError as exc:
        raise CurateError(f"{run}: cannot read it ({exc.strerror or exc})") from None


def read_traces(path: Path, trace_format: str | None) -> Iterator[Candidate]:
    """The candidates of one trace export; CurateError naming the file, line and field of a trace it cannot read."""
    if trace_format is None:
        raise CurateError(f"{path}: a file, not a run folder; a trace export needs --from FORMAT")
    try:
        for raw in TraceSource(path, trace_format).rows():
            if isinstance(raw, InputError):
                raise raw
            row = dict(raw.data) if isinstance(raw.data, Mapping) else {}
            if raw.trace is not None:
                row["trace"] = {"trace_id": raw.trace[0], "span_id": raw.trace[1]}
            yield Candidate(path, raw.line, row)
    except InputError as exc:
        raise CurateError(str(exc)) from None
    except OSError as exc:
        raise CurateError(f"{path}: cannot read it ({exc.strerror or exc})") from None
