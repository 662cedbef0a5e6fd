"""TREC qrels and run files read straight into columns (pyarrow's CSV reader, space-delimited), for the columnar
retrieval path: no Python object per line, and no Python loop over lines.

Only a clean file takes this way: columns apart by spaces or tabs, no blank or comment line, every score or grade
a finite number, every grade in range, every id valid UTF-8, no document listed twice for one topic. Anything else
(a comment or blank line, a bad number, a repeated document) returns None, and the caller reads the file with :mod:`genevals.input.trec`'s line
reader, which names each bad line; so an error reads exactly as it did before this path existed.

A run's order is trec_eval's, as :func:`genevals.input.trec.trec_order` gives it: per topic, score descending,
then document id descending in byte order (pyarrow compares strings as bytes). Topics keep the order in which the
run file first names them, the order the line reader gives them in.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from genevals.input.arrow_numpy import from_numpy, to_numpy
from genevals.input.rows import MAX_GRADE, MIN_GRADE
from genevals.input.trec import MAX_LINE
from genevals.input.trec_check import scan, tidied

QRELS_COLUMNS = ("topic", "iteration", "doc", "grade")
RUN_COLUMNS = ("topic", "q0", "doc", "rank", "score", "tag")




@contextlib.contextmanager
def system_pool():
    """pyarrow's allocations inside the block from the C library's malloc, not mimalloc (pyarrow's default): the
    hash tables and sort buffers of a 2-million-line run are freed at once, and malloc hands such large blocks back
    to the system where mimalloc keeps them (40-50 MB more at the peak). Each buffer is freed by its own pool."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())  # before pyarrow's default pool is asked for: making it costs too
    try:
        yield
    finally:
        pa.set_memory_pool(_default_pool())


def _default_pool():
    """The pool pyarrow would have chosen (ARROW_DEFAULT_MEMORY_POOL, else mimalloc, jemalloc, system)."""
    import pyarrow as pa

    named = os.environ.get("ARROW_DEFAULT_MEMORY_POOL", "")
    for name in (named, "mimalloc", "jemalloc"):
        try:
            return getattr(pa, f"{name}_memory_pool")()
        except (AttributeError, NotImplementedError, pa.ArrowException):
            continue
    return pa.system_memory_pool()


def csv_options(names: tuple[str, ...], number: str) -> dict:
    """pyarrow's CSV reader options for a TREC file: space-delimited, no quoting, the topic, doc and ``number``
    columns only. One thread: as fast on two cores, and no buffers per thread. A row must fit in a block, so a
    line longer than the line reader's MAX_LINE fails here and goes to the line reader, which refuses it."""
    import pyarrow as pa
    from pyarrow import csv

    return {"read_options": csv.ReadOptions(column_names=list(names), use_threads=False, block_size=MAX_LINE),
            "parse_options": csv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False),
            "convert_options": csv.ConvertOptions(
                column_types={"topic": pa.string(), "doc": pa.string(), number: pa.float64()},
                include_columns=["topic", "doc", number], strings_can_be_null=False,
                quoted_strings_can_be_null=False, null_values=[])}


def _read(path: str | Path, names: tuple[str, ...], number: str, what: str):
    """The file's topic, doc and ``number`` columns as a pyarrow table, or None when it is not clean."""
    import pyarrow as pa
    from pyarrow import csv

    how = scan(path, what)
    data = tidied(path) if how == "tidied" else None
    if how is None or (how == "tidied" and data is None):
        return None
    try:
        table = csv.read_csv(pa.BufferReader(data) if data is not None else str(path), **csv_options(names, number))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None
    del data
    values = _numpy(table[number])
    if table.num_rows == 0 or not np.isfinite(values).all():
        return None
    if number == "grade" and not ((values >= MIN_GRADE) & (values <= MAX_GRADE)).all():
        return None
    return table


def _numpy(column) -> np.ndarray:
    """A numeric pyarrow column (no nulls) as one numpy array."""
    return to_numpy(column)


@dataclass
class TrecColumns:
    """One run, ranked and joined with the qrels, as flat columns grouped by topic (trec_eval's order inside each).

    ``topics``: the run's topic ids in first-appearance order; ``starts``: where each topic's lines begin in the
    ranked columns (one more entry: the end); ``scores`` and ``grades`` (0 where unjudged) and ``judged`` (bool)
    per ranked line; ``docs`` (pyarrow strings) per ranked line, or, with ``doc_order``, in the file's order, the
    ranked line i's being ``docs[doc_order[i]]`` (a run's ranked documents are needed only at the top of each
    topic: :meth:`head` takes those alone, not all 2 million); ``first_line``: each topic's first line in the file
    (1-based). ``labels``: per topic, the judged docs and grades in qrels file order (a judged-twice doc keeps
    its last grade), or None where the qrels have no judgement for the topic."""

    topics: list[str]
    starts: np.ndarray
    docs: object
    scores: np.ndarray
    grades: np.ndarray
    judged: np.ndarray
    first_line: np.ndarray
    labels: list[tuple[list[str], np.ndarray] | None]
    doc_order: np.ndarray | None = None

    def head(self, k: int) -> "TrecColumns":
        """The same topics with only their first ``k`` ranked lines each (their documents in ranked order)."""

        kept = np.minimum(np.diff(self.starts), k)
        starts = np.concatenate(([0], np.cumsum(kept)))
        rows = np.repeat(self.starts[:-1], kept) + np.arange(int(starts[-1])) - np.repeat(starts[:-1], kept)
        at = rows if self.doc_order is None else self.doc_order[rows]
        return TrecColumns(self.topics, starts, self.docs.take(from_numpy(at)), self.scores[rows],
                           self.grades[rows], self.judged[rows], self.first_line, self.labels)


def _trec_order(topic: np.ndarray, score: np.ndarray, docs) -> np.ndarray | None:
    """The rows in trec_eval's order: by topic, score descending, then document id descending (bytes); None when
    they are in it already. Sorted on the numbers first (a string sort of every row costs several times more);
    only rows tied on (topic, score), a few in most runs, are then put in document order."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _in_trec_order(topic, score):  # as most systems write their runs: no sort at all
        order, t, s = None, topic, score
    else:
        order = np.lexsort((-score, topic))
        t, s = topic[order], score[order]
    tied = np.flatnonzero((t[1:] == t[:-1]) & (s[1:] == s[:-1]))
    if not len(tied):
        return order
    if order is None:
        order = np.arange(len(topic))
    # each run of tied rows is a group; its positions are re-filled with its rows in document order
    # the tied rows and the rows they tie with, in order (np.unique would import numpy.ma: 8 ms of every run)
    marked = np.zeros(len(order), dtype=bool)
    marked[tied] = True
    marked[tied + 1] = True
    at = np.flatnonzero(marked)
    follows = np.zeros(len(order), dtype=bool)  # tied with the row before it
    follows[tied + 1] = True
    group = np.cumsum(~follows[at])
    rows = order[at]
    resorted = to_numpy(pc.sort_indices(pa.Table.from_arrays([from_numpy(group), docs.take(from_numpy(rows))],
                                                              names=["g", "d"]),
                                        sort_keys=[("g", "ascending"), ("d", "descending")]))
    order[at] = rows[resorted]
    return order


def _repeats(topic: np.ndarray, docs) -> bool:
    """Whether a document comes twice for one topic. Each line's (topic, document) is hashed in numpy, the hashes
    sorted, and only lines whose hashes meet are compared as strings."""

    key = _hashes(docs) ^ (topic.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    ordered = np.sort(key)
    met = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(met):
        return False
    rows = np.flatnonzero(np.isin(key, met))
    pairs = list(zip(topic[rows].tolist(), docs.take(from_numpy(rows)).to_pylist()))
    return len(set(pairs)) < len(pairs)


#: the hash's base (FNV's 64-bit prime: odd, so it has an inverse modulo 2^64) and that inverse
_BASE = 1099511628211
_TABLES: list[np.ndarray] = []


def _powers(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The base's powers 0..n-1 and its inverse's, modulo 2^64, and a buffer of n for the running sums (made
    once, grown as needed)."""
    if not _TABLES or len(_TABLES[0]) < n:
        _TABLES[:] = []
        for base in (_BASE, pow(_BASE, -1, 1 << 64)):
            table = np.ones(n, dtype=np.uint64)
            np.cumprod(np.full(n - 1, base, dtype=np.uint64), out=table[1:])
            _TABLES.append(table)
        _TABLES.append(np.zeros(n, dtype=np.uint64))
    return _TABLES[0], _TABLES[1], _TABLES[2]


def _hashes(docs, chunk: int = 1 << 19) -> np.ndarray:
    """A 64-bit polynomial hash of each string of a pyarrow string array (plus its length), from its offsets and
    bytes: one running sum of byte * base^position over ``chunk`` bytes at a time, and each string's hash the
    difference of the sums at its ends times base^-start (the base is odd, so invertible modulo 2^64). Four passes
    over the bytes, against seven when each byte's power within its string is gathered (0.18 s to 0.03 s over a
    2-million-line run's document ids)."""
    import pyarrow as pa

    wide = pa.types.is_large_string(docs.type)
    buffers = docs.buffers()
    offsets = np.frombuffer(buffers[1], np.int64 if wide else np.int32)[docs.offset:docs.offset + len(docs) + 1]
    offsets = offsets.astype(np.int64)
    data = np.frombuffer(buffers[2], np.uint8) if buffers[2] is not None else np.zeros(0, np.uint8)
    out = np.empty(len(docs), dtype=np.uint64)
    first = 0
    with np.errstate(over="ignore"):
        while first < len(docs):
            # the strings that start within ``chunk`` bytes of this one (at least one, however long)
            last = max(int(np.searchsorted(offsets, offsets[first] + chunk, side="right")) - 1, first + 1)
            last = min(last, len(docs))
            base = int(offsets[first])
            ends = offsets[first:last + 1] - base
            size = int(ends[-1])
            powers, inverse, running = _powers(max(size, chunk) + 1)  # made once: no fresh pages a chunk
            running[0] = 0
            np.multiply(data[base:base + size], powers[:size], out=running[1:size + 1])
            np.cumsum(running[1:size + 1], out=running[1:size + 1])
            out[first:last] = ((running[ends[1:]] - running[ends[:-1]]) * inverse[ends[:-1]]
                               + np.diff(ends).astype(np.uint64))
            first = last
    return out


def _in_trec_order(topic: np.ndarray, score: np.ndarray) -> bool:
    """Whether the rows already come by topic (codes ascending: each topic's lines together) and by score
    descending within each topic (ties aside)."""
    step = np.diff(topic)
    return bool((step >= 0).all() and ((step > 0) | (score[1:] <= score[:-1])).all())


def read_qrels_columns(path: str | Path):
    """The qrels as a table (topic, doc, grade), or None when not clean (see the module)."""
    return _read(path, QRELS_COLUMNS, "grade", "--qrels")


def read_run_columns(path: str | Path, qrels) -> TrecColumns | None:
    """The whole run ranked and joined with ``qrels`` (:func:`read_qrels_columns`' table, or its
    :class:`Judgements`), or None when not clean. :func:`genevals.input.trec_blocks.run_blocks` reads it a block of
    topics at a time instead."""
    run = _read(path, RUN_COLUMNS, "score", "--run")
    if run is None:
        return None
    topic, docs, scores = run["topic"].combine_chunks(), run["doc"].combine_chunks(), _numpy(run["score"])
    del run  # the columns as single arrays, and the table let go: the file's data is then held once
    return rank_columns(topic, docs, scores, qrels if isinstance(qrels, Judgements) else judgements(qrels))


@dataclass
class Judgements:
    """The qrels, prepared once for any number of runs and blocks: ``topics`` (their ids, pyarrow), and per topic
    code t its lines ``rows[bounds[t]:bounds[t + 1]]`` in file order; ``docs`` and ``grades`` per qrels line."""

    topics: object
    bounds: np.ndarray
    rows: np.ndarray
    docs: object
    grades: np.ndarray


def judgements(qrels) -> Judgements:
    import pyarrow.compute as pc

    codes = pc.dictionary_encode(qrels["topic"].combine_chunks())
    code = to_numpy(codes.indices).astype(np.int64)
    rows = np.argsort(code, kind="stable")
    bounds = np.searchsorted(code[rows], np.arange(len(codes.dictionary) + 1))
    return Judgements(codes.dictionary, bounds, rows, qrels["doc"].combine_chunks(),
                      _numpy(qrels["grade"]).astype(np.float64))


def rank_columns(topic, docs, scores: np.ndarray, judged_by: Judgements, first_row: int = 0) -> TrecColumns | None:
    """Lines of a run (``topic`` and ``docs`` pyarrow strings, ``scores``) ranked and joined with the qrels; None
    when a document comes twice for a topic. ``first_row``: the file line (0-based) of the first of them.
    ``topic`` may come dictionary-encoded already (pyarrow's ``dictionary_encode``: codes in first-appearance
    order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(scores)
    # codes in first-appearance order (the order the line reader gives topics in); a qrels-only topic has none
    topic_codes = topic if pa.types.is_dictionary(topic.type) else pc.dictionary_encode(topic)
    del topic
    run_topic = to_numpy(topic_codes.indices).astype(np.int64)
    if _repeats(run_topic, docs):  # a document twice for a topic: the line reader names the line
        return None
    n_topics = int(run_topic.max()) + 1
    names = topic_codes.dictionary.slice(0, n_topics)
    # the qrels lines of these topics, by topic, each in file order
    at_qrels = to_numpy(pc.index_in(names, value_set=judged_by.topics), null=-1).astype(np.int64)
    lo = np.where(at_qrels >= 0, judged_by.bounds[np.maximum(at_qrels, 0)], 0)
    counts = np.where(at_qrels >= 0, judged_by.bounds[np.maximum(at_qrels, 0) + 1], 0) - lo
    offsets = np.concatenate(([0], np.cumsum(counts)))
    picked = judged_by.rows[np.repeat(lo - offsets[:-1], counts) + np.arange(int(offsets[-1]))]
    qrels_topic = np.repeat(np.arange(n_topics), counts)
    qrels_docs = judged_by.docs.take(from_numpy(picked))
    grade_of = judged_by.grades[picked]
    # each run line's document as a code among these topics' judged documents (-1: not judged): their few ids
    # are hashed, not the run's million (pyarrow's dictionary of a run's documents took 0.7 s of 2)
    judged_docs = pc.dictionary_encode(qrels_docs)
    width = max(len(judged_docs.dictionary), 1)
    run_doc = to_numpy(pc.index_in(docs, value_set=judged_docs.dictionary), null=-1).astype(np.int64)
    run_key = np.where(run_doc >= 0, run_topic * width + run_doc, -1)
    del run_doc
    # each (topic, doc) pair's last grade (a doc judged twice)
    qrels_key = qrels_topic * width + to_numpy(judged_docs.indices).astype(np.int64)
    last = len(qrels_key) - 1 - np.unique(qrels_key[::-1], return_index=True)[1]
    keys, last_grade = qrels_key[last], grade_of[last]
    at = np.minimum(np.searchsorted(keys, run_key), max(len(keys) - 1, 0))
    judged = (keys[at] == run_key) & (run_key >= 0) if len(keys) else np.zeros(n, dtype=bool)
    grades = np.where(judged, last_grade[at], 0.0) if len(keys) else np.zeros(n)
    del run_key, at

    order = _trec_order(run_topic, scores, docs)
    topic_sorted = run_topic if order is None else run_topic[order]
    starts = np.concatenate(([0], np.cumsum(np.bincount(topic_sorted, minlength=n_topics))))
    # codes are handed out in first-appearance order: a topic's first row is where the running maximum grows
    first_line = np.flatnonzero(np.diff(np.maximum.accumulate(run_topic), prepend=-1) > 0)
    if order is not None:  # the documents stay in file order (doc_order): only the kept top ones are taken
        scores, grades, judged = scores[order], grades[order], judged[order]
    return TrecColumns(names.to_pylist(), starts, docs, scores, grades, judged, first_line + 1 + first_row,
                       _labels(qrels_docs.to_pylist(), grade_of, offsets), doc_order=order)


def _labels(docs: list[str], grades: np.ndarray, offsets: np.ndarray) -> list[tuple[list[str], np.ndarray] | None]:
    """Per run topic, its judgements in file order (each doc once, at its first line, with its last grade)."""
    out: list[tuple[list[str], np.ndarray] | None] = []
    values = grades.tolist()
    for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        if lo == hi:
            out.append(None)
            continue
        # a doc judged twice: written where first judged (a dict keeps its first key's place), with the last grade
        labels = dict(zip(docs[lo:hi], values[lo:hi]))
        out.append((list(labels), np.fromiter(labels.values(), dtype=np.float64, count=len(labels))))
    return out
