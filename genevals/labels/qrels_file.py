"""Writing a labelled qrels file: the TREC qrels lines (``TOPIC 0 DOCNO GRADE``) after a ``# genevals label``
header line, and the sidecar ``QRELS.json`` with the whole provenance (:mod:`genevals.labels.provenance`).

Both are written aside (a new temporary name, never a file already there) and renamed into place, so an
interrupted run never leaves a qrels file without its provenance or a half-written one that reads as complete.
The sidecar replaces only a sidecar: a file of that name that ``genevals label`` did not write (not a JSON object
whose ``tool`` is ``genevals label``) is refused (:func:`sidecar_refusal`), never overwritten.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from genevals.files import Refused, read_limited
from genevals.labels.provenance import header_line, sidecar

if TYPE_CHECKING:
    from genevals.labels.labelling import Labelled


#: what ``tool`` says in every sidecar genevals label writes (:mod:`genevals.labels.labelling`)
TOOL = "genevals label"
#: the most bytes read of a file in the sidecar's place to tell whether it is one (a sidecar is a few KB)
MAX_SIDECAR = 16 * 1024 * 1024


def sidecar_refusal(path: str | Path) -> str | None:
    """Why the sidecar of the qrels file ``path`` may not be written, or None: a file of its name is there that
    genevals label did not write (anything but a JSON object whose ``tool`` is :data:`TOOL`: a user's file, a
    folder, a link to nothing), which writing would destroy."""
    side = sidecar(path)
    if not os.path.lexists(side):
        return None
    try:
        found = json.loads(read_limited(side, MAX_SIDECAR, "sidecar").decode("utf-8"))
    except (Refused, ValueError):  # not a regular file, too big, not UTF-8 JSON
        found = None
    if isinstance(found, dict) and found.get("tool") == TOOL:
        return None
    return (f"{side} is there and is not a provenance file genevals label wrote; writing the qrels' sidecar "
            "would replace it: move it aside or name another file")


def _replace(path: Path, text: str) -> None:
    """``text`` written to a new temporary file beside ``path`` (a name no file has), then renamed to ``path``."""
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(part, path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise


def write_qrels(path: str | Path, labelled: "Labelled") -> None:
    """The qrels file at ``path`` and its sidecar ``path.json``. Topics and documents keep the pool's order.
    FileExistsError (naming it) when a file genevals did not write is where the sidecar goes."""
    path = Path(path)
    problem = sidecar_refusal(path)
    if problem is not None:
        raise FileExistsError(problem)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header_line(labelled.provenance, path)]
    for topic, docs in labelled.qrels.items():
        lines += [f"{topic} 0 {doc} {grade}" for doc, grade in docs.items()]
    _replace(sidecar(path), json.dumps(labelled.provenance, indent=2, ensure_ascii=False) + "\n")
    _replace(path, "\n".join(lines) + "\n")
