"""Which chunks the items are built on: coverage first, then repeats; multi-hop partners by shared terms.

**Coverage** (:class:`CoverageSampler`): draws go in rounds; each round is a seeded permutation of the documents
that still have chunks, and each document gives its next chunk in a seeded permutation of its own chunks. So the
first ``D`` draws (``D`` documents) touch every document once, and no chunk repeats before all of its document's
chunks were drawn. The sequence depends on the seed and on how many draws were made before, nothing else.

**Multi-hop partners** (:func:`partner`): the chunk of another document sharing the most *entity terms* with the
given one; an entity term is a word token of at least 4 characters that occurs in at most :data:`MAX_DF` of the
chunks, or in at most 2 in a corpus of under 40 (rare words: names, numbers, technical terms; no knowledge
graph). Ties go to the smaller chunk id; no shared term: None (a multi-hop slot then has one chunk, and the type
check rejects what comes of it).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

from genevals.generate.chunks import words
from genevals.generate.items import Chunk

#: the largest share of chunks an entity term may occur in
MAX_DF = 0.05
MIN_TERM = 4


class CoverageSampler:
    """Seed chunk ids in coverage-first order (module docstring); :meth:`draw` is the next one."""

    def __init__(self, chunks: Sequence[Chunk], seed: int) -> None:
        by_doc: dict[str, list[str]] = {}
        for chunk in chunks:
            by_doc.setdefault(chunk.doc_id, []).append(chunk.id)
        if not by_doc:
            raise ValueError("no chunks to draw from")
        self._rng = random.Random(f"coverage:{seed}")
        self._docs = sorted(by_doc)
        self._orders = {doc: self._permuted(ids) for doc, ids in sorted(by_doc.items())}
        self._by_doc = by_doc
        self._next = {doc: 0 for doc in self._docs}
        self._round: list[str] = []

    def _permuted(self, ids: Sequence[str]) -> list[str]:
        order = list(ids)
        self._rng.shuffle(order)
        return order

    def draw(self) -> str:
        if not self._round:
            self._round = self._permuted(self._docs)
        doc = self._round.pop(0)
        if self._next[doc] == len(self._orders[doc]):
            self._orders[doc], self._next[doc] = self._permuted(self._by_doc[doc]), 0
        self._next[doc] += 1
        return self._orders[doc][self._next[doc] - 1]


def entity_terms(chunks: Sequence[Chunk]) -> dict[str, frozenset[str]]:
    """Each chunk's entity terms (module docstring)."""
    terms = {c.id: frozenset(w for w in words(c.text) if len(w) >= MIN_TERM) for c in chunks}
    df = Counter(t for ts in terms.values() for t in ts)
    cap = max(2.0, MAX_DF * len(chunks))
    return {cid: frozenset(t for t in ts if df[t] <= cap) for cid, ts in terms.items()}


def partner(chunk_id: str, chunks: Mapping[str, Chunk], terms: Mapping[str, frozenset[str]]) -> str | None:
    """The other document's chunk sharing the most entity terms with ``chunk_id`` (module docstring)."""
    mine, doc = terms[chunk_id], chunks[chunk_id].doc_id
    best, shared = None, 0
    for cid in sorted(terms):
        if chunks[cid].doc_id == doc:
            continue
        n = len(mine & terms[cid])
        if n > shared:
            best, shared = cid, n
    return best
