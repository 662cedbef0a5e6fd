"""The local engine: scores in this process (cheap metrics on worker processes for large inputs) and writes
each result as soon as it exists.

After the planning pass (:mod:`genevals.engine.plan`), samples are scored in chunks. Without a judge-backed
metric, results are appended and flushed chunk by chunk; with one, each sample is appended and flushed the
moment the judge is done with it (results.jsonl is then in completion order), so a crash loses at most the
samples in flight, and ``resume`` skips what is already in the results file. The judge slides a window over
the whole run: a new sample starts whenever one finishes, with no barrier between chunks.

A conversation is the unit of work (:mod:`genevals.engine.units`): every strategy packs the plan's units into
chunks and worker shares whole, and hands each unit's results to the recorder as one line (the judge's stream
once the last of its turns is done).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from genevals.engine import pipeline, trec_columnar
from genevals.engine.course import Course, Scoring, run_course
from genevals.engine.plan import Plan, plan_run
from genevals.engine.units import cut, pack
from genevals.engine.scoring import assemble, family_results, score_batch
from genevals.engine.spec import LocalSettings, RunSpec
from genevals.engine.workers import pool as workers_pool
from genevals.gcpause import collector_paused
from genevals.metrics.base import CHEAP, JUDGE
from genevals.output.results import Results
from genevals.scored import Columns
from genevals.types import MetricResult, Sample, SampleResult

PARALLEL_THRESHOLD = 2000  # below this, starting worker processes costs more than it saves
#: With ``workers=None``, worker processes start only when the cheap metrics' work still to do, measured on the
#: first chunk in this process, is at least this many seconds: starting them, importing the metrics there and
#: sending samples and results back and forth costs a few seconds of CPU (and the columnar retrieval metrics
#: finish a 10,000-sample run sooner than that), so below it one process is never slower.
PARALLEL_MIN_SECONDS = 10.0


def parallel_workers(cheap_seconds_per_sample: float, samples_left: int, n_samples: int,
                     cores: int | None = None) -> int:
    """How many processes score the rest of a run (``workers=None``): 2 when the cheap metrics' measured cost
    of what is left is at least :data:`PARALLEL_MIN_SECONDS` (and the run has at least
    :data:`PARALLEL_THRESHOLD` samples and a second core), else 1."""
    cores = _cores() if cores is None else cores
    enough = cheap_seconds_per_sample * samples_left >= PARALLEL_MIN_SECONDS
    if cores > 1 and n_samples >= PARALLEL_THRESHOLD and enough:
        return cores
    return 1


def _cores() -> int:
    return min(2, os.cpu_count() or 1)


def _cheap_only(spec: RunSpec) -> bool:
    """Whether only cheap families are scored: their objects are acyclic and short-lived, so the collector waits
    (:mod:`genevals.gcpause`); a judge's or a model's may not be."""
    return all(s.metric.kind == CHEAP for s in spec.selected)


@dataclass(frozen=True)
class Chunked(Scoring):
    """Score and write the samples chunk by chunk, here; the cheap families of each chunk on ``workers``
    processes when there are several. With ``auto``, how many is decided after the first chunk, from what its
    cheap families cost (:func:`parallel_workers`)."""

    workers: int
    auto: bool
    chunk_size: int

    def pauses_collector(self, spec: RunSpec) -> bool:
        return _cheap_only(spec)

    def write(self, course: Course, todo: Iterable[Sequence[Sample]] | None = None, left: int | None = None) -> None:
        units = iter(course.todo if todo is None else todo)  # one pass: the first chunk may be packed apart
        left = course.left if left is None else left
        workers, pool = self.workers, None
        try:
            if self.auto:
                cheap = [0.0]
                first = next(pack(units, self.chunk_size), None)
                if first is None:
                    return
                course.recorder.write(score_batch(course.spec, first, cheap_seconds=cheap), first.sizes)
                course.done(len(first))
                workers = parallel_workers(cheap[0] / len(first), left - len(first), course.plan.n_good)
            pool = workers_pool(workers) if workers > 1 else None
            for chunk in pack(units, self.chunk_size if pool is None else max(self.chunk_size, 1000)):
                course.recorder.write(score_batch(course.spec, chunk, pool=pool, workers=workers), chunk.sizes)
                course.done(len(chunk))
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)


@dataclass(frozen=True)
class Pipelined(Scoring):
    """Cheap metrics only, nothing resumed: worker processes take whole blocks of validated samples, score them
    and write their results.jsonl lines (:mod:`genevals.engine.pipeline`); this process appends and adds up.
    With ``auto``, the first chunk is scored here and decides whether worker processes pay."""

    workers: int
    auto: bool
    chunk_size: int

    def pauses_collector(self, spec: RunSpec) -> bool:
        return _cheap_only(spec)

    def write(self, course: Course) -> None:
        size = max(self.chunk_size, 1000)
        if course.plan.conversations.turns:  # chunks of whole units, not the spool's blocks
            works = pack(course.todo, size, "worker block")
        else:
            works = pipeline.blocks(course.plan.spool, size)
        workers = self.workers
        if self.auto:
            first = next(works, None)
            if first is None:
                return
            started = time.perf_counter()
            chunk = pipeline.chunk_of(first)
            course.recorder.write(score_batch(course.spec, chunk), chunk.sizes)
            seconds = time.perf_counter() - started
            course.done(len(chunk))
            workers = parallel_workers(seconds / max(len(chunk), 1), course.plan.n_good - len(chunk),
                                       course.plan.n_good)
        if workers <= 1:  # the rest here, as any run without workers
            rest = (unit for work in works for unit in pipeline.chunk_of(work).units())
            Chunked(1, False, self.chunk_size).write(course, rest)
            return
        pool = pipeline.start_pool(workers, course.spec.only(course.spec.selected), course.recorder.writer is not None,
                                   course.recorder.keep_samples)
        try:
            for done in pipeline.run(pool, works, 2 * workers):
                course.recorder.write_done(done)
                course.done(done.n)
        finally:
            pool.shutdown(cancel_futures=True)


@dataclass(frozen=True)
class Streamed(Scoring):
    """A judge-backed family is scored: each sample is written to results.jsonl the moment it is done.

    The last judge family slides a window over the whole run (``Metric.score_stream``): a new sample starts
    whenever one finishes, with no barrier between chunks. The other families score a chunk at a time (the cheap
    ones on ``workers`` processes when there are several), just before the judge takes its first sample.
    results.jsonl is then in completion order; ``Results.samples`` stays in input order, also when the run is
    cut short (Ctrl-C), for what was written by then."""

    workers: int
    chunk_size: int

    def write(self, course: Course) -> None:
        spec, recorder = course.spec, course.recorder
        streamed = spec.judged[-1]
        others = sorted((s for s in spec.selected if s is not streamed), key=lambda s: s.metric.kind == JUDGE)
        # taken, not yet finished: index -> its sample, its other families' outputs, its unit, its place there
        waiting: dict[int, tuple[Sample, dict[str, dict[str, MetricResult]], _Judging, int]] = {}
        kept: dict[int, SampleResult] = {}
        pool = workers_pool(self.workers) if self.workers > 1 else None

        def samples() -> Iterator[Sample]:
            index = 0
            for chunk in pack(course.todo, self.chunk_size):
                outputs: list[dict[str, dict[str, MetricResult]]] = [{} for _ in chunk]
                for sel in others:
                    got = family_results(sel, chunk, pool, self.workers)
                    rows = got.rows() if isinstance(got, Columns) else got
                    for by_family, one in zip(outputs, rows):
                        by_family[sel.family] = one
                for unit, unit_outputs in zip(chunk.units(), cut(outputs, chunk.sizes)):
                    judging = _Judging(index, len(unit))
                    for place, (sample, by_family) in enumerate(zip(unit, unit_outputs)):
                        waiting[index] = (sample, by_family, judging, place)
                        index += 1
                        yield sample

        def write_one(index: int, got: dict[str, MetricResult]) -> None:
            if index not in waiting:  # a metric that emitted a sample twice must not write it twice
                raise RuntimeError(f"sample #{index} was finished twice (or never started)")
            sample, by_family, judging, place = waiting.pop(index)
            by_family[streamed.family] = got
            if judging.add(place, assemble(spec.selected, sample, by_family)):  # its unit's last: one line
                recorder.write(judging.results, [len(judging.results)], in_memory=False)
                if recorder.keep_samples:
                    kept.update(zip(range(judging.first, judging.first + len(judging.results)), judging.results))
            course.done(1)

        # Enough samples in flight to keep every judge slot busy while each answer's calls run one after another.
        window = max(self.chunk_size, 2 * streamed.metric.concurrency)
        try:
            streamed.metric.score_stream(samples(), write_one, window)
        finally:
            recorder.keep(kept[index] for index in sorted(kept))
            if pool is not None:
                pool.shutdown(cancel_futures=True)
        if waiting:
            missing = [sample.origin or sample.id for sample, *_ in list(waiting.values())[:5]]
            raise RuntimeError(f"{len(waiting)} sample(s) were scored but never finished: {missing}")


class _Judging:
    """A unit the judge is on: its results in its order, as they finish; whole once the last is in."""

    __slots__ = ("first", "results", "left")

    def __init__(self, first: int, size: int) -> None:
        self.first = first  # the index of its first sample in the stream
        self.results: list[SampleResult] = [None] * size  # type: ignore[list-item]
        self.left = size

    def add(self, place: int, result: SampleResult) -> bool:
        """Put the result of the unit's sample at ``place``; True when it was the last one out."""
        self.results[place] = result
        self.left -= 1
        return not self.left


def strategy(spec: RunSpec, plan: Plan, n_done: int) -> Chunked | Pipelined | Streamed:
    """How the local engine scores this run (``spec.engine``: :class:`LocalSettings`)."""
    settings = spec.engine if isinstance(spec.engine, LocalSettings) else LocalSettings()
    judged = spec.judged
    # workers=None: decided after the first chunk, from the measured cost of the cheap metrics.
    auto = settings.workers is None
    workers = 1 if auto else settings.workers
    chunk_size = settings.chunk_size
    if chunk_size is None:
        # With a judge, the chunk is what the other families score at once before the judge takes its samples,
        # and the judge's sliding window is at least as wide: 2x its concurrency keeps every slot busy while
        # each answer's calls run one after another, and no more, or the first results come later.
        chunk_size = max(16, 2 * max(s.metric.concurrency for s in judged)) if judged else 512
    if judged:
        return Streamed(workers, chunk_size)
    # Cheap metrics only, nothing resumed, and worker processes possible: they then take whole blocks.
    if n_done == 0 and all(s.metric.kind == CHEAP for s in spec.selected) and \
            (workers > 1 if not auto else plan.n_good >= PARALLEL_THRESHOLD and _cores() > 1):
        return Pipelined(workers, auto, chunk_size)
    return Chunked(workers, auto, chunk_size)


def run(spec: RunSpec, progress: Callable[[int, int], None] | None = None) -> Results:
    """Score the run ``spec`` describes, in this process (and worker processes), and return its ``Results``;
    ``progress(done, total)`` is called as samples finish."""
    if trec_columnar.applies(spec):  # TREC files: scored from columns, unless a file needs the line reader
        with collector_paused():
            results = trec_columnar.run(spec, progress)
        if results is not None:
            return results
    with collector_paused():
        plan = plan_run(spec)
    return run_course(plan, lambda plan, n_done: strategy(spec, plan, n_done), progress)
