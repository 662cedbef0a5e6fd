"""A JSONL file read in blocks of lines, each block decoded and parsed with as few Python steps as possible, for
:mod:`genevals.input.rows_columns`.

:func:`genevals.input.readers.jsonl_row` reads one line at a time (decode, strip, ``json.loads``, a look for
``\\uD8xx`` escapes); here a block of some kilobytes is decoded once, looked at once for such escapes, split at
``"\\n"`` (the lines the binary file's iteration gives, so the same line numbers) and each line handed to the JSON
scanner itself. Only a block in the common case is read that way: valid UTF-8, no ``\\uD8xx`` escape, every line
blank or one JSON value that fills it. Any other block is read line by line with ``jsonl_row``, so its rows and
errors are those of :func:`genevals.input.readers.read_raw`.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator

from genevals import utf8
from genevals.input.readers import jsonl_row
from genevals.input.rows import InputError, RawRow

#: bytes read at once: some 60 rows of 20 contexts, parsed and checked together while their objects are still in
#: the CPU's cache (10,000 rows x 20: 0.12 s of CPU in 32 KB blocks, 0.20 s in 4 MB ones); freed block by block, so
#: memory does not grow with the file beyond the columns kept
BLOCK = 1 << 15
_BOM = b"\xef\xbb\xbf"
#: what json.loads allows after a value (and before it, which the scanner does not)
_SPACE = re.compile(r"[ \t\n\r]*")
#: json.loads' own scanner (the C one where there is one): one call per value, without loads' Python wrapper
_SCAN = json.JSONDecoder().scan_once


@dataclass
class Parsed:
    """A block in the common case: its non-blank lines' numbers and their JSON values."""

    lines: list[int]
    values: list[Any]


def blocks(source: str, handle: BinaryIO, digest: Any = None, size: int | None = None) -> Iterator[Parsed | list]:
    """The file's lines, block by block: a :class:`Parsed`, or the block's rows and errors as ``read_raw`` gives
    them (a list of RawRow and InputError); ``digest`` is fed every byte, in order. ``size``: bytes a read."""
    size = size or BLOCK
    line_no, pending, first = 0, [], True
    while True:
        chunk = handle.read(size)
        if digest is not None and chunk:
            digest.update(chunk)
        cut = chunk.rfind(b"\n") + 1
        if chunk and cut == 0:  # no line ends in it: read on
            pending.append(chunk)
            continue
        data = b"".join([*pending, chunk[:cut]]) if chunk else b"".join(pending)
        pending = [chunk[cut:]] if chunk else []
        if not data:
            return
        body = data[len(_BOM):] if first and data.startswith(_BOM) else data  # jsonl_row reads line 1 so
        first = False
        parsed = _parse(body, line_no + 1)
        yield parsed if parsed is not None else _rows(source, line_no + 1, data)
        line_no += data.count(b"\n")  # only the last block may end without one
        if not chunk:
            return


def _parse(body: bytes, first_line: int) -> Parsed | None:
    if utf8.SURROGATE_ESCAPE.search(body):
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    pieces = text.split("\n")
    if text.endswith("\n"):
        pieces.pop()
    lines = [n for n, piece in enumerate(pieces, first_line) if piece.strip()]
    if len(lines) != len(pieces):
        pieces = [piece for piece in pieces if piece.strip()]
    try:
        found = list(map(_SCAN, pieces, [0] * len(pieces)))
    except (ValueError, RecursionError):  # bad JSON, an integer too long to read, nested too deeply
        return None
    if len(found) != len(pieces):  # no value where a line starts (a space first): StopIteration ended the map
        return None
    ends = [end for _, end in found]
    if ends != list(map(len, pieces)):
        for piece, end in zip(pieces, ends):
            if _SPACE.match(piece, end).end() != len(piece):  # "\r" of a CRLF file: allowed; anything else is not
                return None
    return Parsed(lines, [value for value, _ in found])


def _rows(source: str, first_line: int, data: bytes) -> list[RawRow | InputError]:
    rows = []
    for line, raw in enumerate(io.BytesIO(data), first_line):  # the lines a binary file's iteration gives
        row = jsonl_row(source, line, raw)
        if row is not None:
            rows.append(row)
    return rows
