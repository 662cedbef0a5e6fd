"""What may be read or written as a file: the one rule every path a user gives genevals goes through (the input,
``--qrels``, ``--run``, ``fuse`` runs and ``-o``, ``--from`` exports, ``--map-file``, ``--config``,
``--judge-prices``, a scripted judge's script, ``validate``'s input).

Only a regular file will do. A named pipe blocks the open until something writes to it (a hang); a device
never ends (``/dev/zero``, ``/dev/urandom``: memory runs out) or swallows what is written (``/dev/null``);
``/proc`` and ``/sys`` files are made as they are read (``/proc/self/environ`` holds the environment, keys
included, which an error message could quote). A file is opened without blocking and checked again on the open
handle, so a pipe put there after the first look is still refused.

This module imports nothing of genevals, so every layer may use it: :mod:`genevals.input.paths` turns its
refusals into located InputErrors; other callers word them as their own errors.
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from typing import BinaryIO

#: trees of files that are not files: their contents are made as they are read
SYSTEM_TREES = ("/proc", "/sys")
#: the one folder under /dev that holds ordinary files (a tmpfs)
SHARED_MEMORY = "/dev/shm/"


class Refused(ValueError):
    """Why a path cannot be read or written as a file (the message leaves out the path: callers name it)."""


def _kind(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file, as a message; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or
            stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"is {kind}, not a regular file; save it to a file first"


def _under(text: str, trees: tuple[str, ...]) -> str | None:
    real = os.path.realpath(text)
    return next((tree for tree in trees if (real == tree or real.startswith(tree + "/"))
                 and not real.startswith(SHARED_MEMORY)), None)


def refusal(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a file, or None: an empty path, missing, a dangling link, a link loop, not a
    regular file, under /proc or /sys."""
    text = os.fspath(path)
    if not text:
        return "the path is empty; give a file"
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        return "is a symbolic link to a file that does not exist" if os.path.islink(text) else "file not found"
    except OSError as exc:
        return "is a loop of symbolic links" if exc.errno == errno.ELOOP else f"cannot read: {exc.strerror or exc}"
    except ValueError:  # a NUL in the path
        return "the path holds a NUL character"
    kind = _kind(mode)
    if kind is not None:
        return kind
    tree = _under(text, SYSTEM_TREES)
    if tree is not None:
        return f"is under {tree}, whose files are made as they are read, not a regular file; copy it to a file first"
    return None


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading in binary; Refused for what :func:`refusal` refuses, and for a path that
    became something else before the open (which cannot block: it does not wait for a pipe's writer)."""
    problem = refusal(path)
    if problem is not None:
        raise Refused(problem)
    nonblocking = getattr(os, "O_NONBLOCK", 0)  # POSIX; Windows has no FIFOs to wait on
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | nonblocking | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Refused(f"cannot read: {exc.strerror or exc}") from None
    kind = _kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise Refused(kind)
    if nonblocking:
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_limited(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path`` (opened as :func:`open_regular` opens it), Refused when there are more than
    ``limit``: a file whose size says so is refused before a byte is read, and ``limit + 1`` are read at most,
    whatever size the file claims (it may grow). The one reader of the small files a user names or a run folder
    holds (run files, juries, thresholds, prices, a scripted judge's script, summary.json and its siblings)."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise Refused(f"the file is over {limit:,} bytes, too large for a {what} ({size:,} bytes)")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise Refused(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise Refused(f"the file is over {limit:,} bytes, too large for a {what}")
    return data


def output_refusal(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be written as a file, or None: it exists and is not a regular file (a pipe would
    block the write, a device swallow it), it is a link loop, or it is under /proc, /sys or /dev."""
    text = os.fspath(path)
    if not text:
        return "the path is empty; give a file"
    try:
        kind = _kind(os.stat(text).st_mode)
    except FileNotFoundError:
        kind = None  # a new file (or a dangling link, whose target the write creates)
    except OSError as exc:
        return "is a loop of symbolic links" if exc.errno == errno.ELOOP else f"{exc.strerror or exc}"
    except ValueError:
        return "the path holds a NUL character"
    if kind is not None:
        return kind.replace("; save it to a file first", "; name a file")
    tree = _under(text, (*SYSTEM_TREES, "/dev"))
    return None if tree is None else f"is under {tree}, not a place for a file genevals writes"


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode (through symbolic or hard links), or, when either is
    missing, the same path once links and ``..`` are resolved."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        pass
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def clobber_refusal(output: str | os.PathLike, inputs: Iterable[tuple[str, str | os.PathLike | None]]) -> str | None:
    """Why ``output`` cannot be written, when it is the same file (:func:`same_file`) as one of ``inputs``
    (``(what, path)``: ``what`` names the option or the file's role, as the message shows it), or None. The one
    check every command that writes a file makes before it reads or writes anything, so no output ever replaces
    what the same command reads."""
    for what, path in inputs:
        # an option that may hold its value inline (--judge-prices '{...}', already read) names no file
        if isinstance(path, (str, os.PathLike)) and os.fspath(path) and same_file(output, path):
            return (f"is the same file as {what} {os.fspath(path)}; writing it would destroy that input: name "
                    "another file")
    return None
