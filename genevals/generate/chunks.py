"""Cutting documents into chunks of whole sentences under a token budget, and dropping low-information ones.

Sentences come from :func:`genevals.language.sentences.segment` (every script's marks; a newline ends one), so
a chunk is never cut inside a sentence. Sentences are packed in order while the chunk's word tokens
(:func:`genevals.language.tokens.tokens`, language-neutral: a word of a spaced script, a character of an
unspaced one) stay within ``budget``; a single sentence over the budget is a chunk of its own, never cut. A
chunk's id is ``doc#n`` with n its position among the document's chunks (0, 1, ...), counted before the drop
rule, so an id does not move when the rule changes; its ``[start, end)`` is into the document's text.

**The drop rule** (:func:`low_information`, no model call): a chunk is dropped when it has fewer than
:data:`MIN_WORDS` word tokens, fewer than :data:`MIN_DISTINCT` distinct ones, or when fewer than
:data:`MIN_LETTER_SHARE` of its word tokens contain a letter (tables of numbers, page furniture, code dumps).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from genevals.generate.items import Chunk, Document
from genevals.language.sentences import segment
from genevals.language.tokens import tokens

#: the language-neutral tokenisation: no language's segmenter, every unspaced script a character a token
NEUTRAL = "und"
MIN_WORDS = 8
MIN_DISTINCT = 5
MIN_LETTER_SHARE = 0.5


@dataclass(frozen=True)
class ChunkSettings:
    """``budget``: the most word tokens a chunk holds (one longer sentence excepted)."""

    budget: int = 160


def words(text: str) -> list[str]:
    """The language-neutral word tokens the budget and the rule count."""
    return tokens(text, NEUTRAL)


def low_information(text: str) -> str | None:
    """Why the chunk ``text`` is dropped by the rule of the module's docstring, or None when it is kept."""
    found = words(text)
    if len(found) < MIN_WORDS:
        return f"fewer than {MIN_WORDS} words ({len(found)})"
    if len(set(found)) < MIN_DISTINCT:
        return f"fewer than {MIN_DISTINCT} distinct words ({len(set(found))})"
    lettered = sum(1 for w in found if any(c.isalpha() for c in w))
    if lettered < MIN_LETTER_SHARE * len(found):
        return f"under {MIN_LETTER_SHARE:.0%} of its words have a letter ({lettered} of {len(found)})"
    return None


def chunk_document(doc: Document, settings: ChunkSettings = ChunkSettings()) -> list[Chunk]:
    """Every chunk of ``doc`` (the dropped ones too), in order."""
    out: list[Chunk] = []
    start = end = None
    size = 0
    for s, e in segment(doc.text):
        n = len(words(doc.text[s:e]))
        if start is not None and size + n > settings.budget:
            out.append(_chunk(doc, len(out), start, end))
            start = None
        if start is None:
            start, size = s, 0
        end, size = e, size + n
    if start is not None:
        out.append(_chunk(doc, len(out), start, end))
    return out


def _chunk(doc: Document, n: int, start: int, end: int) -> Chunk:
    return Chunk(f"{doc.id}#{n}", doc.id, n, doc.text[start:end], start, end)


def kept_chunks(chunks: Iterable[Chunk]) -> tuple[list[Chunk], list[tuple[Chunk, str]]]:
    """(the chunks the rule keeps, the dropped ones with the reason)."""
    kept, dropped = [], []
    for chunk in chunks:
        why = low_information(chunk.text)
        if why is None:
            kept.append(chunk)
        else:
            dropped.append((chunk, why))
    return kept, dropped
