"""The generation request: ``prompts/generate_item.md`` rendered for one slot, and the JSON schema its reply must
follow.

The prompt keeps the section of the slot's type (one ``<!-- type -->`` block each) and states persona, style,
length and language as separate lines, so that each axis varies on its own. The chunks are quoted as data:
each between ``<<<passage NONCE id=ID>>>`` and ``<<<end NONCE>>>``, where NONCE is the first 10 hex digits of
sha256 over the chunks' ids and texts. A document cannot close its own quotation without knowing the digest of
the text it is part of, and the nonce is a function of the chunks alone, so the same chunks render the same bytes
(and hit the same judge cache entry).

The schema pins ``evidence[].chunk_id`` to the ids given (an enum), asks ``variant`` of the two types that have
one (multi_hop: bridge or comparison; unanswerable: out_of_scope or false_premise) and ``turns`` of follow_up.
A backend that cannot enforce a schema (or a model that ignores it) may still cite another id: the reply reader
(:mod:`genevals.generate.llm_reply`) checks every field again.
"""
from __future__ import annotations

import hashlib
from typing import Any, Sequence

from genevals import prompt_render
from genevals.generate.items import Chunk
from genevals.generate.slots import Slot
from genevals.language.codes import NAMES

PROMPT = "generate_item"
#: the item types an LLM writes (the offline generators make ``known_item`` and ``extractive``)
LLM_TYPES = ("fact", "multi_hop", "summary", "reasoning", "unanswerable", "distracting", "follow_up")
#: the types that say which kind of item they are, and the kinds
VARIANTS = {"multi_hop": ("bridge", "comparison"), "unanswerable": ("out_of_scope", "false_premise")}
#: the fewest chunks a type needs (a multi-hop item combines two; a distracting one needs a distractor)
MIN_CHUNKS = {"multi_hop": 2, "distracting": 2}
#: what a length axis value asks for, in words of the question; other values are passed as written
LENGTHS = {"short": "short, at most 10 words", "medium": "medium, 10 to 20 words",
           "long": "long, more than 20 words (context, then the question)"}
#: the axes' wording when a slot leaves one empty
DEFAULT_PERSONA = "a typical user of these documents"
DEFAULT_STYLE = "a plain, natural question"
DEFAULT_LENGTH = "whatever length is natural for the question"


def prompt_hash() -> str:
    """sha256 (12 hex digits) of the prompt file: every item's provenance records it, every cache key holds it."""
    return prompt_render.prompt_version(PROMPT)


def language_phrase(language: str | None) -> str:
    """The language the prompt asks for, by name: ``"French"`` for ``fr``; the code itself for a language genevals
    has no name for; the passages' own language when none is asked."""
    code = (language or "").strip()
    if not code:
        return "the language the passages are written in (the first passage's, if they differ)"
    return NAMES.get(code, f"the language whose ISO 639-1 code is '{code}'")


def nonce(chunks: Sequence[Chunk]) -> str:
    h = hashlib.sha256()
    for chunk in chunks:
        h.update(chunk.id.encode("utf-8", "surrogatepass") + b"\0" + chunk.text.encode("utf-8", "surrogatepass")
                 + b"\0")
    return h.hexdigest()[:10]


def passages(chunks: Sequence[Chunk], tag: str, max_chars: int) -> tuple[str, list[str]]:
    """The chunks quoted as data, and the ids of those cut to ``max_chars`` characters (a chunker's token budget
    normally keeps them shorter; the cut is recorded in the provenance)."""
    blocks, cut = [], []
    for chunk in chunks:
        text = chunk.text
        if len(text) > max_chars:
            text = text[:max_chars]
            cut.append(chunk.id)
        blocks.append(f"<<<passage {tag} id={chunk.id}>>>\n{text}\n<<<end {tag}>>>")
    return "\n".join(blocks), cut


def render(slot: Slot, chunks: Sequence[Chunk], language: str | None, max_chars: int) -> tuple[str, list[str]]:
    """The prompt of one slot, and the ids of the chunks cut to fit."""
    tag = nonce(chunks)
    quoted, cut = passages(chunks, tag, max_chars)
    variants = VARIANTS.get(slot.type, ())
    blocks = {t: t == slot.type for t in LLM_TYPES}
    blocks.update(variant=bool(variants), turns=slot.type == "follow_up")
    length = slot.length.strip()
    text = prompt_render.render(
        PROMPT, blocks=blocks, type=slot.type, persona=slot.persona.strip() or DEFAULT_PERSONA,
        style=slot.style.strip() or DEFAULT_STYLE, length=LENGTHS.get(length, length) or DEFAULT_LENGTH,
        language=language_phrase(language), nonce=tag, passages=quoted,
        variants=" or ".join(f'"{v}"' for v in variants))
    return text, cut


def schema(item_type: str, chunk_ids: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of the reply for an item of ``item_type`` built on ``chunk_ids``."""
    evidence = {"type": "array", "minItems": 0 if item_type == "unanswerable" else 1,
                "items": {"type": "object", "additionalProperties": False, "required": ["chunk_id", "quote"],
                          "properties": {"chunk_id": {"type": "string", "enum": list(dict.fromkeys(chunk_ids))},
                                         "quote": {"type": "string", "minLength": 1}}}}
    properties: dict[str, Any] = {"question": {"type": "string", "minLength": 1},
                                  "reference": {"type": "string", "minLength": 1}, "evidence": evidence}
    if item_type in VARIANTS:
        properties["variant"] = {"type": "string", "enum": list(VARIANTS[item_type])}
    if item_type == "follow_up":
        properties["turns"] = {"type": "array", "minItems": 1, "maxItems": 6, "items": {
            "type": "object", "additionalProperties": False, "required": ["role", "content"],
            "properties": {"role": {"type": "string", "enum": ["user", "assistant"]},
                           "content": {"type": "string", "minLength": 1}}}}
    return {"type": "object", "additionalProperties": False, "required": list(properties), "properties": properties}
