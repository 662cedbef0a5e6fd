"""Worker processes that do a chunk's whole work: read its rows, validate them, score every metric and write the
chunk's results.jsonl lines, so that the parent only appends text and adds up counts.

Used for runs of cheap metrics only (lexical, retrieval) once worker processes are started (see
:func:`genevals.engine.local.parallel_workers`), and not when resuming. A chunk travels as its raw input:
JSONL lines as bytes (decoded and parsed in the worker), rows of other files and of a DataFrame as read (validated
in the worker), rows given as a list as the samples the planning pass already built. Rows the planning pass found
bad are left out by their line number, so a duplicate id whose first occurrence is in another chunk is still left
out. What comes back, per chunk and in input order: the results.jsonl lines, the summary's counts
(:class:`~genevals.results.SummaryPart`), each sample's corpus statistics, and the results themselves only when
the caller keeps samples in memory. The run folder is therefore byte-identical to one process's.
"""
from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from genevals import registry
from genevals.engine.recorder import corpus_statistics
from genevals.engine.workers import pool as workers_pool
from genevals.gcpause import collector_paused
from genevals.io import jsonl_row, read_raw, rows_from_objects
from genevals.results import SummaryPart
from genevals.rows import InputError, RawRow, RowValidator
from genevals.runfolder import results_text
from genevals.scored import ScoredBatch
from genevals.types import Sample, SampleResult

_JSONL = (".jsonl", ".json", ".ndjson")


@dataclass(frozen=True)
class Reader:
    """How a chunk of raw input becomes samples, the same way in the parent and in a worker.

    ``kind``: "jsonl" (units are (line number, bytes)), "rows" (:class:`~genevals.rows.RawRow`) or "samples"."""

    kind: str
    source: str
    column_map: dict[str, str] | None
    bad_lines: frozenset[int]

    def samples(self, units: Sequence[Any]) -> list[Sample]:
        if self.kind == "samples":
            return list(units)
        validate = RowValidator(self.column_map)
        out = []
        for unit in units:
            row = jsonl_row(self.source, *unit) if self.kind == "jsonl" else unit
            if row is None or isinstance(row, InputError) or row.line in self.bad_lines:
                continue
            # A row the planning pass accepted validates again (a file changed in between raises here).
            out.append(validate(row))
        return out


def _jsonl_units(path: Path) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as handle:
        yield from enumerate(handle, start=1)


def reader_for(plan: Any) -> tuple[Reader, Iterator[Any]]:
    """The plan's input as a :class:`Reader` and its stream of units, in input order."""
    bad = frozenset(e.line for e in plan.errors if e.line is not None)
    data = plan.data
    if plan.kept is not None:
        return Reader("samples", "<data>", None, bad), iter(plan.kept)
    column_map = dict(plan.column_map) if plan.column_map else None
    if isinstance(data, (str, Path)):
        if Path(data).suffix.lower() in _JSONL:
            return Reader("jsonl", str(data), column_map, bad), _jsonl_units(Path(data))
        rows: Iterable[Any] = (r for r in read_raw(data) if isinstance(r, RawRow))
        return Reader("rows", str(data), column_map, bad), iter(rows)
    return Reader("rows", "<data>", column_map, bad), rows_from_objects(data)


def score_batch(selected: Sequence[registry.Selected], samples: Sequence[Sample]) -> ScoredBatch:
    """Every selected family's results for ``samples``, in this process, kept in columns where the metric can."""
    return ScoredBatch(samples, [(sel.metric.score_columns(samples), None if sel.outputs is None else sel.keep)
                                 for sel in selected])


@dataclass
class Done:
    """One chunk's work, as sent back by a worker."""

    n: int
    text: str | None  # results.jsonl lines (None: no run folder)
    summary: SummaryPart
    corpus: dict[str, list[tuple[str, Any]]]  # family -> (system, statistics) per sample, in input order
    results: list[SampleResult] | None  # only when the caller keeps samples


_STATE: dict[str, Any] = {}


def _start_worker(reader: Reader, selected: Sequence[registry.Selected], write: bool, keep: bool) -> None:
    _STATE.update(reader=reader, selected=selected, write=write, keep=keep)


def _work(units: Sequence[Any]) -> Done:
    with collector_paused():  # see genevals.gcpause: a chunk's objects are acyclic and short-lived
        return chunk_done(_STATE["reader"].samples(units), _STATE["selected"], _STATE["write"], _STATE["keep"])


def chunk_done(samples: Sequence[Sample], selected: Sequence[registry.Selected], write: bool, keep: bool) -> Done:
    batch = score_batch(selected, samples)
    summary = SummaryPart()
    summary.add_batch(batch)
    corpus = corpus_statistics([sel for sel in selected if sel.metric.has_corpus_scores], batch)
    # Pickled as plain SampleResults (see BatchSampleResult.__reduce__): the batch's columns stay here.
    return Done(len(batch), results_text(batch) if write else None, summary, corpus, list(batch) if keep else None)


def start_pool(workers: int, reader: Reader, selected: Sequence[registry.Selected], write: bool,
               keep: bool) -> ProcessPoolExecutor:
    """Worker processes that hold the reader and the metrics from their start (sent once, not per chunk)."""
    return workers_pool(workers, _start_worker, (reader, list(selected), write, keep))


def run(pool: ProcessPoolExecutor, chunks: Iterable[Sequence[Any]], in_flight: int) -> Iterator[Done]:
    """Each chunk's :class:`Done`, in input order, with at most ``in_flight`` chunks read ahead (a file is never
    held whole)."""
    pending: deque[Future] = deque()
    for chunk in chunks:
        pending.append(pool.submit(_work, chunk))
        if len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
