"""Worker processes that do a chunk's whole work: score every metric on a block of validated samples and write
the chunk's results.jsonl lines, so that the parent only appends text and adds up counts.

Used for runs of cheap metrics only (lexical, retrieval) once worker processes are started (see
:func:`genevals.engine.local.parallel_workers`), and not when resuming. A chunk travels as the planning pass left
its samples (:mod:`genevals.engine.spool`): pickled blocks for a file, lists of samples for rows in memory; no
row is read or validated again. A run with conversations sends :class:`~genevals.engine.units.Chunk` s of whole
units instead, whose sizes say which turns make one line. What comes back, per chunk and in input order: the results.jsonl lines, the
summary's counts (:class:`~genevals.output.results.SummaryPart`), each sample's corpus statistics, and the results
themselves only when the caller keeps samples in memory. The run folder is therefore byte-identical to one
process's.
"""
from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from genevals.engine.recorder import corpus_statistics
from genevals.engine.scoring import score_batch
from genevals.engine.spool import Spool, unpack
from genevals.engine.units import Chunk, cut
from genevals.engine.workers import pool as workers_pool
from genevals.gcpause import collector_paused
from genevals.output.results import SummaryPart
from genevals.output.runfolder import results_text
from genevals.types import SampleResult

#: a worker's work: the spool's blocks that make up a chunk (every sample a unit alone), or a chunk of whole units
Work = Sequence[Any] | Chunk


#: a worker's blocks end once they reach this many pickled bytes, however few samples: a worker holds their samples
#: and their result lines at once (blocks of long retrieval lists are megabytes each)
MAX_WORK_BYTES = 8 << 20


def blocks(spool: Spool, size: int) -> Iterator[Work]:
    """The spool's blocks, grouped into works of at least ``size`` samples or :data:`MAX_WORK_BYTES` pickled bytes
    (the last may be smaller)."""
    work: list[Any] = []
    n = held = 0
    for count, block in spool.blocks():
        work.append(block)
        n += count
        held += len(block) if isinstance(block, bytes) else 0
        if n >= size or held >= MAX_WORK_BYTES:
            yield work
            work, n, held = [], 0, 0
    if work:
        yield work


def chunk_of(work: Work) -> Chunk:
    """The samples of ``work`` as a :class:`Chunk` (its units' sizes kept)."""
    if isinstance(work, Chunk):
        return work
    return Chunk(sample for block in work for sample in unpack(block))


@dataclass
class Done:
    """One chunk's work, as sent back by a worker."""

    n: int
    text: str | None  # results.jsonl lines (None: no run folder)
    summary: SummaryPart
    corpus: dict[str, list[tuple[str, Any]]]  # family -> (system, statistics) per sample, in input order
    results: list[SampleResult] | None  # only when the caller keeps samples


_STATE: dict[str, Any] = {}


def _start_worker(spec: Any, write: bool, keep: bool) -> None:
    _STATE.update(spec=spec, write=write, keep=keep)


def _work(work: Work) -> Done:
    with collector_paused():  # see genevals.gcpause: a chunk's objects are acyclic and short-lived
        return chunk_done(chunk_of(work), _STATE["spec"], _STATE["write"], _STATE["keep"])


def chunk_done(chunk: Chunk, spec: Any, write: bool, keep: bool) -> Done:
    batch = score_batch(spec, chunk)
    summary = SummaryPart()
    summary.add_batch(batch)
    corpus = corpus_statistics([sel for sel in spec.selected if sel.metric.has_corpus_scores], batch)
    # Pickled as plain SampleResults (see BatchSampleResult.__reduce__): the batch's columns stay here.
    return Done(len(batch), results_text(cut(batch, chunk.sizes)) if write else None, summary, corpus,
                list(batch) if keep else None)


def start_pool(workers: int, spec: Any, write: bool, keep: bool) -> ProcessPoolExecutor:
    """Worker processes that hold the run's spec (its metrics, without its input) from their start: sent once,
    not per chunk."""
    return workers_pool(workers, _start_worker, (spec, write, keep))


def run(pool: ProcessPoolExecutor, chunks: Iterable[Work], in_flight: int) -> Iterator[Done]:
    """Each chunk's :class:`Done`, in input order, with at most ``in_flight`` chunks read ahead (a file's samples
    are never held whole)."""
    pending: deque[Future] = deque()
    for chunk in chunks:
        pending.append(pool.submit(_work, chunk))
        if len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
