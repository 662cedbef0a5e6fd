"""An input that is not one row file: trace exports (:mod:`genevals.input.traces`), TREC qrels and runs
(:mod:`genevals.input.trec`). Each is a reader kind of :func:`genevals.input.readers.iter_samples`: it yields raw
rows (or located :class:`~genevals.input.rows.InputError` s) that the usual :class:`~genevals.input.rows.RowValidator`
checks, so such an input is read and validated once, in the planning pass, like a JSONL file.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, BinaryIO, Iterator

from genevals.input.paths import open_readable
from genevals.input.rows import InputError, RawRow


class RowSource(ABC):
    """A reader kind: ``name`` says what it reads (in messages, the run folder's manifest and summary.json);
    :meth:`rows` yields its rows, feeding ``digest`` (``update(bytes)``, may be None) every byte it reads."""

    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def rows(self, digest: Any = None) -> Iterator[RawRow | InputError]: ...


def open_file(path: str | Path, what: str) -> BinaryIO:
    """``path`` opened for reading, or an InputError naming it and ``what`` (the option it came from): only a
    regular file is opened (:func:`genevals.input.paths.open_readable`)."""
    return open_readable(path, what)


def lines(handle: BinaryIO, digest: Any) -> Iterator[tuple[int, bytes]]:
    """The file's lines, numbered from 1, each fed to ``digest`` as it is read."""
    for number, raw in enumerate(handle, start=1):
        if digest is not None:
            digest.update(raw)
        yield number, raw
