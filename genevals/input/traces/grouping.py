"""Spans (OpenInference) or runs (LangSmith) grouped by trace: a trace's pieces may lie anywhere in its export,
so no trace is complete before the last record is read. The pieces wait as compact records (only what a row
needs, marshalled to bytes), and beyond :data:`BUDGET` bytes in a temporary SQLite file, so importing an export
holds about as much memory as reading the same rows from JSON Lines, whatever its size."""
from __future__ import annotations

import marshal
import re
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.records import Located, records

#: bytes of waiting pieces held in memory; more go to a temporary file
BUDGET = 16 << 20
#: the key under which a reader's row holds its trace link, (trace id, span id), taken off into RawRow.trace
LINK = "_trace"
_TRACE_ID, _SPAN_ID = re.compile(r"[0-9a-f]{32}"), re.compile(r"[0-9a-f]{16}")


def link(trace: Any, span: Any) -> tuple[str, str | None] | None:
    """(trace id, span id or None) as OpenTelemetry writes them (32 and 16 hex digits, lower case), when
    ``trace`` is one: an id of another shape (a Langfuse or LangSmith id of its own) links to no OpenTelemetry
    trace. An all-zero id is OpenTelemetry's "invalid"."""
    trace = trace.lower() if isinstance(trace, str) else None
    if trace is None or not _TRACE_ID.fullmatch(trace) or not trace.strip("0"):
        return None
    span = span.lower() if isinstance(span, str) else None
    return trace, span if span is not None and _SPAN_ID.fullmatch(span) and span.strip("0") else None


class _Waiting:
    """Pieces (NamedTuples of ``piece_type``, with ``trace``) by trace, in the order traces first appear."""

    def __init__(self, piece_type: type) -> None:
        self.piece_type = piece_type
        self.order: dict[str, int] = {}
        self.held: dict[int, list[bytes]] = {}
        self.size = 0
        self.db: sqlite3.Connection | None = None
        self.no_disk = False

    def add(self, pieces: list) -> None:
        for piece in pieces:
            number = self.order.setdefault(piece.trace, len(self.order))
            blob = marshal.dumps(tuple(piece))
            self.held.setdefault(number, []).append(blob)
            self.size += len(blob) + 64
        if self.size > BUDGET:
            self._spill()

    def _spill(self) -> None:
        if self.no_disk:
            return
        try:
            if self.db is None:
                self.db = sqlite3.connect("")  # "": a private temporary file, removed when closed
                self.db.execute("CREATE TABLE piece (trace INTEGER, blob BLOB)")
            with self.db:  # all of them or, rolled back, none
                self.db.executemany("INSERT INTO piece VALUES (?, ?)",
                                    ((number, blob) for number, blobs in self.held.items() for blob in blobs))
        except sqlite3.Error:  # no temporary file to be had (TMPDIR full or read-only): they wait in memory
            self.no_disk = True
            return
        self.held, self.size = {}, 0

    def traces(self) -> Iterator[tuple[str, list]]:
        if self.db is not None:
            self._spill()
            try:
                self.db.execute("CREATE INDEX by_trace ON piece (trace)")
            except sqlite3.Error:
                pass  # read without it, slower
        for trace, number in self.order.items():
            blobs = self.held.pop(number, [])
            if self.db is not None:
                blobs = [blob for (blob,) in self.db.execute(
                    "SELECT blob FROM piece WHERE trace = ? ORDER BY rowid", (number,))] + blobs
            yield trace, [self.piece_type._make(marshal.loads(blob)) for blob in blobs]

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


def by_trace(path: str | Path, digest: Any, what: str, pieces: Callable[[Any, str, int, str | None], Iterable[Any]],
             sample: Callable[[str, list, str, str | None], dict[str, Any]], system_from: str | None,
             piece_type: type) -> Iterator[RawRow | InputError]:
    """One row per trace, in the order the traces' first pieces appear: ``pieces(record, source, line,
    system_from)`` gives a record's spans or runs (``piece_type`` NamedTuples, each with its ``trace`` and
    ``line``), ``sample(trace, its pieces, source, system_from)`` the trace's row, on the line of its first piece;
    located errors for what cannot be read (a record with one bad piece gives none)."""
    source = str(path)
    waiting = _Waiting(piece_type)
    try:
        for record in records(path, digest, what):
            if isinstance(record, InputError):
                yield record
                continue
            line, value = record
            try:
                waiting.add(list(pieces(value, source, line, system_from)))
            except Located as exc:
                yield exc
        for trace, found in waiting.traces():
            try:
                row = sample(trace, found, source, system_from)
            except Located as exc:
                yield exc
                continue
            yield RawRow(source, min(piece.line for piece in found), row, trace=row.pop(LINK, None))
    finally:
        waiting.close()
