"""What `genevals generate` reads and writes: documents, their chunks, and the items (test-set rows) made from them.

The shared vocabulary of the generate room: the reader (``documents``), the chunker (``chunks``), the samplers,
the generators (an LLM judge, or the offline known-item and extractive ones), the gates and the card all pass
these records. Offsets are character offsets into the text named (a chunk's into its document, a quote's into
its chunk), half-open ``[start, end)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: item types; the first seven come from an LLM generator, the last two from the offline ones
TYPES = ("fact", "multi_hop", "summary", "reasoning", "unanswerable", "distracting", "follow_up",
         "known_item", "extractive")
#: a gate's status when the item passes it
PASSED = "passed"
#: gate statuses that reject an item (kept in rejected.jsonl with the reason)
REJECTIONS = ("ungrounded_reference", "reference_not_supported", "unanswerable_from_source",
              "accidentally_answerable", "not_multihop", "not_self_contained", "wrong_language", "duplicate",
              "type_mismatch", "generation_failed", "judge_error")
#: gate statuses that keep the item but flag it
FLAGS = ("answerable_without_context",)


@dataclass(frozen=True)
class Document:
    """One source document: its id, its extracted text, and where it came from (a path, or ``file:line``)."""

    id: str
    text: str
    source: str
    title: str = ""


@dataclass(frozen=True)
class Chunk:
    """A run of whole sentences of one document, id ``doc#n`` (n from 0), at ``[start, end)`` in the document."""

    id: str
    doc_id: str
    n: int
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Evidence:
    """A verbatim quote from one chunk, located at ``[start, end)`` in the chunk's text (None: not located)."""

    chunk_id: str
    quote: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class Item:
    """One generated test-set row before and after the gates.

    ``chunks`` are the chunk ids the item was made from (its reference contexts, the relevant ones in qrels);
    ``gates`` maps each gate's name to its status (:data:`PASSED`, a rejection, a flag or ``not_checked``) in the
    order run, and ``gate_reasons`` each gate's name to the reason for its status;
    ``provenance`` says how it was made (generator, model, prompt hash, seed, settings).
    """

    id: str
    type: str
    question: str
    reference: str
    chunks: tuple[str, ...]
    evidence: tuple[Evidence, ...] = ()
    language: str = ""
    persona: str = ""
    style: str = ""
    length: str = ""
    expect_refusal: bool = False
    #: a conversational follow-up's earlier turns, ``[{"role": ..., "content": ...}, ...]``
    turns: tuple[dict[str, str], ...] = ()
    gates: dict[str, str] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    #: why each gate of ``gates`` said what it said (every status has a reason, ``passed`` included)
    gate_reasons: dict[str, str] = field(default_factory=dict)

    @property
    def rejection(self) -> str | None:
        """The first rejecting gate status, or None when the item is kept."""
        return next((s for s in self.gates.values() if s in REJECTIONS), None)
