"""Readers: JSONL, CSV, Parquet, DataFrame or list of dicts -> validated ``Sample`` objects.

Every problem becomes an ``InputError`` naming the file, the line (1-based; for CSV the header is line 1) and
the field. Readers stream: rows are yielded one at a time so a 100,000-row file is never held whole. This module
owns the input file formats; checking one row is :mod:`genevals.input.rows`' (its names are re-exported here).
"""
from __future__ import annotations

import csv
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

from genevals import utf8
from genevals.quote import quoted

from genevals.conversations.history import HISTORY_TOKENS
from genevals.input import conversation_rows, kinds, mapping, paths
from genevals.input.fields import FieldTracker
from genevals.input.source import RowSource
from genevals.input.rows import (  # noqa: F401  (re-exported: genevals.input.readers is where callers have always found them)
    ALIASES,
    KNOWN_FIELDS,
    MAX_GRADE,
    MIN_GRADE,
    InputError,
    RawRow,
    RowValidator,
)
from genevals.types import Sample

# ---------------------------------------------------------------- raw rows

def _read_jsonl(path: Path, handle: BinaryIO) -> Iterator[RawRow | InputError]:
    source = str(path)
    for line_no, raw in enumerate(handle, start=1):
        row = jsonl_row(source, line_no, raw)
        if row is not None:
            yield row


def jsonl_row(source: str, line_no: int, raw: bytes) -> RawRow | InputError | None:
    """One JSONL line as a row, an error, or None for a blank line (worker processes parse lines with it too)."""
    try:
        # a UTF-8 byte order mark (what Windows editors write) opens the file, as CSV already allows
        text = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        return InputError(source, line_no, None, f"invalid UTF-8 at byte {exc.start}")
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return InputError(source, line_no, None, f"malformed JSON: {exc.msg} (column {exc.colno})")
    except ValueError as exc:  # an integer longer than sys.get_int_max_str_digits() digits
        return InputError(source, line_no, None, f"malformed JSON: {exc}")
    except RecursionError:
        return InputError(source, line_no, None, "malformed JSON: nested too deeply")
    # Only a \udXXX escape decodes to a lone surrogate (strict UTF-8 decoding refuses encoded ones): look for
    # one anywhere in the row, ignored fields and field names included, only on lines that hold such an escape.
    if utf8.SURROGATE_ESCAPE.search(raw):
        try:
            found = utf8.find(data)
        except RecursionError:
            return InputError(source, line_no, None, "malformed JSON: nested too deeply")
        if found is not None:
            return InputError(source, line_no, utf8.shown(found[0]) or None, f"invalid Unicode: {found[1]}")
    return RawRow(source, line_no, data)


class _CsvLines:
    """A CSV file's lines for :func:`csv.reader`, remembering what the reader cannot: the line each record starts
    on, the lines that are not valid UTF-8, whether the file ended inside a record, and the record's text.

    Lines are split at "\\n" so that line numbers are those an editor shows; a lone "\\r" (old Mac line ends)
    also ends a line for the csv module, as it does in a file opened with ``newline=""``, so such a line is
    handed over in pieces that share its number. Bad UTF-8 is decoded with ``surrogateescape`` so the quoting
    around it still parses, and the record holding it is refused at the bad line.
    """

    def __init__(self, handle) -> None:
        self.handle = handle
        self.line = 0  # the line of the piece handed over last
        self.start: int | None = None  # the line the current record starts on
        self.pieces: list[str] = []  # the current record's text
        self.bad: list[tuple[int, int]] = []  # (line, byte offset) of invalid UTF-8, in order
        self.exhausted = False

    def __iter__(self) -> Iterator[str]:
        for raw in self.handle:
            self.line += 1
            try:
                text = raw.decode("utf-8-sig" if self.line == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                self.bad.append((self.line, exc.start))
                text = raw.decode("utf-8", "surrogateescape")
            # a lone "\r" inside the line, not the "\r\n" that ends it: split there
            pieces = [text] if text.count("\r") <= text.endswith("\r\n") else _LINE_PIECES.findall(text)
            for piece in pieces:
                if self.start is None:
                    self.start = self.line
                self.pieces.append(piece)
                yield piece
        self.exhausted = True

    def next_record(self) -> None:
        self.start, self.pieces = None, []

    def bad_in_record(self) -> tuple[int, int] | None:
        """The first invalid UTF-8 up to the end of the current record, forgetting every one up to there."""
        found = None
        while self.bad and self.bad[0][0] <= self.line:
            found = found or self.bad[0]
            self.bad.pop(0)
        return found


_LINE_PIECES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _open_quote(text: str) -> bool:
    """Whether ``text`` (a record that ran into the end of the file) ends inside a quoted field, read as the
    csv module reads it: a quote opens a field only at its start, ``""`` inside one is a quote, and text after
    a closing quote is kept (``"a"b`` is ``ab``). Jumps from quote to separator with ``str.find``: linear."""
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            while True:
                k = text.find('"', j)
                if k < 0:
                    return True
                if text.startswith('"', k + 1):
                    j = k + 2
                    continue
                i = k + 1
                break
        found = _SEPARATOR.search(text, i)
        if found is None:
            return False
        i = found.end()
    return False


_SEPARATOR = re.compile(r"[,\r\n]")


def _read_csv(path: Path, handle: BinaryIO) -> Iterator[RawRow | InputError]:
    """Rows as :class:`csv.reader` (and so ``csv.DictReader``) reads them, in one linear pass: a stray quote
    inside a field is text, as it is to the csv module. A quoted field still open at the end of the file, which
    the csv module silently turns into one cell holding the rest of the file, is refused at its first line."""
    csv.field_size_limit(sys.maxsize)
    source = str(path)
    lines = _CsvLines(handle)
    reader = csv.reader(lines)
    header: list[str] | None = None
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield InputError(source, lines.start, None, f"malformed CSV: {exc}")
            lines.bad_in_record()
            lines.next_record()
            continue
        start, bad = lines.start or lines.line, lines.bad_in_record()
        unterminated = lines.exhausted and _open_quote("".join(lines.pieces))
        lines.next_record()
        if bad is not None:
            yield InputError(source, bad[0], None, f"invalid UTF-8 at byte {bad[1]}")
            continue
        if unterminated:
            yield InputError(source, start, None, "malformed CSV: a quoted field opened on this line never "
                                                  "closes (the rest of the file would be one cell)")
            continue
        if header is None:
            header = values
            continue
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            yield InputError(source, start, None, f"malformed CSV: {len(values)} values for {len(header)} columns")
            continue
        yield RawRow(source, start, dict(zip(header, values)), text_cells=True)


def _read_parquet(path: Path, handle: BinaryIO) -> Iterator[RawRow | InputError]:
    try:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(handle)
    except Exception as exc:  # pyarrow raises several types for a broken file
        yield InputError(str(path), None, None, f"malformed Parquet: {exc}")
        return
    row_no = 0
    batches = parquet.iter_batches(batch_size=1024)
    while True:
        try:
            batch = next(batches, None)
            rows = [] if batch is None else batch.to_pylist()
        except Exception as exc:  # corrupt pages: OSError, ArrowInvalid, UnicodeDecodeError, ...
            yield InputError(str(path), None, None, f"malformed Parquet after row {row_no}: {exc}")
            return
        if batch is None:
            return
        for row in rows:
            row_no += 1
            yield RawRow(str(path), row_no, row)


class _HashedLines:
    """A binary file's lines, each added to ``digest`` as it is read: the digest of the whole file when they
    have all been read, with no second pass over it."""

    def __init__(self, handle: BinaryIO, digest: Any) -> None:
        self.handle, self.digest = handle, digest

    def __iter__(self) -> Iterator[bytes]:
        for raw in self.handle:
            self.digest.update(raw)
            yield raw


def _rows(path: Path, handle: BinaryIO, kind: kinds.FileKind, digest: Any) -> Iterator[RawRow | InputError]:
    """The rows of the open file of ``kind``, which is closed at the end; with ``digest``, every byte of the
    file is added to it (a file not read by lines, Parquet's, through the same handle once its rows are read)."""
    read = _READERS[kind.name]
    with handle:
        yield from read(path, _HashedLines(handle, digest) if digest is not None and kind.by_lines else handle)
        if digest is not None and not kind.by_lines:
            handle.seek(0)
            while block := handle.read(1 << 20):
                digest.update(block)


def read_raw(path: str | Path, digest: Any = None) -> Iterator[RawRow | InputError]:
    """The file's rows, each a :class:`RawRow` or an :class:`InputError`; the file is opened once, now (so that
    a file that cannot be read is an error here, not at the first row). ``digest`` (anything with
    ``update(bytes)``) is fed every byte of the file as the rows are read."""
    return _rows(*open_raw(path), digest)


def open_raw(path: str | Path) -> tuple[Path, BinaryIO, kinds.FileKind]:
    """The file as :func:`read_raw` opens it: (its path, its binary handle, its kind); an
    InputError for a path that is not a readable file of a known kind."""
    if isinstance(path, str) and not path:  # Path("") is ".": "is a directory" would not say what is wrong
        raise InputError("''", None, None, f"the input path is empty; give a {kinds.LABELS} file")
    if isinstance(path, str) and (path.endswith(("/", os.sep)) or os.path.basename(path) == ".") \
            and Path(path).is_file():
        # Path() drops a trailing '/' or '/.', and open("data.jsonl/.") would fail: they say a folder was meant
        tail = "/" if path.endswith(("/", os.sep)) else "/."
        raise InputError(path, None, None, f"is a file, but the path ends in '{tail}' as a folder's does; "
                                           f"leave out the trailing '{tail}'")
    path = Path(path)
    paths.check_readable(path)  # before the suffix: a folder or a pipe is named as such
    kind = kinds.kind_of(path)
    if kind is None:
        raise InputError(str(path), None, None,
                         f"unknown file type {quoted(path.suffix.lower())} (use {kinds.SUFFIXES})")
    return path, paths.open_readable(path), kind


#: the reader of each kind of :mod:`genevals.input.kinds` (which says which suffixes mean which kind)
_READERS = {"jsonl": _read_jsonl, "csv": _read_csv, "parquet": _read_parquet}


def rows_from_objects(data: Any, source: str = "<data>") -> Iterator[RawRow]:
    """A pandas DataFrame or an iterable of dicts (or of :class:`Sample`). Row numbers are 1-based positions."""
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        data = (row for row in data.to_dict(orient="records"))
    for index, row in enumerate(data, start=1):
        yield RawRow(source, index, row.to_dict() if isinstance(row, Sample) else row)


class HeaderError(InputError):
    """A file whose header lacks a required column: one error for the file, not one per row."""


def _has_header(source: Any) -> bool:
    if isinstance(source, (str, Path)):
        kind = kinds.kind_of(source)
        return kind is not None and kind.header
    return hasattr(source, "columns") and hasattr(source, "to_dict")


def iter_samples(
    source: Any, column_map: Mapping[str, str] | None = None, tracker: FieldTracker | None = None,
    digest: Any = None, history_tokens: int = HISTORY_TOKENS.default,
) -> Iterator[Sample | InputError]:
    """Yield a Sample or an InputError per row, in order, without stopping; for a file with a header (CSV,
    Parquet, DataFrame) that lacks a required column, a single :class:`HeaderError` instead. ``tracker``
    records the field names seen (unknown fields, ``--map`` sources); ``digest`` is fed a file's bytes
    (:func:`read_raw`). ``source`` may also be a :class:`~genevals.input.source.RowSource` (trace exports, TREC
    files): another reader kind, whose rows are validated here as every row is. Conversations become one row per
    assistant turn first (:mod:`genevals.input.conversation_rows`), their histories within ``history_tokens``."""
    if isinstance(source, RowSource):
        raws: Iterable[RawRow | InputError] = source.rows(digest)
    elif isinstance(source, (str, Path)):
        raws = read_raw(source, digest)
    else:
        raws = rows_from_objects(source)
    header = _has_header(source)
    if header and not isinstance(source, (str, Path)):  # a DataFrame: its columns are its header
        columns = [str(c) for c in source.columns]
        problem = FieldTracker(KNOWN_FIELDS, ALIASES, column_map).header_problem(columns)
        if problem is not None and len(source) and not conversation_rows.is_conversation_header(columns):
            yield HeaderError("<data>", None, "answer", problem)
            return
        header = False
    validate = RowValidator(column_map, tracker, history_tokens)
    raws = conversation_rows.expand(raws, validate.renamed, history_tokens, column_map,
                                    tracker.see if tracker is not None else None)
    for raw in raws:
        if isinstance(raw, InputError):
            yield raw
            continue
        if header and isinstance(raw.data, Mapping):
            header = False
            problem = (tracker or FieldTracker(KNOWN_FIELDS, ALIASES, column_map)).header_problem(raw.data)
            if problem is not None:
                yield HeaderError(raw.source, 1 if raw.text_cells else None, "answer", problem)
                return
        try:
            yield validate(raw)
        except InputError as exc:
            yield exc
        except RecursionError:
            yield InputError(raw.source, raw.line, None, "row is nested too deeply")


def parse_column_map(pairs: Iterable[str]) -> dict[str, str]:
    """``["answer=output", "contexts[].doc_id=url", ...]`` -> {"answer": "output", ...}; ``FIELD=COLUMN`` as on
    the command line (the language is :mod:`genevals.input.mapping`'s)."""
    try:
        return mapping.parse_pairs(pairs)
    except mapping.MapError as exc:
        raise InputError("--map", None, None, str(exc)) from None
