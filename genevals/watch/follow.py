"""``--follow FILE``: a growing OTLP JSON trace export, read as ``tail -F`` reads a log.

Each line of the file is one OTLP JSON ``ExportTraceServiceRequest`` (the format
:mod:`genevals.input.traces.openinference` reads); :meth:`Follower.lines` yields ``(line number, object)`` for
each complete line, in order, and hands lines it cannot read to ``refused`` (``(where, reason)``) rather than
stopping. What it does as the file changes:

* **appended**: new complete lines are read as they come; a last line without its newline is left until the
  writer finishes it (a writer's half-written line is never parsed);
* **rotated** (the path now names another file: ``mv app.jsonl app.jsonl.1`` and a new ``app.jsonl``): the old
  file is read to its end first, through the descriptor still open on it (its last line then counts even
  without a newline: nobody will finish it), then the new file from its start;
* **truncated** (the same file, now shorter than the position read, or its first bytes already read changed:
  truncated and written past the position again between two looks): read again from the start;
* **missing** (deleted, or not yet created): waited for, then read from its start once it appears.

The position (file identity as device and inode, byte offset, line number) is saved to ``offset_state`` each time
the consumer comes back for more after the last line of a read; a caller that keeps the position itself reads
:attr:`Follower.state` once it has used what :meth:`Follower.poll` gave. That is at least once: a crash re-reads
at most what was given since the last save, and the watcher's queue ignores a span it already holds. A restart
resumes there when the path still names the same file (device, inode and the digest of its first bytes) and it is
at least that long; otherwise (rotated or truncated while stopped) it reads the file at the path from its start.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Mapping, Protocol

#: a line longer than this is refused (and skipped to its end) instead of held in memory
MAX_LINE = 64 << 20
#: bytes read at a time
_CHUNK = 1 << 20
#: refusals a follower without a callback keeps (a long run of bad lines must not grow memory)
KEPT_REFUSALS = 100
#: how much of a file's start identifies it on a restart (with its device and inode)
HEAD_BYTES = 1024


@dataclass(frozen=True)
class Position:
    """Where reading stopped: the file (``device``, ``inode``, and ``head``, a digest of its first bytes up to
    :data:`HEAD_BYTES`, since a deleted file's inode number is often given to the next file made), the byte
    ``offset`` after the last complete line consumed, and the number of that line (1-based; 0 before the first)."""
    device: int
    inode: int
    offset: int
    line: int
    head: str = ""


class OffsetState(Protocol):
    """Where a follower's position is kept between runs (the watcher's store, or :class:`OffsetFile`)."""

    def load(self, path: str) -> Position | None: ...

    def save(self, path: str, position: Position) -> None: ...


class OffsetFile:
    """An :class:`OffsetState` in one JSON file, replaced whole on each save (a crash leaves the old or new)."""

    def __init__(self, file: str | Path) -> None:
        self.file = Path(file)

    def load(self, path: str) -> Position | None:
        try:
            found = json.loads(self.file.read_text(encoding="utf-8")).get(path)
            return _position(found) if isinstance(found, dict) else None
        except (OSError, ValueError, TypeError, AttributeError):  # none yet, or unreadable: start afresh
            return None

    def save(self, path: str, position: Position) -> None:
        try:
            known = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        known = known if isinstance(known, dict) else {}
        known[path] = asdict(position)
        aside = self.file.with_name(self.file.name + ".tmp")
        aside.write_text(json.dumps(known), encoding="utf-8")
        os.replace(aside, self.file)


class Follower:
    """``tail -F`` over ``path`` (the module's docstring); ``interval`` is the wait between looks at an idle file.
    Without a ``refused`` callback, each refusal is printed to stderr and the latest kept in :attr:`refusals`.

    ``offset_state`` is where the position lives: an :class:`OffsetState` (loaded at the start, saved by
    :meth:`lines`), or the position itself as a mapping (:attr:`state` as an earlier run left it, or None to start
    afresh) for a caller that keeps it: it calls :meth:`poll` and saves :attr:`state` after using what it gave."""

    def __init__(self, path: str | Path, offset_state: OffsetState | Mapping[str, Any] | None = None,
                 refused: Callable[[str, str], None] | None = None, interval: float = 0.2,
                 max_line: int = MAX_LINE) -> None:
        self.path = Path(path)
        keeps = offset_state is not None and not isinstance(offset_state, Mapping)
        self._store: OffsetState | None = offset_state if keeps else None  # type: ignore[assignment]
        self._known = None if keeps else _position(offset_state)
        #: the latest refusals (at most :data:`KEPT_REFUSALS`), as ``(where, reason)``
        self.refusals: deque[tuple[str, str]] = deque(maxlen=KEPT_REFUSALS)
        self.refused = refused or self._refuse
        self._said = ""  # the last refusal about the path itself, not repeated at every look
        self.interval = interval
        self.max_line = max_line
        self._file: BinaryIO | None = None
        self._id: tuple[int, int] | None = None
        self._offset = 0  # bytes consumed (complete lines) in the open file
        self._line = 0
        self._buffer = b""
        self._skipping = False  # inside a line over max_line, dropped to its newline
        self._seen = (0, "")  # (n, digest of the file's first n bytes) when last looked at
        self._unsaved = False

    # -- the loop ---------------------------------------------------------------------------------------------
    def lines(self, stop: threading.Event | None = None, idle: float | None = None) -> Iterator[tuple[int, dict]]:
        """Every complete line's object, waiting for more until ``stop`` is set, or until nothing new has come
        for ``idle`` seconds (None: no limit). The file is closed when the iteration ends."""
        quiet_since = time.monotonic()
        try:
            while stop is None or not stop.is_set():
                got = False
                for item in self.available():
                    got = True
                    yield item
                self._save()
                if got:
                    quiet_since = time.monotonic()
                elif idle is not None and time.monotonic() - quiet_since >= idle:
                    return
                else:
                    (stop.wait(self.interval) if stop is not None else time.sleep(self.interval))
        finally:
            self._save()
            self.close()

    def available(self) -> Iterator[tuple[int, dict]]:
        """The lines complete now, without waiting (rotation and truncation handled as they are seen)."""
        if self._file is None and not self._open():
            return
        while True:
            if self._rewritten():
                self._rewind()
            yield from self._drain(final=False)
            self._note_head()
            now = _identity(self.path)
            if now is not None and now != self._id:  # rotated: the old file is finished, then the new one
                yield from self._drain(final=True)
                self.close()
                if not self._open(fresh=True):
                    return
                continue
            if now is None or self._file is None:
                return  # deleted: what was written is read; the new file will be read from its start
            size = os.fstat(self._file.fileno()).st_size
            if size < self._offset + len(self._buffer):  # truncated in place
                self._rewind()
                continue
            return

    def _rewind(self) -> None:
        assert self._file is not None
        self._file.seek(0)
        self._offset, self._line, self._buffer, self._skipping = 0, 0, b"", False
        self._seen = (0, "")
        self._unsaved = True

    def _rewritten(self) -> bool:
        """Whether the lines already read have changed under us: truncated and written past the position again
        between two looks (a busy log under ``copytruncate``), which the size alone cannot show."""
        n, digest = self._seen
        return n > 0 and self._head(n) != digest

    def _note_head(self) -> None:
        n = min(self._offset, HEAD_BYTES)
        if self._file is not None and n != self._seen[0]:
            self._seen = (n, self._head(n))

    def _refuse(self, where: str, reason: str) -> None:
        """Without a ``refused`` callback: said on stderr as the watcher says its other refusals, and kept."""
        self.refusals.append((where, reason))
        print(f"genevals watch: {where}: {reason}", file=sys.stderr)

    def poll(self) -> Iterator[tuple[int, dict]]:
        """:meth:`available`, for a caller that keeps the position itself (then saves :attr:`state`)."""
        return self.available()

    @property
    def state(self) -> dict[str, Any]:
        """The position after the last line given, as a JSON-ready mapping ({} before the file was ever seen)."""
        position = self._position() or self._known
        return asdict(position) if position is not None else {}

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    # -- the file ---------------------------------------------------------------------------------------------
    def _open(self, fresh: bool = False) -> bool:
        try:
            if not stat.S_ISREG(os.stat(self.path).st_mode):  # a FIFO would block the open, a device never end
                self._say("not a regular file; waiting for one")
                return False
            f = open(self.path, "rb")  # noqa: SIM115 (held open across calls, closed by close())
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError as exc:
            self._say(f"cannot be opened ({exc.strerror}); waiting for it")
            return False
        self._said = ""
        st = os.fstat(f.fileno())
        self._file, self._id = f, (st.st_dev, st.st_ino)
        self._offset, self._line, self._buffer, self._skipping, self._seen = 0, 0, b"", False, (0, "")
        saved = None if fresh else (self._store.load(str(self.path)) if self._store is not None else self._known)
        if saved is not None and (saved.device, saved.inode) == self._id and saved.offset <= st.st_size \
                and saved.head == self._head(saved.offset):
            self._offset, self._line = saved.offset, saved.line
        f.seek(self._offset)
        self._unsaved = True
        return True

    def _say(self, reason: str) -> None:
        if reason != self._said:
            self._said = reason
            self.refused(str(self.path), reason)

    def _head(self, offset: int) -> str:
        """The digest of the open file's first ``min(offset, HEAD_BYTES)`` bytes (read in place: the position
        stays where it is)."""
        assert self._file is not None
        return hashlib.blake2b(os.pread(self._file.fileno(), min(offset, HEAD_BYTES), 0), digest_size=16).hexdigest()

    def _drain(self, final: bool) -> Iterator[tuple[int, dict]]:
        """Read the open file to its current end; with ``final`` a last unterminated line counts too."""
        assert self._file is not None
        while True:
            chunk = self._file.read(_CHUNK)
            if not chunk:
                break
            self._buffer += chunk
            yield from self._split()
        if final and self._buffer and not self._skipping:
            self._offset += len(self._buffer)
            yield from self._parse(self._buffer, " (its last line, without a newline, in the rotated file)")
            self._buffer = b""

    def _split(self) -> Iterator[tuple[int, dict]]:
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > self.max_line and not self._skipping:
                    self._line += 1
                    self.refused(f"{self.path}:{self._line}", f"a line over {self.max_line:,} bytes; skipped")
                    self._skipping = True
                if self._skipping:
                    self._offset += len(self._buffer)
                    self._buffer = b""
                return
            raw, self._buffer = self._buffer[:end], self._buffer[end + 1:]
            self._offset += end + 1
            if self._skipping:
                self._skipping = False
                self._unsaved = True
                continue
            if len(raw) > self.max_line:
                self._line += 1
                self.refused(f"{self.path}:{self._line}", f"a line over {self.max_line:,} bytes; skipped")
                continue
            yield from self._parse(raw, "")

    def _parse(self, raw: bytes, note: str) -> Iterator[tuple[int, dict]]:
        self._line += 1
        self._unsaved = True
        if not raw.strip():
            return
        try:
            found: Any = json.loads(raw)
        except RecursionError:
            found, why = None, "nested too deeply"
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            found, why = None, f"not JSON ({str(exc)[:120]})"
        else:
            why = "not a JSON object (an ExportTraceServiceRequest is one)"
        if isinstance(found, dict):
            yield self._line, found
        else:
            self.refused(f"{self.path}:{self._line}{note}", why)

    def _position(self) -> Position | None:
        if self._file is None or self._id is None:
            return None
        return Position(*self._id, self._offset, self._line, self._head(self._offset))

    def _save(self) -> None:
        if self._unsaved and self._file is not None:
            self._known = self._position()
            if self._store is not None and self._known is not None:
                self._store.save(str(self.path), self._known)
            self._unsaved = False


def _position(found: Mapping[str, Any] | None) -> Position | None:
    """A kept position read back; None (start afresh) when it is missing or not one."""
    if not found:
        return None
    try:
        position = Position(**{k: found[k] for k in ("device", "inode", "offset", "line")}, head=found.get("head", ""))
    except (KeyError, TypeError):
        return None
    numbers = (position.device, position.inode, position.offset, position.line)
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers) \
            or not isinstance(position.head, str):
        return None
    return position


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
