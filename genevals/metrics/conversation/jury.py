"""A conversation judge on a jury (``--jury FILE``): every judge reads the same transcript, on the
conversation's last turn, and the jury combines them as any whole-sample judge
(:class:`~genevals.metrics.judging.jury.JuryScoring`): the value is the weighted mean of the values of the
judges that scored, with each judge's value, the spread and each judge's usage in the details; a judge that fails
(or whose verdict is a status: ``no_facts``, ``no_requests``) casts no vote, and when none scored the first
judge's status stands.

The turn-by-turn labels every judge gives on the same turns (knowledge_retention's failures, conversation
relevance's verdicts, completeness's requests per user turn: each metric's ``jury_items``) are voted turn by turn
and give the jury's Fleiss and Cohen kappas.

Which turn is a conversation's last, the run's planning pass has counted (:mod:`.scope`): the jury hands its
ledger to each judge's own instance, so each places its value on the same turn.
"""
from __future__ import annotations

import asyncio

from genevals.conversations.ledger import Ledger
from genevals.metrics.conversation.scope import NOT_CONVERSATION, NOT_LAST_TURN
from genevals.metrics.judging.jury import JuryScoring, combine
from genevals.types import MetricResult, Sample

#: statuses given before any call, the same for every judge: kept as the first judge's, without a jury record
BEFORE_ANY_CALL = (NOT_LAST_TURN, NOT_CONVERSATION)


class ConversationJury(JuryScoring):
    """Whole-sample jury scoring whose judges each read the run's conversations (their last turns)."""

    def see_conversations(self, conversations: Ledger) -> None:
        for member in self.members:
            member.see_conversations(conversations)
        super().see_conversations(conversations)  # type: ignore[misc]  (the jury is its family's class too)

    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        per_judge = await asyncio.gather(*(m._score_safe(sample) for m in self.members))
        statuses = {r.status for outputs in per_judge for r in outputs.values()}
        if len(statuses) == 1 and statuses <= set(BEFORE_ANY_CALL):
            return per_judge[0]
        return combine(dict(zip(self.jury.names, per_judge)), self.jury.weights, getattr(self, "jury_items", None))
