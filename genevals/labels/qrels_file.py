"""Writing a labelled qrels file: the TREC qrels lines (``TOPIC 0 DOCNO GRADE``) after a ``# genevals label``
header line, and the sidecar ``QRELS.json`` with the whole provenance (:mod:`genevals.labels.provenance`).

Both are written aside and renamed into place, so an interrupted run never leaves a qrels file without its
provenance or a half-written one that reads as complete.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from genevals.labels.provenance import header_line, sidecar

if TYPE_CHECKING:
    from genevals.labels.labelling import Labelled


def _replace(path: Path, text: str) -> None:
    part = path.with_name(path.name + ".part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)


def write_qrels(path: str | Path, labelled: "Labelled") -> None:
    """The qrels file at ``path`` and its sidecar ``path.json``. Topics and documents keep the pool's order."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header_line(labelled.provenance, path)]
    for topic, docs in labelled.qrels.items():
        lines += [f"{topic} 0 {doc} {grade}" for doc, grade in docs.items()]
    _replace(sidecar(path), json.dumps(labelled.provenance, indent=2, ensure_ascii=False) + "\n")
    _replace(path, "\n".join(lines) + "\n")
