"""The local engine: scores in this process (cheap metrics on worker processes for large inputs) and writes
each result as soon as it exists.

After the planning pass (:mod:`genevals.engine.plan`), samples are scored in chunks. Without a judge-backed
metric, results are appended and flushed chunk by chunk; with one, each sample is appended and flushed the
moment the judge is done with it (results.jsonl is then in completion order), so a crash loses at most the
samples in flight, and ``resume`` skips what is already in the results file.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from genevals import registry
from genevals.engine.plan import chunked, plan_run, start_run
from genevals.engine.recorder import RunRecorder
from genevals.metrics.base import CHEAP, JUDGE, Metric
from genevals.results import Results
from genevals.stats import DEFAULT_SEED
from genevals.types import MetricResult, Sample, SampleResult

PARALLEL_THRESHOLD = 2000  # below this, starting worker processes costs more than it saves


def _score_with(metric: Metric, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
    return metric.score(samples)


def _score_family(sel: registry.Selected, chunk: Sequence[Sample], pool: ProcessPoolExecutor | None,
                  workers: int) -> list[dict[str, MetricResult]]:
    if pool is not None and sel.metric.kind == CHEAP and len(chunk) >= 2 * workers:
        step = -(-len(chunk) // workers)
        parts = [chunk[i:i + step] for i in range(0, len(chunk), step)]
        return [r for part in pool.map(_score_with, [sel.metric] * len(parts), parts) for r in part]
    return sel.metric.score(chunk)


def _streamed_family(selected: Sequence[registry.Selected]) -> registry.Selected | None:
    """The family whose samples are written one by one as they finish: the last judge, scored last."""
    judges = [s for s in selected if s.metric.kind == JUDGE]
    return judges[-1] if judges else None


def _score_chunk(selected: Sequence[registry.Selected], chunk: Sequence[Sample],
                 pool: ProcessPoolExecutor | None, workers: int,
                 on_done: Callable[[int, SampleResult], None] | None = None) -> list[SampleResult]:
    """The chunk's results, in input order.

    With ``on_done``, the last judge family (if any) runs last, through ``score_each``, and
    ``on_done(index, result)`` is called for each sample the moment that family is done with it; the other
    families score the whole chunk first, the fast ones before the judges."""
    streamed = _streamed_family(selected) if on_done is not None else None
    outputs: list[dict[str, dict[str, MetricResult]]] = [{} for _ in chunk]  # per sample: family -> outputs
    for sel in sorted((s for s in selected if s is not streamed), key=lambda s: s.metric.kind == JUDGE):
        for by_family, got in zip(outputs, _score_family(sel, chunk, pool, workers)):
            by_family[sel.family] = got
    results = [SampleResult(sample=s) for s in chunk]

    def finish(index: int) -> SampleResult:
        # The selected order, whatever order the families ran in: results.jsonl has always listed them so.
        for sel in selected:
            for name, value in outputs[index][sel.family].items():
                if sel.keep(name):
                    results[index].metrics[name] = value
        return results[index]

    if streamed is None or on_done is None:
        return [finish(index) for index in range(len(chunk))]
    family, done = streamed.family, on_done

    def emit(index: int, got: dict[str, MetricResult]) -> None:
        outputs[index][family] = got
        done(index, finish(index))

    streamed.metric.score_each(chunk, emit)
    return results


def _write_streamed(recorder: RunRecorder, selected: Sequence[registry.Selected], chunk: Sequence[Sample],
                    pool: ProcessPoolExecutor | None, workers: int,
                    progress: Callable[[int], None] | None) -> None:
    """Score a chunk with a judge family, writing each sample to results.jsonl the moment it is done.

    results.jsonl is then in completion order; ``Results.samples`` stays in input order, also when the chunk
    is cut short (Ctrl-C), for what was written by then."""
    written: dict[int, SampleResult] = {}

    def write_one(index: int, result: SampleResult) -> None:
        if index in written:  # a metric that emitted a sample twice must not write it twice
            raise RuntimeError(f"sample {result.sample.origin or index} was finished twice")
        recorder.write([result], in_memory=False)
        written[index] = result
        if progress is not None:
            progress(1)

    try:
        _score_chunk(selected, chunk, pool, workers, write_one)
    finally:
        recorder.keep(written[index] for index in sorted(written))
    if len(written) != len(chunk):
        missing = [chunk[i].origin or chunk[i].id for i in range(len(chunk)) if i not in written]
        raise RuntimeError(f"{len(missing)} sample(s) were scored but never finished: {missing[:5]}")


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
    """Score ``data`` (a path, a DataFrame or a list of dicts) and return ``Results``.

    ``metrics``: names as on the command line (default: the "default" preset); ``options[family]``: that
    family's settings; ``judge``: the :class:`~genevals.judge.config.JudgeConfig` of every judge-backed metric.

    ``on_error="raise"`` stops before scoring if any row is bad; ``"skip"`` records bad rows with their
    reason and scores the rest. An unknown field is a warning (``Results.meta["unknown_fields"]``), with
    ``strict`` an error. With ``out_dir``, results.jsonl grows as samples finish and summary.json is
    written at the end, also when the run is interrupted.
    """
    plan = plan_run(data, metrics, options, column_map, on_error, judge, strict)
    selected = plan.selected
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if plan.n_good >= PARALLEL_THRESHOLD else 1
    if chunk_size is None:
        # Judged samples are written one by one as they finish, whatever the chunk size. A chunk's samples
        # are all in flight together and the next chunk waits for its slowest, so keep at least 2x the
        # judge's concurrency per chunk, or --concurrency above 8 would buy nothing (benchmarks/RESULTS.md,
        # "Judge throughput"); but no more: the judge client serves calls about in arrival order, so every
        # sample's first call goes before any second one, and a bigger chunk delays its first results.
        judges = [s for s in selected if s.metric.kind == JUDGE]
        chunk_size = max(16, 2 * max(s.metric.concurrency for s in judges)) if judges else 512

    recorder, todo, n_done = start_run(plan, out_dir, resume, seed, keep_samples, meta or {})
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    interrupted = False
    try:
        total = plan.n_good - n_done
        advance = (lambda n: progress(n, total)) if progress is not None else None
        stream = _streamed_family(selected) is not None
        for chunk in chunked(todo, chunk_size if pool is None else max(chunk_size, 1000)):
            if stream:
                _write_streamed(recorder, selected, chunk, pool, workers, advance)
            else:
                recorder.write(_score_chunk(selected, chunk, pool, workers))
                if advance is not None:
                    advance(len(chunk))
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        results = recorder.finish(n_input_rows=plan.n_rows, interrupted=interrupted)
    return results
