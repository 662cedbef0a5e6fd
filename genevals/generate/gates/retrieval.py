r"""The corpus's top chunks for a question: BM25 (Robertson & Zaragoza 2009) over every chunk, by ``bm25s``
(Lù 2024; Lucene's variant, which leaves out the constant factor k1 + 1; k1 = 1.5, b = 0.75):

    score(q, d) = \sum_{t \in q} IDF(t) \cdot \frac{tf(t, d)}{tf(t, d) + k_1 (1 - b + b |d| / avgdl)},
    IDF(t) = \ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)).

Tokens are the language room's word tokens (:func:`genevals.language.tokens.tokens`) under its language-neutral
rule (lower-cased letters and digits split at non-word characters; each character of a script written without
spaces its own token), so one index serves a corpus of any languages without a segmenter. Ties keep corpus
order; chunks scoring 0 (no query token) are never returned.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from genevals.extras import missing
from genevals.generate.items import Chunk
from genevals.language.tokens import tokens

#: the language-neutral tokenisation rule (no segmenter, no stop words)
NEUTRAL = "und"
#: the extra that installs bm25s
EXTRA = "generate"


class MissingExtra(RuntimeError):
    """bm25s is not installed; the message says what to install."""


def words(text: str) -> list[str]:
    return tokens(text, NEUTRAL)


@dataclass(frozen=True)
class ChunkIndex:
    """A BM25 index over the corpus's chunks, in the order given."""

    ids: tuple[str, ...]
    model: Any

    @classmethod
    def build(cls, chunks: Iterable[Chunk]) -> "ChunkIndex | None":
        """The index, or None for an empty corpus."""
        chunks = list(chunks)
        if not chunks:
            return None
        problem = missing("the accidentally_answerable gate (BM25 over the corpus)", (("bm25s", "bm25s"),), EXTRA)
        if problem is not None:
            raise MissingExtra(problem)
        import bm25s

        model = bm25s.BM25()
        # a chunk with no word (punctuation only) still holds its place, so positions are chunk positions
        model.index([words(c.text) or [""] for c in chunks], show_progress=False)
        return cls(tuple(c.id for c in chunks), model)

    def top(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best chunks for ``query`` with their scores, best first; only chunks sharing a token."""
        vocab = self.model.vocab_dict
        known = [t for t in words(query) if t in vocab]
        if not known:
            return []
        scores = self.model.get_scores(known)
        ranked = sorted(range(len(self.ids)), key=lambda i: (-float(scores[i]), i))
        return [(self.ids[i], float(scores[i])) for i in ranked[:k] if scores[i] > 0]
