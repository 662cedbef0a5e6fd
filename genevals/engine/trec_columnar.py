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

import json
import math
import os
import stat
from typing import Any, Callable, Sequence

import numpy as np

from genevals.engine import manifest
from genevals.engine.pipeline import Done
from genevals.engine.plan import Plan, start_run
from genevals.engine.spec import LocalSettings
from genevals.engine.spool import Spool
from genevals.input.trec import TrecSource
from genevals.input.rows_columns import NotPlain, is_row_file, read_rows_columns
from genevals.input.arrow_numpy import booleans, from_numpy, nonzero, repeated
from genevals.input.trec_blocks import NotClean, Unsorted, run_blocks
from genevals.input.trec_columns import Judgements, judgements, read_qrels_columns, read_run_columns, system_pool
from genevals.metrics.retrieval import columnar
from genevals.metrics.retrieval.retrieval import Retrieval
from genevals.output.comparing import PairedValues
from genevals.output.results import Results, SummaryPart
from genevals.scored import Columns, ScoredBatch
from genevals.stats_ahead import prefetch_summaries
from genevals.types import OK, Sample

_dumps = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps's defaults, without its per-call checks

#: retrieved documents a topic's results.jsonl line lists (its "contexts"), from the top. Every metric counts all of
#: them (details.n_retrieved); the whole ranking stays in the run file its "origin" names. Listing all 1,000 of a
#: deep run made a 160 MB results.jsonl that the report then parsed twice: 3.5 of 5.8 seconds at 2,000 topics.
KEPT_CONTEXTS = 20
CONTEXTS_NOTE = (f"Retrieval run read from TREC files: each topic's results.jsonl line and the report list its top "
                 f"{KEPT_CONTEXTS} retrieved documents; every metric counts all of them (details.n_retrieved), "
                 "and the full ranking is in the run file its origin names.")


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
    try:
        recorder, _, _ = start_run(plan)
        writes = recorder.writer is not None
        if any(cut for blocks in runs for _, (cut, _) in blocks):  # the report says so
            recorder.results.meta["contexts_kept"] = {"per_topic": KEPT_CONTEXTS, "note": CONTEXTS_NOTE}
        scored: list[tuple[str, list[Sample], Columns]] = []  # for the paired comparisons, without rereading
        records = []  # each part's lines as records, for the report (genevals.report.held)
        interrupted = withdrawn = False
        try:
            for path, system, ranked, topics, cols, said, batch in batches:
                samples = batch.samples
                scored.append((system, samples, cols))
                records.append(_Records(path, ranked, topics, said))
                part = SummaryPart()
                part.add_batch(batch)
                text = _lines(path, system, ranked, topics, cols, keep, said) if recorder.writer else None
                recorder.write_done(Done(len(samples), text, part, {}, None))
                if progress is not None:
                    progress(len(samples), total)
        except KeyboardInterrupt:  # as the local engine: what was written is summed up
            interrupted = True
            raise
        except BaseException:
            withdrawn = recorder.withdraw()
            raise
        finally:
            if not withdrawn:
                results = recorder.finish(n_input_rows=total, interrupted=interrupted,
                                          paired=lambda metrics: _paired(scored, metrics))
                if writes and not interrupted:  # the report's values, as results.jsonl lists them
                    results.held = [(system, [s.id for s in samples], [n for n in cols.names if keep is None
                                                                        or keep(n)], cols, lines)
                                    for (system, samples, cols), lines in zip(scored, records)]
    finally:
        plan.close()
    return results


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


class _Records:
    """A part's results.jsonl lines as ``json.loads`` reads them back, less the metrics (see
    :func:`genevals.report.held.held_lines`): what :func:`_lines` writes, from the same columns."""

    def __init__(self, path: str, run: Any, topics: range, said: tuple[list[str], list[str]] | None) -> None:
        self.path, self.run, self.topics, self.said = path, run, topics, said

    def __call__(self, positions: Sequence[int], whole: Sequence[bool]) -> list[dict[str, Any]]:
        run, out = self.run, []
        for i, full in zip(positions, whole):
            t = self.topics[i]
            origin = f"{self.path}:{int(run.first_line[t])}"
            if not full:  # the page shows this sample's values only: its id and origin are all it reads
                out.append({"id": run.topics[t], "origin": origin})
                continue
            lo, hi = int(run.starts[t]), int(run.starts[t + 1])
            if self.said is None:  # a TREC run: the top KEPT_CONTEXTS, with their scores
                hi = min(hi, lo + KEPT_CONTEXTS)
                scores = run.scores[lo:hi].tolist()
            else:
                scores = [None] * (hi - lo)
            contexts = [{"text": "", "rank": rank, "id": doc, "doc_id": None, "score": score}
                        for rank, (doc, score) in enumerate(zip(run.docs.slice(lo, hi - lo).to_pylist(), scores), 1)]
            labels = run.labels[t]
            out.append({"id": run.topics[t], "question": "" if self.said is None else self.said[0][t],
                        "answer": "" if self.said is None else self.said[1][t], "contexts": contexts,
                        "references": [], "relevant": None if labels is None else dict(zip(labels[0],
                                                                                          labels[1].tolist())),
                        "origin": origin})
        return out


def _lines(path: str, system: str, run: Any, topics: range, cols: Columns, keep: Callable[[str], bool] | None,
           said: tuple[list[str], list[str]] | None = None) -> str:
    """The results.jsonl lines of ``topics``, as ``json.dumps(SampleResult.to_dict())`` writes them; ``said``:
    each topic's question and answer (a row file's), else empty (a TREC run's) with scored contexts."""
    contexts = _contexts(run, topics, row_file=said is not None)
    names = [(name, _dumps(name)) for name in cols.names if keep is None or keep(name)]
    system_part = f', "system": {_dumps(system)}'
    head = f'{system_part}, "question": "", "answer": "", "contexts": ['
    out = []
    for row, t in enumerate(topics):
        if said is not None:
            head = (f'{system_part}, "question": {_dumps(said[0][t])}, "answer": {_dumps(said[1][t])}, '
                    f'"contexts": [')
        labels = run.labels[t]
        relevant = "null" if labels is None else _dumps(dict(zip(labels[0], labels[1].tolist())))
        origin = _dumps(f"{path}:{int(run.first_line[t])}")
        out.append(f'{{"id": {_dumps(run.topics[t])}{head}{contexts[row]}], "references": [], '
                   f'"relevant": {relevant}, "origin": {origin}, "metrics": {_metrics(cols, names, row)}}}\n')
    return "".join(out)


def _metrics(cols: Columns, names: list[tuple[str, str]], row: int) -> str:
    """``names``: (name, name as JSON)."""
    details = cols.details[row]
    tail = f', "details": {_dumps(details)}}}' if details else "}"
    parts = []
    for name, key in names:
        statuses = cols.statuses[name]
        if statuses is None or statuses[row] == OK:
            value = cols.values[name][row]
            # a finite float as json writes it (its repr), without the encoder's call per value
            shown = repr(value) if type(value) is float and math.isfinite(value) else _dumps(value)
            parts.append(f'{key}: {{"value": {shown}, "status": "ok"{tail}')
        else:
            parts.append(f'{key}: {{"value": null, "status": {_dumps(statuses[row])}, '
                         f'"reason": {_dumps(cols.reasons[name][row])}{tail}')
    return "{" + ", ".join(parts) + "}"


def _contexts(run: Any, topics: range, row_file: bool = False) -> list[str]:
    """Each topic's first KEPT_CONTEXTS contexts as JSON (``Context.to_dict()`` of each, in rank order, joined),
    made in pyarrow; with ``row_file``, all of them and without scores (a row file's ``{"id": ID}`` contexts)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    starts = run.starts[topics.start:topics.stop + 1]
    kept = np.diff(starts) if row_file else np.minimum(np.diff(starts), KEPT_CONTEXTS)
    offsets = np.concatenate(([0], np.cumsum(kept)))
    ranks = np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], kept)  # 0-based rank within the topic
    rows = np.repeat(starts[:-1], kept) + ranks
    ranks += 1
    docs = run.docs.take(from_numpy(rows))
    n = len(docs)
    if len(nonzero(pc.match_substring_regex(docs, r'["\\\x00-\x1f]'))):
        ids = pa.array([_dumps(d) for d in docs.to_pylist()], pa.string())
    else:
        ids = pc.binary_join_element_wise(repeated('"', n), docs, repeated('"', n), repeated("", n))
    # literals as arrays (repeated): a Python string given to pyarrow.compute makes pyarrow import pandas
    row = pc.binary_join_element_wise(repeated('{"text": "", "rank": ', n), pc.cast(from_numpy(ranks), pa.string()),
                                      repeated(', "id": ', n), ids, repeated(', "doc_id": null, "score": ', n),
                                      repeated("null", n) if row_file else _floats(run.scores[rows]), repeated("}", n),
                                      repeated("", n))
    if isinstance(row, pa.ChunkedArray):
        row = row.combine_chunks()
    joined = pc.binary_join(pa.ListArray.from_arrays(from_numpy(offsets.astype(np.int32)), row), repeated(", ", len(kept)))
    return joined.to_pylist()


#: floats whose shortest form pyarrow writes as Python's repr does: not whole, and between 1e-4 and 1e15 (Python
#: and pyarrow switch to an exponent at other magnitudes, and pyarrow writes 2.0 as "2")
_PLAIN = (1e-4, 1e15)


def _floats(values: np.ndarray):
    """``repr`` of each float (what json.dumps writes), as a pyarrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    size = np.abs(values)
    whole = (values == np.trunc(values)) & (size < 1e15) & ~((values == 0) & np.signbit(values))
    plain = (size >= _PLAIN[0]) & (size < _PLAIN[1]) & ~whole
    n = len(values)
    text = pc.if_else(booleans(whole), pc.binary_join_element_wise(
        pc.cast(from_numpy(np.where(whole, values, 0).astype(np.int64)), pa.string()), repeated(".0", n),
        repeated("", n)), pc.cast(from_numpy(values.astype(np.float64)), pa.string()))
    odd = np.flatnonzero(~(whole | plain))
    if len(odd):  # tiny, huge or -0.0: Python's own repr, one by one (rare in a run file)
        fixed = text.to_pylist()
        for i in odd.tolist():
            fixed[i] = repr(float(values[i]))
        text = pa.array(fixed, pa.string())
    return text
