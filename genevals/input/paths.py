"""The one check of every path genevals reads (the input, ``--qrels``, ``--run``, ``fuse`` runs, ``--from``
exports, ``--map-file``, ``--config``, ``--judge-prices``, a scripted judge) and of a file a user names for
writing (``fuse -o``).

Only a regular file will do. A named pipe blocks the open until something writes to it (a hang); a device
never ends (``/dev/zero``, ``/dev/urandom``: memory runs out) or swallows what is written (``/dev/null``);
``/proc`` and ``/sys`` files are made up as they are read (``/proc/self/environ`` holds the environment, keys
included, which an error message could quote). Each refusal is an :class:`~genevals.input.rows.InputError` naming
the path and the option it came from. The file is opened without blocking and checked again on the open handle,
so a pipe swapped in after the first look is still refused.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from genevals.input.rows import InputError

#: trees of files that are not files: their contents are made as they are read
SYSTEM_TREES = ("/proc", "/sys")
#: the one folder under /dev that holds ordinary files (a tmpfs)
SHARED_MEMORY = "/dev/shm/"


def _where(path: str | os.PathLike, option: str | None) -> tuple[str, str]:
    text = os.fspath(path)
    return (text if text else "''"), (f"{option}: " if option else "")


def _kind(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file, as a message; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or
            stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"is {kind}, not a regular file; save it to a file first"


def _system_tree(text: str) -> str | None:
    real = os.path.realpath(text)
    return next((tree for tree in SYSTEM_TREES if real == tree or real.startswith(tree + "/")), None)


def refusal(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a file, or None: missing, a dangling link, a link loop, not a regular
    file, under /proc or /sys. For callers whose errors are not InputErrors; the others call
    :func:`check_readable`."""
    text = os.fspath(path)
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        return "is a symbolic link to a file that does not exist" if os.path.islink(text) else "file not found"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a loop of symbolic links"
        return f"cannot read: {exc.strerror or exc}"
    except ValueError:  # a NUL in the path
        return "the path holds a NUL character"
    kind = _kind(mode)
    if kind is not None:
        return kind
    tree = _system_tree(text)
    if tree is not None:
        return f"is under {tree}, whose files are made as they are read, not a regular file; copy it to a file first"
    return None


def check_readable(path: str | os.PathLike, option: str | None = None) -> Path:
    """``path`` as a Path, when it is a regular file; an InputError naming it (and ``option``) otherwise."""
    where, said = _where(path, option)
    if not where or where == "''":
        raise InputError(where, None, None, f"{said}the path is empty; give a file")
    problem = refusal(path)
    if problem is not None:
        raise InputError(where, None, None, said + problem)
    return Path(path)


def open_readable(path: str | os.PathLike, option: str | None = None) -> BinaryIO:
    """``path`` opened for reading in binary, after :func:`check_readable`; the open itself cannot block (a
    pipe put there since is refused on the open handle)."""
    check_readable(path, option)
    where, said = _where(path, option)
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(where, None, None, f"{said}cannot read: {exc.strerror or exc}") from None
    kind = _kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise InputError(where, None, None, said + kind)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_limited(path: str | os.PathLike, option: str | None, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path`` (checked as :func:`open_readable` does), refused when there are more than
    ``limit``: read ``limit + 1`` at most, whatever the file says its size is."""
    where, said = _where(path, option)
    with open_readable(path, option) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(where, None, None, f"{said}cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputError(where, None, None, f"{said}the file is over {limit:,} bytes, too large for a {what}")
    return data


def check_writable(path: str | os.PathLike, option: str) -> Path:
    """``path``, a file about to be written: refused when it exists and is not a regular file (a pipe would
    block the write, a device swallow it, a folder cannot be one), when it is a link loop, or under /proc,
    /sys or /dev."""
    where, said = _where(path, option)
    text = os.fspath(path)
    if not text:
        raise InputError(where, None, None, f"{said}the path is empty; give a file")
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        mode = None  # a new file (or a dangling link, which the write creates the target of)
    except OSError as exc:
        problem = "is a loop of symbolic links" if exc.errno == errno.ELOOP else f"{exc.strerror or exc}"
        raise InputError(where, None, None, said + problem) from None
    except ValueError:
        raise InputError(where, None, None, f"{said}the path holds a NUL character") from None
    kind = None if mode is None else _kind(mode)
    if kind is not None:
        raise InputError(where, None, None, said + kind.replace("; save it to a file first", "; name a file"))
    real = os.path.realpath(text)
    for tree in (*SYSTEM_TREES, "/dev"):
        if (real == tree or real.startswith(tree + "/")) and not real.startswith(SHARED_MEMORY):
            raise InputError(where, None, None, f"{said}is under {tree}, not a place for a file genevals writes")
    return Path(text)
