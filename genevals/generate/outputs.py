"""The files ``genevals generate`` writes, and the one place their formats live.

- ``testset.jsonl``: one row per kept item in ``genevals run``'s input format, read as it is: ``id``,
  ``question``, ``answer`` (empty: the place of the system's answer; ``genevals run`` scores an empty answer and
  says so in each result's details), ``references`` (the reference answer), ``relevant`` (the item's chunk ids,
  grade 1, for the retrieval metrics once the system's contexts carry chunk ids), ``language``, and
  ``metadata`` (the field ``genevals run`` carries and never reads): ``type``, ``persona``, ``style``,
  ``length``, ``expect_refusal``, ``reference_contexts`` (doc id, chunk id, offsets in the document, text),
  ``evidence`` (quotes with offsets in their chunk), ``turns``, ``gates`` and ``provenance``.
- ``rejected.jsonl``: every rejected item whole (:func:`item_dict`) with ``rejection``, its reason.
- ``qrels.txt``: TREC qrels, ``ITEM 0 CHUNK 1`` for each chunk an item cites (``genevals run --qrels``).
- the journal (``.journal.jsonl``): one line per attempt, appended and flushed as it ends, that a killed run
  resumes from (:mod:`genevals.generate.driver`).

Every file but the journal is written aside and renamed into place, so a run killed while writing leaves the
last complete file or none.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from genevals.generate.items import Chunk, Evidence, Item

TESTSET, REJECTED, QRELS, CARD, JOURNAL = "testset.jsonl", "rejected.jsonl", "qrels.txt", "card.json", \
    ".journal.jsonl"


def item_dict(item: Item) -> dict[str, Any]:
    return asdict(item)


def item_from(data: Mapping[str, Any]) -> Item:
    """An item back from :func:`item_dict`'s JSON (lists back to tuples)."""
    fields = dict(data)
    fields["chunks"] = tuple(fields["chunks"])
    fields["evidence"] = tuple(Evidence(**e) for e in fields.get("evidence", ()))
    fields["turns"] = tuple(dict(t) for t in fields.get("turns", ()))
    return Item(**fields)


def read_testset(path: str | Path) -> list[Item]:
    """The items of an earlier set's testset.jsonl (``--earlier``: the duplicate gate checks against them):
    question, reference, type and cited chunks of each row. ValueError naming the file, line and field for a row
    that is not one of :func:`testset_row`'s."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--earlier {path}: cannot read it ({type(exc).__name__}: {exc})") from None
    items = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{line_no}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{line_no}: a row is a JSON object, got {type(row).__name__}")
        for field in ("id", "question"):
            if not isinstance(row.get(field), str) or not row[field].strip():
                raise ValueError(f"{path}:{line_no}: field {field!r}: missing or not text (a testset.jsonl of "
                                 "genevals generate has it on every row)")
        references = row.get("references") if isinstance(row.get("references"), list) else []
        meta = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
        relevant = row.get("relevant") if isinstance(row.get("relevant"), dict) else {}
        items.append(Item(row["id"], str(meta.get("type", "")), row["question"],
                          str(references[0]) if references else "", tuple(str(c) for c in relevant)))
    return items


def testset_row(item: Item, chunks: Mapping[str, Chunk]) -> dict[str, Any]:
    contexts = [{"doc_id": chunks[c].doc_id, "chunk_id": c, "start": chunks[c].start, "end": chunks[c].end,
                 "text": chunks[c].text} for c in item.chunks if c in chunks]
    metadata = {"type": item.type, "persona": item.persona, "style": item.style, "length": item.length,
                "expect_refusal": item.expect_refusal, "reference_contexts": contexts,
                "evidence": [asdict(e) for e in item.evidence], "turns": list(item.turns),
                "gates": dict(item.gates), "provenance": dict(item.provenance)}
    row: dict[str, Any] = {"id": item.id, "question": item.question, "answer": "", "references": [item.reference],
                           "relevant": {c: 1 for c in item.chunks}, "metadata": metadata}
    if item.language:
        row["language"] = item.language
    return row


def _dumps(row: Any) -> str:
    return json.dumps(row, ensure_ascii=False, sort_keys=False)


def write_aside(path: Path, text: str) -> None:
    """``text`` into a new temporary file beside ``path``, renamed to ``path``."""
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(part, 0o644)  # mkstemp's 0600 is for secrets: a test set is for the team
        os.replace(part, path)
    except BaseException:
        Path(part).unlink(missing_ok=True)
        raise


def qrels_text(items: Iterable[Item]) -> str:
    """TREC qrels (trec_eval's ``TOPIC ITERATION DOCNO RELEVANCE``) of the items' cited chunks."""
    return "".join(f"{item.id} 0 {chunk} 1\n" for item in items for chunk in item.chunks)


def write_outputs(out: Path, kept: list[Item], rejected: list[Item], chunks: Mapping[str, Chunk],
                  card: Mapping[str, Any]) -> None:
    write_aside(out / TESTSET, "".join(_dumps(testset_row(i, chunks)) + "\n" for i in kept))
    write_aside(out / REJECTED, "".join(_dumps({**item_dict(i), "rejection": i.rejection}) + "\n"
                                        for i in rejected))
    write_aside(out / QRELS, qrels_text(kept))
    write_aside(out / CARD, json.dumps(card, indent=2, ensure_ascii=False) + "\n")


class Journal:
    """The attempts of a run, one JSON line each: the header (what the run was asked) first, then
    ``{"attempt": i, "item": ...}``. A last line cut short by a kill is dropped when read."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self, header: Mapping[str, Any]) -> list[Item]:
        """The items of the attempts done, in order; [] for a new run. ValueError when the journal is another
        run's (its header differs)."""
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").split("\n")
        complete = lines[:-1]  # the text after the last newline was cut short (or is empty)
        if not complete:
            return []
        if json.loads(complete[0]) != json.loads(json.dumps(header)):
            raise ValueError(f"{self.path}: the output folder holds another run (other documents, -n, seed, "
                             "types or language); give another --out")
        return [item_from(json.loads(line)["item"]) for line in complete[1:]]

    def start(self, header: Mapping[str, Any], done: list[Item]) -> None:
        """The journal rewritten with the header and the attempts done (dropping a cut last line)."""
        text = _dumps(header) + "\n" + "".join(_dumps({"attempt": n, "item": item_dict(i)}) + "\n"
                                              for n, i in enumerate(done))
        write_aside(self.path, text)
        self._handle = open(self.path, "a", encoding="utf-8")
        self._count = len(done)

    def add(self, item: Item) -> None:
        self._handle.write(_dumps({"attempt": self._count, "item": item_dict(item)}) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._count += 1

    def close(self) -> None:
        self._handle.close()
