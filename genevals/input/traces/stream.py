"""The records of a trace export, read as a stream: a top-level JSON array element by element, JSON Lines line by
line, or the one JSON document the file holds. Only the record being parsed is held (plus a read-ahead chunk),
so importing an export costs memory in proportion to its largest record, not to the file.

Each record comes with the line it starts on; every problem is an :class:`~genevals.input.rows.InputError`
naming the file and line. Bytes that are not UTF-8 spoil only the record holding them: they are decoded with
``surrogateescape``, and a record whose text holds such an escape is refused at its line.
"""
from __future__ import annotations

import codecs
import json
import re
from typing import Any, BinaryIO, Iterator

from genevals.input.rows import InputError

CHUNK = 1 << 20
_SPACE = re.compile(r"[ \t\r\n]*")
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
#: a parse error this close to the end of what was read may be a record cut by the read, not a broken one
_MARGIN = 8
_decoder = json.JSONDecoder()


class _Broken(Exception):
    """A record that cannot be parsed: where it breaks (a position in the buffer) and why."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos, self.message = pos, message


class _Text:
    """The file's text, decoded as it is read: ``buf[pos:]`` is what has not been consumed; ``line_at(i)`` is
    the line of ``buf[i]`` (positions asked for never go backwards past the last compaction)."""

    def __init__(self, handle: BinaryIO, digest: Any) -> None:
        self.handle, self.digest = handle, digest
        self.decode = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.buf, self.pos, self.eof = "", 0, False
        self._counted, self._line = 0, 1  # buf[:_counted] holds _line - 1 newlines (from the file's start)
        self._first = True
        self._col0 = 0  # the characters of buf[0]'s line before it (dropped by compact)

    def more(self, at_least: int = CHUNK) -> bool:
        """Reads on (at least ``at_least`` bytes, unless the file ends); False at the end of the file."""
        if self.eof:
            return False
        raw = self.handle.read(max(at_least, CHUNK))
        if self.digest is not None and raw:
            self.digest.update(raw)
        text = self.decode.decode(raw, final=not raw)
        if self._first and text:
            text, self._first = text.removeprefix("\ufeff"), False
        if not raw:
            self.eof = True
        self.buf += text
        return bool(raw) or bool(text)

    def compact(self) -> None:
        """Drops what was consumed (between records: no position held elsewhere points into it)."""
        if self.pos > CHUNK:
            self.line_at(self.pos)
            self._col0 = self.column_at(self.pos) - 1
            self.buf, self._counted = self.buf[self.pos:], self._counted - self.pos
            self.pos = 0

    def drain(self) -> None:
        """Reads the rest of the file (its digest must cover every byte), keeping nothing."""
        while not self.eof:
            self.buf, self.pos = "", 0
            self.more()

    def line_at(self, index: int) -> int:
        if index > self._counted:
            self._line += self.buf.count("\n", self._counted, index)
            self._counted = index
        return self._line - (self.buf.count("\n", index, self._counted) if index < self._counted else 0)

    def column_at(self, index: int) -> int:
        newline = self.buf.rfind("\n", 0, index)
        return index - newline if newline >= 0 else index + 1 + self._col0

    def skip_white(self) -> int:
        """Moves past whitespace and line ends; the position reached (len(buf) at the end of the file)."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or not self.more():
                return self.pos

    def value(self) -> tuple[int, Any]:
        """The JSON value starting at ``pos`` (reading on while it is cut by the end of what was read): its
        start, and the value; ``pos`` moves past it. :class:`_Broken` when it is not JSON."""
        start = self.pos
        while True:
            try:
                value, end = _decoder.raw_decode(self.buf, start)
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(self.buf) - _MARGIN or exc.msg.startswith("Unterminated string")
                if cut and self.more(len(self.buf) - start):
                    continue
                raise _Broken(exc.pos, f"malformed JSON: {exc.msg}") from None
            except RecursionError:
                raise _Broken(start, "malformed JSON: nested too deeply") from None
            except ValueError:  # the only other ValueError: an integer too long to convert
                raise _Broken(start, "malformed JSON: a number with too many digits") from None
            if end >= len(self.buf) and self.more(len(self.buf) - start):
                continue  # a number at the end of what was read may go on
            self.pos = end
            bad = _NOT_UTF8.search(self.buf, start, end)
            if bad is not None:
                raise _Broken(bad.start(), "invalid UTF-8")
            return start, value

    def next_line(self) -> tuple[int, str] | None:
        """The next line (without its end) and its start; None at the end of the file."""
        scanned = self.pos
        while True:
            end = self.buf.find("\n", scanned)
            scanned = len(self.buf)
            if end >= 0 or not self.more(len(self.buf) - self.pos):
                break
        if self.pos >= len(self.buf):
            return None
        end = len(self.buf) if end < 0 else end
        start, self.pos = self.pos, min(end + 1, len(self.buf))
        return start, self.buf[start:end]


def records(handle: BinaryIO, digest: Any, source: str, what: str) -> Iterator[tuple[int, Any] | InputError]:
    """The export's records, each ``(line, value)``: the elements of a top-level JSON array, the one JSON
    document the file holds, or each line of a JSON Lines file. ``what`` names the format for errors. The
    digest is fed every byte of the file, whatever was found in it."""
    text = _Text(handle, digest)
    try:
        yield from _records(text, source, what)
    finally:
        text.drain()


def _error(text: _Text, source: str, pos: int, message: str) -> InputError:
    line = text.line_at(pos)
    if pos < len(text.buf) and _NOT_UTF8.match(text.buf, pos):  # JSON broken by bytes that are not UTF-8
        message = _not_utf8(text.buf[pos])
    if message.startswith(("malformed JSON", "invalid UTF-8")):
        message += f" (column {text.column_at(pos)})"
    return InputError(source, line, None, message)


def _not_utf8(escape: str) -> str:
    return f"invalid UTF-8: byte 0x{ord(escape) - 0xDC00:02x} (not a UTF-8 text file?)"


def _records(text: _Text, source: str, what: str) -> Iterator[tuple[int, Any] | InputError]:
    start = text.skip_white()
    if start >= len(text.buf):
        yield InputError(source, None, None, f"the file is empty; expected a {what} export (JSON or JSON Lines)")
        return
    if text.buf[start] == "[":
        yield from _array(text, source)
        return
    try:
        _, value = text.value()
    except _Broken as broken:
        yield from _broken_first(text, source, start, broken)
        return
    end = text.pos
    after = text.skip_white()
    if after >= len(text.buf):  # one JSON document
        yield text.line_at(start), value
        return
    if "\n" in text.buf[start:end] or "\n" not in text.buf[end:after]:
        yield _error(text, source, after, "malformed JSON: Extra data")
        return
    yield text.line_at(start), value  # JSON Lines: one record per line
    yield from _lines(text, source)


def _broken_first(text: _Text, source: str, start: int, broken: _Broken) -> Iterator[InputError | tuple]:
    """The first record does not parse: a broken JSON Lines record when its line does not parse alone and the
    next line holds a record of its own; else the file is one broken document."""
    text.pos = start
    first = text.next_line()
    following = text.next_line()
    while following is not None and not following[1].strip():
        following = text.next_line()
    if first is not None and following is not None and _parses(following[1]):
        bad = _NOT_UTF8.search(first[1])
        try:
            json.loads(first[1])
        except json.JSONDecodeError as exc:
            if bad is None:
                yield InputError(source, text.line_at(start), None, f"malformed JSON: {exc.msg} (column {exc.colno})")
        except (ValueError, RecursionError):
            if bad is None:
                yield _error(text, source, start, broken.message)
        if bad is not None or broken.message == "invalid UTF-8":
            yield _error(text, source, first[0] + bad.start() if bad else broken.pos, "invalid UTF-8")
        text.pos = following[0]
        yield from _lines(text, source)
        return
    yield _error(text, source, broken.pos, broken.message)


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _lines(text: _Text, source: str) -> Iterator[tuple[int, Any] | InputError]:
    while True:
        text.compact()
        if (found := text.next_line()) is None:
            return
        start, line = found
        if not line.strip():
            continue
        number = text.line_at(start)
        bad = _NOT_UTF8.search(line)
        if bad is not None:
            yield InputError(source, number, None, f"{_not_utf8(bad.group())} (column {bad.start() + 1})")
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield InputError(source, number, None, f"malformed JSON: {exc.msg} (column {exc.colno})")
        except RecursionError:
            yield InputError(source, number, None, "malformed JSON: nested too deeply")
        except ValueError:
            yield InputError(source, number, None, "malformed JSON: a number with too many digits")


def _array(text: _Text, source: str) -> Iterator[tuple[int, Any] | InputError]:
    """The elements of the top-level JSON array at ``pos``; an element that does not parse ends the array (no
    later element can be found for sure), one whose bytes are not UTF-8 is refused alone."""
    text.pos += 1
    if text.skip_white() < len(text.buf) and text.buf[text.pos] == "]":
        text.pos += 1
        yield from _trailing(text, source)
        return
    while True:
        text.compact()
        start = text.skip_white()
        if start >= len(text.buf):
            yield _error(text, source, start, "malformed JSON: the array is not closed with ']'")
            return
        try:
            yield text.line_at(start), text.value()[1]
        except _Broken as broken:
            yield _error(text, source, broken.pos, broken.message)
            if broken.message != "invalid UTF-8":
                return
        at = text.skip_white()
        char = text.buf[at] if at < len(text.buf) else ""
        text.pos += 1 if char else 0
        if char == "]":
            yield from _trailing(text, source)
            return
        if char != ",":
            yield _error(text, source, at, "malformed JSON: expected ',' or ']' after an element of the array")
            return


def _trailing(text: _Text, source: str) -> Iterator[InputError]:
    at = text.skip_white()
    if at < len(text.buf):
        yield _error(text, source, at, "malformed JSON: Extra data")
