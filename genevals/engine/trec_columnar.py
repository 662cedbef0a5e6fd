"""``genevals run --qrels QRELS --run RUN ...`` scored from columns: each run file is read into columns a block of
topics at a time (:mod:`genevals.input.trec_blocks`), scored a block at a time
(:mod:`genevals.metrics.retrieval.columnar`) and written as results.jsonl lines built from the columns, never a
Sample with its contexts per topic.

Every file is read and scored before anything is written, keeping of each block only its Columns and each topic's
top KEPT_CONTEXTS documents, so that a file the column reader leaves to the line reader (a bad line in its last
block included) returns None with nothing written, and the per-sample path runs instead, with its located errors.
The same happens for a run it cannot take as it is (other metrics, doc level, --resume, Ray).

It writes what the per-sample path writes: the same manifest (the same digest of the same bytes), the same
results.jsonl lines, byte for byte but for the contexts listed (the top KEPT_CONTEXTS), and the same summary
(counted by the accumulator the worker processes use) with a note on those contexts;
``tests/metrics/retrieval/test_columnar_cli.py`` compares the two folders.

A retrieval-only row file (JSONL, CSV, Parquet) in the plain shape :mod:`genevals.input.rows_columns` takes is
scored the same way, as one run with every context listed (its folder is the per-sample path's, byte for byte:
``tests/metrics/retrieval/test_rows_columnar_cli.py``). Either way the Results hold the values (``held``) for the
report, which then reads results.jsonl only for the samples its page embeds.
"""
from __future__ import annotations

import math
import os
import stat
from typing import Any, Callable, Sequence

import numpy as np

from genevals.engine import manifest
from genevals.engine.pipeline import Done
from genevals.engine.course import Course, Scoring, run_course
from genevals.engine.plan import Plan
from genevals.engine.spec import LocalSettings
from genevals.engine.spool import Spool
from genevals.engine.trec_lines import CONTEXTS_NOTE, KEPT_CONTEXTS, Records, lines
from genevals.input.trec import TrecSource
from genevals.input.rows_columns import NotPlain, is_row_file, read_rows_columns
from genevals.input.trec_blocks import NotClean, Unsorted, run_blocks
from genevals.input.trec_columns import Judgements, judgements, read_qrels_columns, read_run_columns, system_pool
from genevals.metrics.retrieval import columnar
from genevals.metrics.retrieval.retrieval import Retrieval
from genevals.output.comparing import PairedValues
from genevals.output.results import Results, SummaryPart
from genevals.scored import Columns, ScoredBatch
from genevals.stats.ahead import prefetch_summaries
from genevals.types import Sample

def applies(spec: Any) -> bool:
    """Whether ``spec`` is a run this path gives the same files for."""
    selected = list(spec.selected)
    # Results.samples (keep_samples, the API's default) would need a Sample with its contexts per topic
    rows = is_row_file(spec.data) and not spec.ignore_fields  # a retrieval-only row file (rows_columns)
    return ((isinstance(spec.data, TrecSource) or rows) and isinstance(spec.engine, LocalSettings)
            and not spec.output.resume and not spec.output.keep_samples and len(selected) == 1
            and isinstance(selected[0].metric, Retrieval) and columnar.supported(selected[0].metric)
            and not selected[0].metric.needs_prepare)


def run(spec: Any, progress: Callable[[int, int], None] | None = None) -> Results | None:
    """Score ``spec`` from columns and return its Results; None (nothing written) when a file is not clean."""
    with system_pool():
        return _run(spec, progress)


def _run(spec: Any, progress: Callable[[int, int], None] | None) -> Results | None:
    if not isinstance(spec.data, TrecSource):
        return _write(spec, progress, *_from_rows(spec))
    source: TrecSource = spec.data
    # the manifest's digest of every file's bytes, made in a thread while the files are read and scored (hashlib
    # lets the GIL go on large blocks): 0.06 s of blake2b and a third read of a 66 MB run, off the critical path
    digest = _Digest((source.qrels, *source.runs))
    runs = None
    try:
        runs = _read_all(spec, source)
    finally:
        if runs is None:  # a file for the line reader, or an error: the digest is not asked for
            digest.stop()
    if runs is None:
        return None
    done = digest.result()
    done.rows = sum(len(block.topics) for blocks in runs for block, _ in blocks)
    return _write(spec, progress, [str(p) for p in source.runs], source.systems(), runs, done, [None] * len(runs))


def _read_all(spec: Any, source: TrecSource) -> list | None:
    """Every run read and scored against the qrels (nothing written yet), or None when a file is not clean."""
    qrels = read_qrels_columns(source.qrels)
    if qrels is None:
        return None
    judged_by = judgements(qrels)
    del qrels
    systems = source.systems()
    if len(set(systems)) != len(systems):  # the line reader's message names both files
        return None
    sel = spec.selected[0]
    runs = []
    for path in source.runs:  # every file read and scored before anything is written: None still leaves nothing
        got = _scored(path, judged_by, sel.metric)
        if got is None:
            return None
        runs.append(got)
    return runs


def _regular(path: Any) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class _Digest:
    """The line reader's digest of the files' bytes (each file whole, in order), made in a background thread."""

    def __init__(self, paths: Sequence[Any]) -> None:
        import threading

        self._digest = manifest.InputDigest()
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._paths = list(paths)
        self._thread: threading.Thread | None = None
        # only regular files: opening a fifo blocks until a writer comes, and the reader refuses it anyway (the
        # thread would hang the join in stop()); a path that is not one is hashed, if ever, in result()
        if all(_regular(p) for p in self._paths):
            self._thread = threading.Thread(target=self._work, args=(self._paths,), daemon=True)
            self._thread.start()

    def _work(self, paths: list) -> None:
        try:
            for path in paths:
                with open(path, "rb") as handle:
                    while not self._stop.is_set() and (block := handle.read(1 << 20)):
                        self._digest.update(block)
        except BaseException as exc:  # handed to result(): the reader has met the file already
            self._error = exc

    def stop(self) -> None:
        """End the thread at its next block (its digest will not be asked for)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def result(self) -> manifest.InputDigest:
        if self._thread is None:
            self._work(self._paths)
        else:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return self._digest


def _from_rows(spec: Any):
    """A retrieval-only row file as one run (:mod:`genevals.input.rows_columns`): every context kept, as the
    per-sample path writes them; None (for _write) when the file is for the per-sample path."""
    digest = manifest.InputDigest()
    try:
        got = read_rows_columns(spec.data, spec.column_map, digest)
    except NotPlain:
        return (None,) * 5
    digest.rows = len(got.columns.topics)
    blocks = [(got.columns, (False, list(columnar.score_blocks(spec.selected[0].metric, got.columns))))]
    return [got.source], [got.system], [blocks], digest, [(got.questions, got.answers)]


def _write(spec: Any, progress: Callable[[int, int], None] | None, paths: list[str] | None, systems: list[str],
           runs: list, digest: Any, texts: list) -> Results | None:
    """The run folder of the scored ``runs`` (one per path and system; ``texts``: each one's questions and
    answers per topic, or None for empty ones); None when there is nothing (a file for the per-sample path)."""
    if paths is None:
        return None
    sel = spec.selected[0]
    total = digest.rows
    keep = None if sel.outputs is None else sel.keep
    batches = []  # every value is known: the summary's intervals are made while the files are written
    for path, system, blocks, said in zip(paths, systems, runs, texts):
        for ranked, (_, parts) in blocks:
            for topics, cols in parts:
                samples = [Sample(id=ranked.topics[t], answer="", system=system) for t in topics]
                batches.append((path, system, ranked, topics, cols, said, ScoredBatch(samples, [(cols, keep)])))
    _prefetch([batch for *_, batch in batches], spec.output.seed)
    spool = Spool(on_disk=False)
    if spec.before_writing is not None:  # --baseline looks for the run's ids among the plan's samples
        for system, blocks in zip(systems, runs):
            for ranked, _ in blocks:
                for topic in ranked.topics:
                    spool.add(Sample(id=topic, answer="", system=system))
    plan = Plan(spec, total, spool, [], [], digest, [])
    return run_course(plan, lambda plan, n_done: _Parts(batches, runs, keep), progress)


class _Parts(Scoring):
    """The columnar path's scoring: every part is scored already (``batches``); each is written as its lines,
    built from its columns, and counted from its batch. The parts' values stay here, for the paired comparisons
    (:attr:`paired`) and the report (``Results.held``)."""

    def __init__(self, batches: list, runs: list, keep: Any) -> None:
        self.batches, self.runs, self.keep = batches, runs, keep
        self.scored: list[tuple[str, list[Sample], Columns]] = []  # for the paired comparisons, without rereading
        self.records: list[Records] = []  # each part's lines as records, for the report (genevals.report.held)
        self.writes = False
        self.paired = lambda metrics: _paired(self.scored, metrics)

    def write(self, course: Course) -> None:
        recorder = course.recorder
        self.writes = recorder.writer is not None
        if any(cut for blocks in self.runs for _, (cut, _) in blocks):  # the report says so
            recorder.results.meta["contexts_kept"] = {"per_topic": KEPT_CONTEXTS, "note": CONTEXTS_NOTE}
        for path, system, ranked, topics, cols, said, batch in self.batches:
            samples = batch.samples
            self.scored.append((system, samples, cols))
            self.records.append(Records(path, ranked, topics, said))
            part = SummaryPart()
            part.add_batch(batch)
            text = lines(path, system, ranked, topics, cols, self.keep, said) if recorder.writer else None
            recorder.write_done(Done(len(samples), text, part, _corpus(course, system, cols), None))
            course.done(len(samples))

    def finished(self, results: Results, interrupted: bool) -> None:
        if self.writes and not interrupted:  # the report's values, as results.jsonl lists them
            keep = self.keep
            results.held = [(system, [s.id for s in samples], [n for n in cols.names if keep is None or keep(n)],
                             cols, made) for (system, samples, cols), made in zip(self.scored, self.records)]


def _corpus(course: Course, system: str, cols: Columns) -> dict[str, list[tuple[str, Any]]]:
    """The part's corpus statistics (retrieval's unjudged documents past the pool depth), as the per-sample path
    takes them (:func:`genevals.engine.recorder.corpus_statistics`), from the columns' details."""
    from genevals.metrics.retrieval.unjudged import statistics

    return {sel.family: [(system, statistics(d)) for d in cols.details] for sel in course.recorder.corpus_families}


def _prefetch(batches: Sequence[ScoredBatch], seed: int) -> None:
    """Start the summary's bootstrap intervals of every (system, output) in a background thread
    (:func:`genevals.stats.prefetch_summaries`): the summary then takes them, unchanged."""
    columns: dict[tuple[str, str], list[float]] = {}
    for batch in batches:
        for system, _, outputs in batch.columns_by_system() or ():
            for name, values, _ in outputs:
                columns.setdefault((system, name), []).extend(values)
    prefetch_summaries(columns.values(), seed)


def _scored(path: Any, judged_by: Judgements, metric: Retrieval):
    """The run scored a block of topics at a time (:func:`run_blocks`; read whole when its topics are not
    together or it needs tidying), keeping of each block its Columns and each topic's top KEPT_CONTEXTS lines: [(those lines, (whether
    a topic lost some, [(topics, Columns)]))]; None when the file is for the line reader."""
    try:
        return [_kept(block, metric) for block in run_blocks(path, judged_by)]
    except NotClean:
        return None
    except Unsorted:
        whole = read_run_columns(path, judged_by)
        return None if whole is None else [_kept(whole, metric)]


def _kept(ranked: Any, metric: Retrieval):
    cut = bool(len(ranked.starts) > 1 and int(np.diff(ranked.starts).max()) > KEPT_CONTEXTS)
    return ranked.head(KEPT_CONTEXTS), (cut, list(columnar.score_blocks(metric, ranked)))


def _paired(scored: list[tuple[str, list[Sample], Columns]], metrics: Sequence[str]) -> PairedValues:
    """The paired comparisons' values, as :meth:`PairedValues.from_folder` reads them from results.jsonl."""
    paired = PairedValues(metrics)
    if len({system for system, _, _ in scored}) < 2:  # one system: no pair to compare, no values needed
        return paired
    for system, samples, cols in scored:
        wanted = [m for m in paired.metrics if m in cols.values]
        for row, sample in enumerate(samples):
            values = {}
            for m in wanted:
                value = cols.values[m][row]
                if value is not None and math.isfinite(value):
                    values[m] = value
            paired.add(system, sample.id, values)
    return paired
