"""Streams samples through the metrics and writes each result as soon as it exists.

Two passes over the input: the first validates every row (so by default nothing is scored when any row is
bad), the second scores in chunks. Without an LLM judge, results are appended and flushed chunk by chunk; with
one, each sample is appended and flushed the moment the judge is done with it (results.jsonl is then in
completion order), so a crash loses at most the samples in flight, and ``resume`` skips what is already in the
results file.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from genevals import registry
from genevals.aggregate import DEFAULT_SEED
from genevals.io import InputError, iter_samples, sample_key_digest
from genevals.metrics.base import Metric
from genevals.recorder import RunRecorder
from genevals.results import RESULTS_FILE, Results, read_results
from genevals.types import MetricResult, Sample, SampleResult

PARALLEL_THRESHOLD = 2000  # below this, starting worker processes costs more than it saves


class InputErrors(InputError):
    """Every bad row found by the validation pass."""

    def __init__(self, errors: Sequence[InputError]):
        self.errors = list(errors)
        first = self.errors[0]
        super().__init__(first.source, first.line, first.field, first.message)
        shown = "\n".join(f"  {e}" for e in self.errors[:20])
        more = f"\n  ... and {len(self.errors) - 20} more" if len(self.errors) > 20 else ""
        self.args = (f"{len(self.errors)} bad row(s); nothing was scored "
                     f"(use on_error='skip' / --on-error skip to score the rest):\n{shown}{more}",)

    def __str__(self) -> str:
        return self.args[0]


def chunked(items: Iterable[Sample], size: int) -> Iterator[list[Sample]]:
    chunk: list[Sample] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _score_with(metric: Metric, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
    return metric.score(samples)


def _score_family(sel: registry.Selected, chunk: Sequence[Sample], pool: ProcessPoolExecutor | None,
                  workers: int) -> list[dict[str, MetricResult]]:
    if pool is not None and sel.family in registry.PROCESS_PARALLEL and len(chunk) >= 2 * workers:
        step = -(-len(chunk) // workers)
        parts = [chunk[i:i + step] for i in range(0, len(chunk), step)]
        return [r for part in pool.map(_score_with, [sel.metric] * len(parts), parts) for r in part]
    return sel.metric.score(chunk)


def _streamed_family(selected: Sequence[registry.Selected]) -> registry.Selected | None:
    """The family whose samples are written one by one as they finish: the last judge, scored last."""
    judges = [s for s in selected if s.family in registry.JUDGE_FAMILIES]
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
    for sel in sorted((s for s in selected if s is not streamed), key=lambda s: s.family in registry.JUDGE_FAMILIES):
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


def validate(source: Any, column_map: Mapping[str, str] | None = None) -> tuple[int, list[InputError]]:
    """Count the good rows and collect every bad one, without scoring."""
    good, errors = 0, []
    for item in iter_samples(source, column_map):
        if isinstance(item, InputError):
            errors.append(item)
        else:
            good += 1
    return good, errors


def plan_run(data: Any, metrics: Sequence[str] | None, options: Mapping[str, Mapping[str, Any]] | None,
             column_map: Mapping[str, str] | None, on_error: str
             ) -> tuple[Any, list[registry.Selected], int, list[InputError]]:
    """What both engines do before scoring: build the metrics, validate every row, prepare run-wide state."""
    if on_error not in ("raise", "skip"):
        raise ValueError("on_error must be 'raise' or 'skip'")
    if isinstance(data, (list, tuple)) and data and isinstance(data[0], Sample):
        data = [s.to_dict() for s in data]
    selected = registry.select(metrics, options)
    n_good, errors = validate(data, column_map)
    if errors and on_error == "raise":
        raise InputErrors(errors)
    # Run-wide statistics (BERTScore's idf over all references) need one look at every sample first,
    # resumed ones included, so a resumed run scores exactly like an uninterrupted one.
    for sel in selected:
        prepare = getattr(sel.metric, "prepare", None)
        if prepare is not None:
            prepare(s for s in iter_samples(data, column_map) if not isinstance(s, InputError))
    return data, selected, n_good, errors


def evaluate(
    data: Any,
    metrics: Sequence[str] | None = None,
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    column_map: Mapping[str, str] | None = None,
    on_error: str = "raise",
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

    ``on_error="raise"`` stops before scoring if any row is bad; ``"skip"`` records bad rows with their
    reason and scores the rest. With ``out_dir``, results.jsonl grows as samples finish and summary.json is
    written at the end, also when the run is interrupted.
    """
    data, selected, n_good, errors = plan_run(data, metrics, options, column_map, on_error)
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if n_good >= PARALLEL_THRESHOLD else 1
    if chunk_size is None:
        # Judged samples are written one by one as they finish, whatever the chunk size. A chunk's samples
        # are all in flight together and the next chunk waits for its slowest, so keep at least 2x the
        # judge's concurrency per chunk, or --concurrency above 8 would buy nothing (benchmarks/RESULTS.md,
        # "Judge throughput"); but no more: the judge client serves calls about in arrival order, so every
        # sample's first call goes before any second one, and a bigger chunk delays its first results.
        judges = [s for s in selected if s.family in registry.JUDGE_FAMILIES]
        concurrency = max((getattr(getattr(s.metric, "runtime", None), "concurrency", 0) for s in judges),
                          default=0)
        chunk_size = max(16, 2 * concurrency) if judges else 512

    recorder, todo, n_done = start_run(data, column_map, selected, errors, out_dir, resume, seed, keep_samples,
                                       meta or {})
    pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None
    interrupted = False
    try:
        total = n_good - n_done
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
        results = recorder.finish(n_input_rows=n_good + len(errors), interrupted=interrupted)
    return results


def start_run(data: Any, column_map: Mapping[str, str] | None, selected: Sequence[registry.Selected],
              errors: Sequence[InputError], out_dir: str | Path | None, resume: bool, seed: int,
              keep_samples: bool, meta: Mapping[str, Any]) -> tuple[RunRecorder, Iterator[Sample], int]:
    """What both engines do before scoring: prepare the run folder, open the recorder, count the results
    already there (when resuming) into it, and return it, the samples still to score, and how many were done."""
    out = Path(out_dir) if out_dir is not None else None
    _prepare_out_dir(out, resume)
    recorder = RunRecorder(selected, out, errors=errors, seed=seed, keep_samples=keep_samples, meta=meta,
                           append=True)
    done = _replay_previous(recorder, out) if resume else set()
    todo = (s for s in iter_samples(data, column_map)
            if not isinstance(s, InputError) and sample_key_digest(s.system, s.id) not in done)
    return recorder, todo, len(done)


def _prepare_out_dir(out: Path | None, resume: bool) -> None:
    """Make the run folder; when resuming, drop a last line cut short by a crash, else keep any earlier
    results file beside the new run (results are never lost)."""
    if out is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / RESULTS_FILE
    if resume:
        _truncate_partial_line(results_path)
    elif results_path.exists() and results_path.stat().st_size:
        results_path.rename(out / f"results.{time.strftime('%Y%m%d-%H%M%S')}.jsonl")


def _replay_previous(recorder: RunRecorder, out: Path | None) -> set[int]:
    """Count the results already in the run folder into the summary; return their keys' digests.

    Resumed samples are streamed, never held: only a 64-bit digest per sample is kept, to skip them."""
    done: set[int] = set()
    if out is None:
        return done
    for previous in read_results(out / RESULTS_FILE):
        key = sample_key_digest(previous.sample.system, previous.sample.id)
        if key not in done:
            done.add(key)
            recorder.record(previous)
    return done


def _truncate_partial_line(path: Path, block: int = 1 << 16) -> None:
    """Drop a last line cut short by a crash, so appended results start on a fresh line.

    Reads backwards from the end in blocks: a results file can be far larger than memory should hold."""
    if not path.exists():
        return
    with open(path, "rb+") as handle:
        end = handle.seek(0, os.SEEK_END)
        position = end
        while position > 0:
            start = max(0, position - block)
            handle.seek(start)
            newline = handle.read(position - start).rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        else:
            keep = 0
        if keep != end:
            handle.truncate(keep)
