"""A folder ``genevals generate`` wrote, as its review reads it (``genevals review SET_DIR``).

A set folder is recognised by its files (:func:`is_set_folder`: ``testset.jsonl`` and ``card.json``, the names
:mod:`genevals.generate.outputs` owns). Each kept item (a row of testset.jsonl) and each rejected one (a row of
rejected.jsonl) becomes a :class:`SetItem`: question, reference, type, the cited chunks' texts and the evidence
quotes with their offsets in them, the gates' statuses and reasons. Every row is checked as it is read; one that
cannot be an item stops the review with :class:`SetError` naming the file, the line and the field, since a
sampling frame with holes would bias the valid-item rate drawn from it.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genevals.generate.outputs import CARD, REJECTED, TESTSET
from genevals.review.claims import digest

#: which file an item is in: the store's ``system`` column of an item decision
KEPT, REJECTED_ITEMS = "kept", "rejected"


class SetError(ValueError):
    """A set folder that cannot be reviewed; the message names the file, line and field."""


@dataclass(frozen=True)
class Evidence:
    chunk_id: str
    quote: str
    start: int
    end: int


@dataclass(frozen=True)
class SetItem:
    """One generated item as the reviewer sees it; ``contexts``: chunk id -> text (None when the set's files do
    not hold the text: a rejected item's chunk that no kept item cites)."""
    id: str
    kept: bool
    question: str
    reference: str
    type: str
    contexts: dict[str, str | None]
    evidence: tuple[Evidence, ...]
    gates: dict[str, str] = field(default_factory=dict)
    gate_reasons: dict[str, str] = field(default_factory=dict)
    rejection: str = ""

    @property
    def group(self) -> str:
        return KEPT if self.kept else REJECTED_ITEMS

    @property
    def digest(self) -> str:
        """What a decision was made on: the question and the reference (a regenerated item makes it stale)."""
        return digest(self.question + "\n" + self.reference)


@dataclass(frozen=True)
class GeneratedSet:
    folder: Path
    kept: list[SetItem]
    rejected: list[SetItem]
    card: dict[str, Any]

    def by_key(self) -> dict[tuple[str, str], SetItem]:
        return {(i.group, i.id): i for i in (*self.kept, *self.rejected)}


def is_set_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a generated set (testset.jsonl and card.json); False for a folder it cannot look
    into (the run folder's reader then says why)."""
    try:
        return (folder / TESTSET).is_file() and (folder / CARD).is_file()
    except OSError:
        return False


def _need(row: Mapping[str, Any], name: str, kind: type, where: str) -> Any:
    value = row.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        got = "missing" if name not in row else f"{type(value).__name__}, not {kind.__name__}"
        raise SetError(f"{where}: field {name!r}: {got}")
    return value


def _evidence(raw: Any, contexts: Mapping[str, str | None], where: str) -> tuple[Evidence, ...]:
    if not isinstance(raw, list):
        raise SetError(f"{where}: field 'evidence': {type(raw).__name__}, not a list")
    out = []
    for n, e in enumerate(raw):
        at = f"{where}: field 'evidence[{n}]'"
        if not isinstance(e, Mapping):
            raise SetError(f"{at}: {type(e).__name__}, not an object")
        chunk, quote = _need(e, "chunk_id", str, at), _need(e, "quote", str, at)
        start, end = _need(e, "start", int, at), _need(e, "end", int, at)
        text = contexts.get(chunk)
        if chunk not in contexts:
            raise SetError(f"{at}: chunk {chunk!r} is not one of the item's chunks")
        if not 0 <= start <= end or text is not None and (end > len(text) or text[start:end] != quote):
            raise SetError(f"{at}: offsets {start}..{end} do not hold the quote in chunk {chunk!r}")
        out.append(Evidence(chunk, quote, start, end))
    return tuple(out)


def _kept(row: Mapping[str, Any], where: str) -> SetItem:
    meta = _need(row, "metadata", dict, where)
    refs = _need(row, "references", list, where)
    if not refs or not all(isinstance(r, str) for r in refs):
        raise SetError(f"{where}: field 'references': a list of at least one text")
    contexts: dict[str, str | None] = {}
    for n, c in enumerate(_need(meta, "reference_contexts", list, f"{where}: field 'metadata'")):
        at = f"{where}: field 'metadata.reference_contexts[{n}]'"
        if not isinstance(c, Mapping):
            raise SetError(f"{at}: {type(c).__name__}, not an object")
        contexts[_need(c, "chunk_id", str, at)] = _need(c, "text", str, at)
    return SetItem(id=_need(row, "id", str, where), kept=True, question=_need(row, "question", str, where),
                   reference=refs[0], type=_need(meta, "type", str, f"{where}: field 'metadata'"), contexts=contexts,
                   evidence=_evidence(meta.get("evidence", []), contexts, f"{where}: field 'metadata'"),
                   gates=dict(meta.get("gates") or {}), gate_reasons=dict(meta.get("gate_reasons") or {}))


def _rejected(row: Mapping[str, Any], where: str, texts: Mapping[str, str]) -> SetItem:
    chunks = _need(row, "chunks", list, where)
    contexts = {c: texts.get(c) for c in chunks if isinstance(c, str)}
    return SetItem(id=_need(row, "id", str, where), kept=False, question=_need(row, "question", str, where),
                   reference=_need(row, "reference", str, where), type=_need(row, "type", str, where),
                   contexts=contexts, evidence=_evidence(row.get("evidence", []), contexts, where),
                   gates=dict(row.get("gates") or {}), gate_reasons=dict(row.get("gate_reasons") or {}),
                   rejection=str(row.get("rejection") or ""))


def _rows(path: Path):
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                where = f"{path}:{number}"
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise SetError(f"{where}: not a JSON line ({str(exc)[:120]})") from None
                if not isinstance(row, dict):
                    raise SetError(f"{where}: {type(row).__name__}, not a JSON object")
                yield where, row
    except UnicodeDecodeError as exc:
        raise SetError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise SetError(f"{path}: cannot read it: {exc.strerror or exc}") from None


def load_set(folder: Path) -> GeneratedSet:
    """The items of a set folder, kept and rejected, and its card; SetError naming file, line and field."""
    folder = Path(folder)
    if not is_set_folder(folder):
        raise SetError(f"{folder}: not a generated set (no {TESTSET} and {CARD})")
    kept, seen = [], {}
    for where, row in _rows(folder / TESTSET):
        item = _kept(row, where)
        if item.id in seen:
            raise SetError(f"{where}: field 'id': {item.id!r} again (first at line {seen[item.id]})")
        seen[item.id] = where.rsplit(":", 1)[1]
        kept.append(item)
    texts = {c: t for i in kept for c, t in i.contexts.items() if t is not None}
    rejected = [_rejected(row, where, texts) for where, row in _rows(folder / REJECTED)] \
        if (folder / REJECTED).is_file() else []
    try:
        card = json.loads((folder / CARD).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SetError(f"{folder / CARD}: not a readable JSON card ({str(exc)[:120]})") from None
    if not isinstance(card, dict):
        raise SetError(f"{folder / CARD}: {type(card).__name__}, not a JSON object")
    return GeneratedSet(folder, kept, rejected, card)
