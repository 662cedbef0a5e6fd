"""The row file kinds genevals reads, in one table: each kind's suffixes, its name in messages, and how it is
read (by lines or by seeking, with or without a header). The readers (:mod:`genevals.input.readers`), the
commands that tell a row file from a TREC run (``genevals fuse``, ``genevals label``) and every message that
lists the kinds read this table, so a new suffix is added here once and every one of them knows it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileKind:
    """One kind of row file: ``name`` is the key of its reader, ``label`` its name in messages, ``suffixes`` the
    file name endings that mean it (the first is the one messages name); ``header``: its first row names the
    columns (a missing required column is one error for the file); ``by_lines``: read line by line, so each
    line's bytes can be hashed as it is read (a Parquet file is read by seeking, and hashed after)."""

    name: str
    label: str
    suffixes: tuple[str, ...]
    header: bool
    by_lines: bool


KINDS = (
    FileKind("jsonl", "JSONL", (".jsonl", ".ndjson", ".json"), header=False, by_lines=True),
    FileKind("csv", "CSV", (".csv",), header=True, by_lines=True),
    FileKind("parquet", "Parquet", (".parquet", ".pq"), header=True, by_lines=False),
)
#: suffix (lowercase, with its dot) -> kind
BY_SUFFIX = {suffix: kind for kind in KINDS for suffix in kind.suffixes}


def _either(words: list[str]) -> str:
    return ", ".join(words[:-1]) + f" or {words[-1]}"


#: the kinds as messages name them: "JSONL, CSV or Parquet"
LABELS = _either([kind.label for kind in KINDS])
#: their main suffixes as messages name them: ".jsonl, .csv or .parquet"
SUFFIXES = _either([kind.suffixes[0] for kind in KINDS])


def kind_of(path: str | Path) -> FileKind | None:
    """The kind a file's name says it is, or None for a name that is none of them (a TREC run, a typo)."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


def is_row_file(path: str | Path) -> bool:
    """Whether ``path`` names a row file (any other file is, to ``fuse`` and ``label``, a TREC run)."""
    return kind_of(path) is not None
