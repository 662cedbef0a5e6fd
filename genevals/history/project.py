"""The project a run belongs to, so that ``--baseline latest`` never picks another project's run of a file that
happens to share the input's name (one history serves every project of a user: ``~/.local/share/genevals``).

A run's project is the top of the git work tree holding its input file, else the input file's folder; for input
that is no file (standard input, rows given in Python) the same is taken of the working directory. It is recorded,
resolved (absolute, links followed), in the history's ``project`` column. :func:`genevals.history.inputs.candidates`
says how ``latest`` uses it: a project's own runs first; the exact rows run anywhere next (a copy is the same
input); runs recorded before the column existed (none) by name last, so a history written by an older genevals
still gives a baseline; never another project's run that only shares the file name.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from genevals.history.gitstate import find


def project_of(given: str | None) -> str | None:
    """The project folder of a run whose input was ``given`` (a path as typed, '-' or None: no file); None when
    no folder can be resolved (a working directory that was removed)."""
    folder: Path | None = None
    if given and given != "-":
        path = Path(given).expanduser()
        try:
            if stat.S_ISREG(path.stat().st_mode):
                folder = path.resolve().parent
        except (OSError, RuntimeError, ValueError):
            folder = None
    try:
        folder = folder or Path(os.getcwd()).resolve()
    except (OSError, RuntimeError):
        return None
    found = find(folder)
    return str(found[0]) if found else str(folder)
