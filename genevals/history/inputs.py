"""Which runs of the history are runs of "the same input", for ``--baseline latest`` and for trends.

A run's input has two keys: its content digest (``input_digest``, the manifest's digest of the rows read) and its
name (the file name the run was given, without its folder). A copied file keeps the digest under a new name; a
file edited in place keeps the name under a new digest.

- ``--baseline latest[~N]`` (:func:`latest`, :func:`candidates`) looks first among the runs of this run's project
  (:mod:`genevals.history.project`), preferring the exact rows: the latest run with this run's digest, and only
  when no run had those rows, the latest run of a file with the same name. When the project has no run of this
  input, the latest run of these exact rows anywhere (a copied file is the same input); then, by name, the runs
  recorded without a project (by a genevals before the project was kept). Another project's run of a file that
  only shares the name never is. Whichever it picks, the comparison is made on the question ids both runs
  scored, and a run that shares none is refused.
- A trend (:func:`related`) holds the runs sharing either key, so neither a copy nor an edit starts a new one.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypeVar


@dataclass(frozen=True)
class Entry:
    """One run's input keys, as :meth:`genevals.history.store.History.inputs` reads them."""
    id: int
    input: str | None
    input_digest: str | None
    #: the project folder it was recorded in (None: recorded before projects were kept)
    project: str | None = None


def name_of(given: str | None) -> str:
    """The input's file name without its folder ('' for none), so ``data/a.csv`` and ``./a.csv`` are one name."""
    if not given:
        return ""
    return PurePath(given).name or given


def _same_digest(run: object, digest: str | None) -> bool:
    return bool(digest) and getattr(run, "input_digest", None) == digest


def _same_name(run: object, name: str) -> bool:
    return bool(name) and name_of(getattr(run, "input", None)) == name


def same(entries: Sequence[Entry], digest: str | None, name: str) -> list[Entry]:
    """The runs of this input as ``latest`` counts them: those with ``digest``, else those with ``name``."""
    return [e for e in entries if _same_digest(e, digest)] or [e for e in entries if _same_name(e, name)]


def candidates(entries: Sequence[Entry], digest: str | None, name: str, project: str | None) -> list[Entry]:
    """The runs ``latest`` chooses among: this ``project``'s runs of this input (:func:`same`); else the runs of
    these exact rows wherever they ran (a copy is the same input); else, by name, the runs recorded without a
    project. Another project's run of a file that only shares the name is never one. Every run of this input when
    ``project`` is None (it could not be told)."""
    if project is None:
        return same(entries, digest, name)
    return (same([e for e in entries if e.project == project], digest, name)
            or [e for e in entries if _same_digest(e, digest)]
            or [e for e in entries if e.project is None and _same_name(e, name)])


def latest(entries: Sequence[Entry], digest: str | None, name: str, back: int = 0,
           project: str | None = None) -> Entry | None:
    """The run ``back`` runs before the latest of this input in ``project`` (``entries`` oldest first,
    :func:`candidates`); None when there are not that many."""
    runs = candidates(entries, digest, name, project)
    return runs[-1 - back] if back < len(runs) else None


Run = TypeVar("Run")


def related(runs: Sequence[Run], digest: str | None, name: str) -> list[Run]:
    """The runs sharing the digest or the name; every run when none does (a history of one input, recorded
    before either key was kept)."""
    same = [run for run in runs if _same_digest(run, digest) or _same_name(run, name)]
    return same or list(runs)


def describe(entry: Entry | object) -> str:
    """"#3 (data.csv, digest 1a2b3c4d)": a run and its input, for messages (the caller makes it visible)."""
    digest = getattr(entry, "input_digest", None)
    return (f"#{getattr(entry, 'id', '?')} ({getattr(entry, 'input', None) or 'no input name'}"
            + (f", digest {digest[:8]}" if digest else "") + ")")
