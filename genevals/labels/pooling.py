"""TREC pooling: the union of each run's top ``depth`` documents per topic (Voorhees and Harman, TREC, ch. 2).

Only the pooled documents are judged; a document outside the pool is unjudged, which trec_eval's measures count
as not relevant. The pool's order is stable (runs in the order given, each run's documents by rank, a document
kept where it first appears), so the same runs give the same pool, the same judge requests and so the same
cache keys.
"""
from __future__ import annotations

from typing import Mapping, Sequence


class Pool(dict):
    """``{topic id: [doc ids]}``, and how it was made: :attr:`depth` and the :attr:`runs`' names."""

    def __init__(self, docs: Mapping[str, list[str]], depth: int, runs: Sequence[str]) -> None:
        super().__init__(docs)
        self.depth = depth
        self.runs = list(runs)

    @property
    def pairs(self) -> int:
        """How many (topic, document) pairs the pool holds: the judgements to make."""
        return sum(len(docs) for docs in self.values())


def pool(runs: Mapping[str, Mapping[str, Sequence[str]]], depth: int) -> Pool:
    """``{topic id: [doc ids]}``: the union of each run's top ``depth`` documents per topic, in a stable order
    (topics as they first appear across the runs; within a topic, run by run, rank by rank).

    Args:
        runs: ``{run name: {topic id: [doc ids in rank order]}}``.
        depth: how many of each run's top documents per topic are pooled (TREC pools are often 10 to 100).
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth: the pool depth must be a whole number of at least 1, got {depth!r}")
    pooled: dict[str, dict[str, None]] = {}
    for ranking in runs.values():
        for topic, docs in ranking.items():
            seen = pooled.setdefault(str(topic), {})
            for doc in list(docs)[:depth]:
                seen.setdefault(str(doc))
    return Pool({topic: list(docs) for topic, docs in pooled.items()}, depth, [str(r) for r in runs])
