"""The input layer's side of :mod:`genevals.files`: its refusals as :class:`~genevals.input.rows.InputError` s that
name the path and the option it came from (``path: --qrels: is a named pipe (FIFO), ...``)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from genevals import files
from genevals.input.rows import InputError


def _error(path: str | os.PathLike, option: str | None, problem: str) -> InputError:
    return InputError(os.fspath(path) or "''", None, None, f"{option}: {problem}" if option else problem)


def check_readable(path: str | os.PathLike, option: str | None = None) -> Path:
    """``path`` as a Path, when it is a regular file; an InputError naming it (and ``option``) otherwise."""
    problem = files.refusal(path)
    if problem is not None:
        raise _error(path, option, problem)
    return Path(path)


def open_readable(path: str | os.PathLike, option: str | None = None) -> BinaryIO:
    """``path`` opened for reading in binary (:func:`genevals.files.open_regular`), or an InputError."""
    try:
        return files.open_regular(path)
    except files.Refused as exc:
        raise _error(path, option, str(exc)) from None

