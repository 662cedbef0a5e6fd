"""The local engine: scores in this process (cheap metrics on worker processes for large inputs) and writes
each result as soon as it exists.

After the planning pass (:mod:`genevals.engine.plan`), samples are scored in chunks. Without a judge-backed
metric, results are appended and flushed chunk by chunk; with one, each sample is appended and flushed the
moment the judge is done with it (results.jsonl is then in completion order), so a crash loses at most the
samples in flight, and ``resume`` skips what is already in the results file. The judge slides a window over
the whole run: a new sample starts whenever one finishes, with no barrier between chunks.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from genevals import registry
from genevals.engine import pipeline
from genevals.engine.arguments import check_call, judge_config
from genevals.engine.workers import pool as workers_pool
from genevals.engine.plan import Plan, chunked, plan_run, start_run
from genevals.engine.recorder import RunRecorder
from genevals.gcpause import collector_paused
from genevals.metrics.base import CHEAP, JUDGE, Metric
from genevals.results import Results
from genevals.scored import Columns, ScoredBatch
from genevals.stats import DEFAULT_SEED
from genevals.types import MetricResult, Sample, SampleResult

PARALLEL_THRESHOLD = 2000  # below this, starting worker processes costs more than it saves
#: With ``workers=None``, worker processes start only when the cheap metrics' work still to do, measured on the
#: first chunk in this process, is at least this many seconds: starting them, importing the metrics there and
#: sending samples and results back and forth costs a few seconds of CPU (and the columnar retrieval metrics
#: finish a 10,000-sample run sooner than that), so below it one process is never slower.
PARALLEL_MIN_SECONDS = 10.0


def _score_with(metric: Metric, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
    return metric.score(samples)


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


def _score_family(sel: registry.Selected, chunk: Sequence[Sample], pool: ProcessPoolExecutor | None,
                  workers: int, columns: bool = False) -> Columns | list[dict[str, MetricResult]]:
    """One family's results for the chunk; with ``columns``, as the metric keeps them (``score_columns``)."""
    if pool is not None and sel.metric.kind == CHEAP and len(chunk) >= 2 * workers:
        step = -(-len(chunk) // workers)
        parts = [chunk[i:i + step] for i in range(0, len(chunk), step)]
        return [r for part in pool.map(_score_with, [sel.metric] * len(parts), parts) for r in part]
    return sel.metric.score_columns(chunk) if columns else sel.metric.score(chunk)


def _streamed_family(selected: Sequence[registry.Selected]) -> registry.Selected | None:
    """The family whose samples are written one by one as they finish: the last judge, scored last."""
    judges = [s for s in selected if s.metric.kind == JUDGE]
    return judges[-1] if judges else None


def _score_chunk(selected: Sequence[registry.Selected], chunk: Sequence[Sample],
                 pool: ProcessPoolExecutor | None, workers: int, cheap_seconds: list[float] | None = None
                 ) -> ScoredBatch:
    """The chunk's results, in input order, each sample's outputs in the selected families' order; adds the
    seconds the cheap families took to ``cheap_seconds[0]``."""
    parts = []
    for sel in selected:
        started = time.perf_counter()
        got = _score_family(sel, chunk, pool, workers, columns=True)
        parts.append((got, None if sel.outputs is None else sel.keep))
        if cheap_seconds is not None and sel.metric.kind == CHEAP:
            cheap_seconds[0] += time.perf_counter() - started
    return ScoredBatch(chunk, parts)


def _assemble(selected: Sequence[registry.Selected], sample: Sample,
              by_family: dict[str, dict[str, MetricResult]]) -> SampleResult:
    """One sample's result: the kept outputs of every family, in the selected order whatever order the
    families ran in (results.jsonl has always listed them so)."""
    result = SampleResult(sample=sample)
    for sel in selected:
        if sel.outputs is None:  # every output kept
            result.metrics.update(by_family[sel.family])
            continue
        for name, value in by_family[sel.family].items():
            if sel.keep(name):
                result.metrics[name] = value
    return result


def _write_streamed(recorder: RunRecorder, selected: Sequence[registry.Selected], todo: Iterable[Sample],
                    chunk_size: int, pool: ProcessPoolExecutor | None, workers: int,
                    progress: Callable[[int], None] | None) -> None:
    """Score every sample with a judge family, writing each to results.jsonl the moment it is done.

    The last judge family slides a window over the whole run (``Metric.score_stream``): a new sample starts
    whenever one finishes, with no barrier between chunks. The other families score a chunk at a time, just
    before the judge takes its first sample. results.jsonl is then in completion order; ``Results.samples``
    stays in input order, also when the run is cut short (Ctrl-C), for what was written by then."""
    streamed = _streamed_family(selected)
    assert streamed is not None
    others = sorted((s for s in selected if s is not streamed), key=lambda s: s.metric.kind == JUDGE)
    waiting: dict[int, tuple[Sample, dict[str, dict[str, MetricResult]]]] = {}  # taken, not yet finished
    kept: dict[int, SampleResult] = {}

    def samples() -> Iterator[Sample]:
        index = 0
        for chunk in chunked(todo, chunk_size):
            outputs: list[dict[str, dict[str, MetricResult]]] = [{} for _ in chunk]
            for sel in others:
                for by_family, got in zip(outputs, _score_family(sel, chunk, pool, workers)):
                    by_family[sel.family] = got
            for sample, by_family in zip(chunk, outputs):
                waiting[index] = (sample, by_family)
                index += 1
                yield sample

    def write_one(index: int, got: dict[str, MetricResult]) -> None:
        if index not in waiting:  # a metric that emitted a sample twice must not write it twice
            raise RuntimeError(f"sample #{index} was finished twice (or never started)")
        sample, by_family = waiting.pop(index)
        by_family[streamed.family] = got
        result = _assemble(selected, sample, by_family)
        recorder.write([result], in_memory=False)
        if recorder.keep_samples:
            kept[index] = result
        if progress is not None:
            progress(1)

    # Enough samples in flight to keep every judge slot busy while each answer's calls run one after another.
    window = max(chunk_size, 2 * streamed.metric.concurrency)
    try:
        streamed.metric.score_stream(samples(), write_one, window)
    finally:
        recorder.keep(kept[index] for index in sorted(kept))
    if waiting:
        missing = [sample.origin or sample.id for sample, _ in list(waiting.values())[:5]]
        raise RuntimeError(f"{len(waiting)} sample(s) were scored but never finished: {missing}")


def evaluate(
    data: Any,
    metrics: Sequence[str] | None = None,
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    judge: Any = None,
    column_map: Mapping[str, str] | None = None,
    on_error: str = "raise",
    strict: bool = False,
    out_dir: str | Path | None = None,
    resume: bool = False,
    workers: int | None = None,
    chunk_size: int | None = None,
    seed: int = DEFAULT_SEED,
    keep_samples: bool = True,
    progress: Callable[[int, int], None] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Results:
    """Score ``data`` (a path, a DataFrame, or any iterable of row dicts: a list, a generator) and return
    ``Results``. A mistake in any argument is an :class:`~genevals.io.InputError` before any work.

    ``metrics``: names as on the command line (default: the "default" preset); ``options[family]``: that
    family's settings; ``judge``: the :class:`~genevals.judge.config.JudgeConfig` of every judge-backed metric (or
    a mapping of its fields).

    ``on_error="raise"`` stops before scoring if any row is bad; ``"skip"`` records bad rows with their
    reason and scores the rest. An unknown field is a warning (``Results.meta["unknown_fields"]``), with
    ``strict`` an error. With ``out_dir``, results.jsonl grows as samples finish and summary.json is
    written at the end, also when the run is interrupted.
    """
    check_call(data, column_map, out_dir, workers, chunk_size, seed, progress, meta)
    judge = judge_config(judge)
    with collector_paused():
        plan = plan_run(data, metrics, options, column_map, on_error, judge, strict)
    selected = plan.selected
    # workers=None: decided after the first chunk, from the measured cost of the cheap metrics (see below).
    auto = workers is None
    workers = 1 if auto else workers
    if chunk_size is None:
        # With a judge, the chunk is what the other families score at once before the judge takes its samples,
        # and the judge's sliding window is at least as wide: 2x its concurrency keeps every slot busy while
        # each answer's calls run one after another, and no more, or the first results come later.
        judges = [s for s in selected if s.metric.kind == JUDGE]
        chunk_size = max(16, 2 * max(s.metric.concurrency for s in judges)) if judges else 512

    recorder, todo, n_done = start_run(plan, out_dir, resume, seed, keep_samples, meta or {})
    # Cheap metrics only, nothing resumed, and worker processes possible: they then read, score and write whole
    # chunks (genevals.engine.pipeline); otherwise workers score the cheap families of chunks read here.
    pipelined = (n_done == 0 and all(s.metric.kind == CHEAP for s in selected)
                 and (workers > 1 if not auto else plan.n_good >= PARALLEL_THRESHOLD and _cores() > 1))
    pool = workers_pool(workers) if workers > 1 and not pipelined else None
    interrupted = withdrawn = False
    try:
        total = plan.n_good - n_done
        advance = (lambda n: progress(n, total)) if progress is not None else None
        if _streamed_family(selected) is not None:
            _write_streamed(recorder, selected, todo, chunk_size, pool, workers, advance)
        elif pipelined:
            with collector_paused():
                _write_pipelined(recorder, plan, selected, chunk_size, workers, auto, advance)
        else:
            with collector_paused(all(s.metric.kind == CHEAP for s in selected)):
                _write_chunks(recorder, selected, todo, chunk_size, workers, auto, plan.n_good - n_done, plan.n_good,
                              advance, pool)
    except KeyboardInterrupt:
        interrupted = True
        raise
    except BaseException:  # JudgeUnavailable at the first call, say: with nothing scored, the folder as it was
        withdrawn = recorder.withdraw()
        raise
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if not withdrawn:
            results = recorder.finish(n_input_rows=plan.n_rows, interrupted=interrupted)
    return results


def _write_chunks(recorder: RunRecorder, selected: Sequence[registry.Selected], todo: Iterable[Sample],
                  chunk_size: int, workers: int, auto: bool, left: int, n_good: int,
                  advance: Callable[[int], None] | None, pool: ProcessPoolExecutor | None) -> None:
    """Score and write the samples chunk by chunk (no judge); with ``auto``, decide on worker processes after
    the first chunk (``left`` samples to score of the run's ``n_good``)."""
    todo = iter(todo)
    cheap = [0.0]
    first = list(islice(todo, chunk_size))
    if first:
        recorder.write(_score_chunk(selected, first, pool, workers, cheap))
        if advance is not None:
            advance(len(first))
    started = None
    try:
        if auto and first:
            workers = parallel_workers(cheap[0] / len(first), left - len(first), n_good)
            pool = started = workers_pool(workers) if workers > 1 else None
        for chunk in chunked(todo, chunk_size if pool is None else max(chunk_size, 1000)):
            recorder.write(_score_chunk(selected, chunk, pool, workers))
            if advance is not None:
                advance(len(chunk))
    finally:
        if started is not None:
            started.shutdown(cancel_futures=True)


def _write_pipelined(recorder: RunRecorder, plan: Plan, selected: Sequence[registry.Selected], chunk_size: int,
                     workers: int, auto: bool, advance: Callable[[int], None] | None) -> None:
    """Cheap metrics only: with ``auto``, read and score the first chunk here and decide on worker processes from
    what it cost (reading included, as the workers would read too); then either go on here, or let worker
    processes read, score and write whole chunks (:mod:`genevals.engine.pipeline`)."""
    reader, units = pipeline.reader_for(plan)
    if auto:
        first = next(chunked(units, chunk_size), None)
        if first is None:
            return
        started = time.perf_counter()
        samples = reader.samples(first)
        recorder.write(_score_chunk(selected, samples, None, 1))
        seconds = time.perf_counter() - started
        if advance is not None:
            advance(len(samples))
        workers = parallel_workers(seconds / max(len(samples), 1), plan.n_good - len(samples), plan.n_good)
    if workers <= 1:  # the rest here, as any run without workers
        rest = (sample for chunk in chunked(units, chunk_size) for sample in reader.samples(chunk))
        _write_chunks(recorder, selected, rest, chunk_size, 1, False, 0, plan.n_good, advance, None)
        return
    pool = pipeline.start_pool(workers, reader, selected, recorder.writer is not None, recorder.keep_samples)
    try:
        for done in pipeline.run(pool, chunked(units, max(chunk_size, 1000)), 2 * workers):
            recorder.write_done(done)
            if advance is not None:
                advance(done.n)
    finally:
        pool.shutdown(cancel_futures=True)
