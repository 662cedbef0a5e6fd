"""A TREC run read a block of topics at a time, so that memory stays flat in the number of topics.

A run file sorted by topic (each topic's lines together, in any topic order: what retrieval systems write) is read
with pyarrow's streaming CSV reader and handed on in blocks of whole topics, about STREAM_ROWS lines each, each
ranked and joined with the qrels by :func:`genevals.input.trec_columns.rank_columns`. The last topic of a block may
go on in the next one, so it is held back until its lines end.

Two files are not streamed:
  * one whose topics are not together (a topic's lines come back after another topic's): :class:`Unsorted` is
    raised at the first such topic, and the caller reads the file whole (:func:`read_run_columns`), sorting it in
    memory, which then grows with the file;
  * one that needs tidying (tabs, runs of spaces): tidying holds the file's bytes whole anyway (:class:`Tidy`, an
    Unsorted: the caller reads it whole the same way).
Anything the line reader would read differently raises :class:`NotClean` (as ``read_run_columns`` returns None):
the caller then goes to the line reader, which names the line. The caller keeps what it needs from each block and
writes only once the generator is done: a bad line, or the verdict of the file's check (which runs beside the
reading, :func:`run_blocks`), may still come after the last block.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np

from genevals.input.arrow_numpy import nonzero, to_numpy
from genevals.input.source import open_file
from genevals.input.trec_check import scan
from genevals.input.trec_columns import (RUN_COLUMNS, Judgements, TrecColumns, _numpy, csv_options,
                                         rank_columns)

#: lines per block (a topic longer than this makes its block longer): some 8 MB of columns; at 2,000 x 1,000 the
#: command peaked at 255 MB with it, 283 MB with 2^18 and 370 MB with 2^20
STREAM_ROWS = 1 << 16


class NotClean(Exception):
    """The file is for the line reader (see :mod:`genevals.input.trec_columns`)."""


class Unsorted(Exception):
    """A topic's lines are not together: the file is read whole instead."""


def run_blocks(path: str | Path, judged_by: Judgements, rows: int = STREAM_ROWS) -> Iterator[TrecColumns]:
    """The run's topics in blocks, in file order; raises :class:`NotClean`, :class:`Unsorted` or :class:`Tidy`
    (see the module).

    The file's check (:func:`genevals.input.trec_check.scan`: whether it reads as it is) runs in a thread while
    the blocks are parsed and ranked (numpy, pyarrow and the file reads let the GIL go), so its verdict comes at
    the end: after the last block, or at the first error, one of the exceptions may still be raised, and the
    caller must keep nothing of the blocks until the generator is done (as it must anyway: a bad line may come
    last). 0.08 s of a 2-million-line run off the critical path."""
    with open_file(path, "--run"):  # a folder or a fifo refused here, as the line reader refuses it, not read
        pass
    check = _Check(path)
    try:
        yield from _stream(path, judged_by, rows)
    except Exception:
        check.verdict()  # the check's own error (a folder...), NotClean or Tidy first: as when it ran first
        raise
    finally:
        check.join()
    check.verdict()


class Tidy(Unsorted):
    """The file needs tidying (tabs, runs of spaces): read whole instead, as an unsorted one is."""


class _Check:
    """:func:`scan` of the run in a background thread; :meth:`verdict` raises what its verdict calls for."""

    def __init__(self, path: str | Path) -> None:
        import threading

        self._path = path
        self._how: str | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        try:
            self._how = scan(self._path, "--run")
        except BaseException as exc:  # raised in the reading thread by verdict()
            self._error = exc

    def join(self) -> None:
        self._thread.join()

    def verdict(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._how is None:
            raise NotClean(str(self._path))
        if self._how == "tidied":
            raise Tidy(str(self._path))


def _stream(path: str | Path, judged_by: Judgements, rows: int) -> Iterator[TrecColumns]:
    """The blocks of a file that reads as it is (see :func:`run_blocks`)."""
    import pyarrow as pa
    from pyarrow import csv

    done: set[str] = set()
    pending: list = []
    held = first_row = 0
    try:
        reader = csv.open_csv(str(path), **csv_options(RUN_COLUMNS, "score"))
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                break
            pending.append(batch)
            held += batch.num_rows
            if held < rows:
                continue
            table = pa.Table.from_batches(pending)
            topic = table["topic"].combine_chunks()
            cut = _last_topic(topic)
            if cut == 0:  # one topic so far: wait for its end
                continue
            # the block's columns as single arrays, and the batches let go (but the last topic's): held once
            columns = (topic.slice(0, cut), table["doc"].slice(0, cut).combine_chunks(),
                       _numpy(table["score"].slice(0, cut)))
            pending, held = table.slice(cut).to_batches(), table.num_rows - cut
            del table, topic
            yield _block(*columns, judged_by, first_row, done)
            del columns
            first_row += cut
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        raise NotClean(str(path)) from None
    if held:
        table = pa.Table.from_batches(pending)
        del pending
        yield _block(table["topic"].combine_chunks(), table["doc"].combine_chunks(), _numpy(table["score"]),
                     judged_by, first_row, done)
    elif first_row == 0:
        raise NotClean(str(path))  # no line: the line reader says so


def _last_topic(topic) -> int:
    """Where the last topic's lines begin (0: every line is one topic's)."""
    import pyarrow.compute as pc

    changes = nonzero(pc.not_equal(topic.slice(1), topic.slice(0, len(topic) - 1)))
    return int(changes[-1]) + 1 if len(changes) else 0


def _block(topic, docs, scores: np.ndarray, judged_by: Judgements, first_row: int, done: set[str]) -> TrecColumns:
    """One block of whole topics, ranked; ``done``: the topics of earlier blocks (a topic met again is Unsorted)."""
    import pyarrow.compute as pc

    if not np.isfinite(scores).all():
        raise NotClean("score")
    encoded = pc.dictionary_encode(topic)  # codes in first-appearance order, handed on to rank_columns
    names = encoded.dictionary.to_pylist()
    codes = to_numpy(encoded.indices)
    together = int(np.count_nonzero(codes[1:] != codes[:-1])) + 1 == len(names)
    if not together or not done.isdisjoint(names):
        raise Unsorted(names[0])
    done.update(names)
    ranked = rank_columns(encoded, docs, scores, judged_by, first_row)
    if ranked is None:
        raise NotClean("a document twice")
    return ranked
