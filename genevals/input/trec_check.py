"""Whether a TREC file can be read into columns as it is (:mod:`genevals.input.trec_columns`), needs tidying first
(tabs, runs of spaces, a byte order mark, a qrels header), or is for the line reader (a blank or comment line, a
space ``str.split`` knows and pyarrow does not): checked a block at a time, never holding the file whole, and
the tidying itself.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from genevals.input.source import open_file

#: what ``str.split()`` (the line reader) splits on besides space, tab and newline: a file holding any of them
#: is left to the line reader, so a document id is cut where it always was
_OTHER_SPACE = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
_UNICODE_SPACE = re.compile(rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80")
_BOM = b"\xef\xbb\xbf"
_TO_SPACE = bytes.maketrans(b"\t\r", b"  ")


def scan(path: str | Path, what: str) -> str | None:
    """How the file can be read: "as is" (one space between columns), "tidied" (tabs, runs of spaces, a byte
    order mark, a qrels file's leading ``#`` lines: :func:`tidied`), or None when it is not for this path (a
    blank line, a comment line elsewhere, a space ``str.split`` knows and pyarrow does not). Read a block at a
    time: the file is never held whole here."""
    verdict, tail, first = "as is", b"", True
    with open_file(path, what) as handle:  # the same refusals (a folder, a fifo) as the line reader
        while block := handle.read(1 << 20):
            if first:
                if block.startswith(_BOM):
                    block, verdict = block[len(_BOM):], "tidied"
                if block[:1] == b"#":  # a qrels file's header (genevals label writes one): checked whole
                    return "tidied" if what == "--qrels" else None
                if block[:1] == b"\n":
                    return None
                if block[:1] in (b" ", b"\t", b"\r"):
                    verdict = "tidied"
                first = False
            seen = tail + block  # a mark may straddle two blocks: the last bytes of one go with the next
            if _odd(seen):
                return None
            pairs = _pairs(seen, verdict == "as is")
            if pairs is None:
                return None
            if pairs or b"\t" in seen or b"\r" in seen:
                verdict = "tidied"
            tail = block[-2:]
    if first:
        return None  # empty: the line reader says so
    if tail[-1:] == b" ":
        verdict = "tidied"
    return verdict


def _pairs(data: bytes, look: bool) -> bool | None:
    """None when ``data`` holds a blank line or a comment line ("\\n\\n", "\\n#"); else, when ``look``,
    whether it holds a space that needs tidying ("  ", "\\n ", " \\n"). In numpy, on the newline positions:
    ``bytes.find`` of a two-byte mark beginning with a space or a newline stops at every one of them (0.2 s a mark
    over a 66 MB run, against 0.02 s here)."""
    a = np.frombuffer(data, dtype=np.uint8)
    newline = a == 10
    after = a[np.flatnonzero(newline[:-1]) + 1]
    if ((after == 10) | (after == 35)).any():
        return None
    if not look:
        return False
    space = a == 32
    return bool((after == 32).any() or (space[:-1] & newline[1:]).any() or (space[:-1] & space[1:]).any())


def _odd(data: bytes) -> bool:
    """Whether ``data`` holds a space ``str.split`` splits on and the CSV reader does not."""
    return any(mark in data for mark in _OTHER_SPACE) or (not data.isascii() and bool(_UNICODE_SPACE.search(data)))


def tidied(path: str | Path) -> bytes | None:
    """The file's bytes with one space between columns and none at either end of a line (a tab-separated or
    aligned run then reads as trec_eval and the line reader read it); None when a line turns out blank."""
    with open(path, "rb") as handle:
        data = handle.read().removeprefix(_BOM)
    while data[:1] == b"#":  # header comment lines (qrels only: see scan)
        data = data.partition(b"\n")[2]
    if not data or _odd(data):
        return None
    # bytes methods, a copy at a time (re.sub would build a piece per column: gigabytes for a 2M-line run)
    data = data.translate(_TO_SPACE)
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n").strip(b" ")
    if data[:1] in (b"\n", b"#") or b"\n\n" in data or b"\n#" in data:
        return None
    return data
