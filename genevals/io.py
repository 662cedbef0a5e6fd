"""Readers: JSONL, CSV, Parquet, DataFrame or list of dicts -> validated ``Sample`` objects.

Every problem becomes an ``InputError`` naming the file, the line (1-based; for CSV the header is line 1) and
the field. Readers stream: rows are yielded one at a time so a 100,000-row file is never held whole. This module
owns the input file formats; checking one row is :mod:`genevals.rows`' (its names are re-exported here).
"""
from __future__ import annotations

import csv
import json
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Iterable, Iterator

from genevals.input_fields import FieldTracker
from genevals.rows import (  # noqa: F401  (re-exported: genevals.io is where callers have always found them)
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

def _read_jsonl(path: Path) -> Iterator[RawRow | InputError]:
    source = str(path)
    with open(path, "rb") as handle:
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
        return RawRow(source, line_no, json.loads(text))
    except json.JSONDecodeError as exc:
        return InputError(source, line_no, None, f"malformed JSON: {exc.msg} (column {exc.colno})")
    except ValueError as exc:  # an integer longer than sys.get_int_max_str_digits() digits
        return InputError(source, line_no, None, f"malformed JSON: {exc}")
    except RecursionError:
        return InputError(source, line_no, None, "malformed JSON: nested too deeply")


def _read_csv(path: Path) -> Iterator[RawRow | InputError]:
    csv.field_size_limit(sys.maxsize)
    # Decode line by line ourselves so invalid UTF-8 is reported with its line, not as a crash.
    with open(path, "rb") as handle:
        header: list[str] | None = None
        buffer, start_line = "", 0
        for line_no, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield InputError(str(path), line_no, None, f"invalid UTF-8 at byte {exc.start}")
                buffer = ""
                continue
            if not buffer:
                start_line = line_no
            buffer += text
            # A quoted field may span lines; wait until quotes balance before parsing the record.
            if buffer.count('"') % 2:
                continue
            try:
                values = next(csv.reader([buffer]), [])
            except csv.Error as exc:
                yield InputError(str(path), start_line, None, f"malformed CSV: {exc}")
                buffer = ""
                continue
            buffer = ""
            if header is None:
                header = values
                continue
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                yield InputError(str(path), start_line, None,
                                 f"malformed CSV: {len(values)} values for {len(header)} columns")
                continue
            yield RawRow(str(path), start_line, dict(zip(header, values)), text_cells=True)
        if buffer:
            yield InputError(str(path), start_line, None, "malformed CSV: unterminated quoted field")


def _read_parquet(path: Path) -> Iterator[RawRow | InputError]:
    try:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
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


def _check_readable(path: Path) -> None:
    """Refuse, up front, what is not a readable regular file: a FIFO or a device (/dev/zero) would hang or
    never end, an unreadable file would fail mid-run."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(str(path), None, None, "file not found") from None
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise InputError(str(path), None, None, "is a directory, not a file")
    if not stat.S_ISREG(mode):
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or
                stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise InputError(str(path), None, None, f"is {kind}, not a regular file; save the input to a file first")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot read: {exc.strerror or exc}") from None


def read_raw(path: str | Path) -> Iterator[RawRow | InputError]:
    path = Path(path)
    _check_readable(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _read_jsonl(path)
    if suffix == ".csv":
        return _read_csv(path)
    if suffix in (".parquet", ".pq"):
        return _read_parquet(path)
    raise InputError(str(path), None, None, f"unknown file type '{suffix}' (use .jsonl, .csv or .parquet)")


def rows_from_objects(data: Any, source: str = "<data>") -> Iterator[RawRow]:
    """A pandas DataFrame or an iterable of dicts. Row numbers are 1-based positions."""
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        data = (row for row in data.to_dict(orient="records"))
    for index, row in enumerate(data, start=1):
        yield RawRow(source, index, row)


class HeaderError(InputError):
    """A file whose header lacks a required column: one error for the file, not one per row."""


def _has_header(source: Any) -> bool:
    if isinstance(source, (str, Path)):
        return Path(source).suffix.lower() in (".csv", ".parquet", ".pq")
    return hasattr(source, "columns") and hasattr(source, "to_dict")


def iter_samples(
    source: Any, column_map: Mapping[str, str] | None = None, tracker: FieldTracker | None = None
) -> Iterator[Sample | InputError]:
    """Yield a Sample or an InputError per row, in order, without stopping; for a file with a header (CSV,
    Parquet, DataFrame) that lacks a required column, a single :class:`HeaderError` instead. ``tracker``
    records the field names seen (unknown fields, ``--map`` sources)."""
    if isinstance(source, (str, Path)):
        raws: Iterable[RawRow | InputError] = read_raw(source)
    else:
        raws = rows_from_objects(source)
    header = _has_header(source)
    if header and not isinstance(source, (str, Path)):  # a DataFrame: its columns are its header
        columns = [str(c) for c in source.columns]
        problem = FieldTracker(KNOWN_FIELDS, ALIASES, column_map).header_problem(columns)
        if problem is not None and len(source):
            yield HeaderError("<data>", None, "answer", problem)
            return
        header = False
    validate = RowValidator(column_map, tracker)
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
    """``["answer=output", ...]`` -> {"answer": "output"}; ``new=old`` as on the command line."""
    mapping = {}
    for pair in pairs:
        new, sep, old = pair.partition("=")
        if not sep or new not in KNOWN_FIELDS or not old:
            raise InputError("--map", None, None,
                             f"expected NEW=OLD with NEW one of {', '.join(KNOWN_FIELDS)}, got '{pair}'")
        mapping[new] = old
    return mapping
