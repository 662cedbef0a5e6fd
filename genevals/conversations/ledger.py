"""A run's conversations, counted once by its planning pass: for each (system, conversation id), how many of its
turns are still to score, which turn is its last, and whether its turns are numbered one by one.

Two readers need them before scoring starts, and both read this one record rather than counting turns again: the
engine, which cuts its units of work from the counts (a conversation's turns travel together once its last has
come: :func:`genevals.engine.units.whole_conversations`), and the conversation metrics, which put their one value
per conversation on its last turn (:mod:`genevals.metrics.conversation.scope`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from genevals.types import Sample

#: (system, conversation id)
Key = tuple[str, str]


@dataclass
class Ledger:
    #: each conversation's turns still to score (all of them after the planning pass; a resumed run takes out
    #: those its folder holds)
    turns: dict[Key, int] = field(default_factory=dict)
    #: each conversation's last turn number as the input gave them, and whether every turn before it was the one
    #: before that (1, 2, 3: the numbers can be counted back; 0, 5, 9: only positions)
    last: dict[Key, tuple[int, bool]] = field(default_factory=dict)

    @classmethod
    def of(cls, samples: Iterable[Sample]) -> Ledger:
        """The ledger of ``samples`` (a run's planning pass adds them one by one)."""
        ledger = cls()
        for sample in samples:
            ledger.add(sample)
        return ledger

    def add(self, sample: Sample) -> None:
        """Count ``sample``, a conversation's turn or not (then it is no one's business here)."""
        if sample.conversation_id is None:
            return
        key = (sample.system, sample.conversation_id)
        self.turns[key] = self.turns.get(key, 0) + 1
        if sample.turn is None:
            return
        before = self.last.get(key)
        self.last[key] = (sample.turn, before is None or (before[1] and sample.turn == before[0] + 1))

    def last_turn(self, sample: Sample) -> tuple[int, bool] | None:
        """The last turn of ``sample``'s conversation and whether its turns are numbered one by one; None when
        the ledger never saw it."""
        if sample.conversation_id is None:
            return None
        return self.last.get((sample.system, sample.conversation_id))
