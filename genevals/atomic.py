"""Files written whole: aside, then renamed into place, so a crash leaves the old file or the new one, never
half of one (the run folder's summary, manifest and report, the history's files)."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Iterator


@contextlib.contextmanager
def replacing(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """A handle (text, or bytes with ``mode="wb"``) whose content replaces ``path`` whole when the block ends:
    written aside (a temporary file in the same folder), then renamed over it, so a crash at any point leaves the
    old file or the new one, never half of one. An exception in the block leaves ``path`` as it was."""
    path = Path(path)
    fd, tmp = _aside(path)
    try:
        with open(fd, mode, encoding=None if "b" in mode else "utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _aside(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path``, opened for writing with mode 0666 less the umask, the mode of every
    other file genevals writes (mkstemp's 0600 would leave these files unreadable to the group beside the rest)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(tempfile.TMP_MAX):
        tmp = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")


def write_whole(path: str | Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` as :func:`replacing` does (text is encoded first: text that cannot be written
    as UTF-8 leaves ``path`` untouched)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    with replacing(path, "wb") as handle:
        handle.write(data)
