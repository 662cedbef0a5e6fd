"""The conversation metrics without a judge: no offline check measures them (word overlap cannot tell a
contradiction or a forgotten fact from a paraphrase, nor a fulfilled request from an echoed one), so each
conversation's last turn gets status ``unsupported`` with the reason, never a number, and its other turns
``not_last_turn`` as with the judge (:mod:`.scope`)."""
from __future__ import annotations

from genevals.metrics.base import register
from genevals.metrics.conversation.completeness import ConversationCompleteness
from genevals.metrics.conversation.judged import OfflineConversation
from genevals.metrics.conversation.knowledge_retention import KnowledgeRetention
from genevals.metrics.conversation.relevance import ConversationRelevance


@register
class KnowledgeRetentionLocal(OfflineConversation):
    """Offline knowledge_retention: status ``unsupported`` (no offline check measures it)."""

    family = "knowledge_retention_local"
    writes_for = "knowledge_retention"
    outputs = KnowledgeRetention.outputs
    order = 87
    why = "telling whether a turn contradicts or ignores what the user said earlier takes reading both"


@register
class ConversationRelevanceLocal(OfflineConversation):
    """Offline conversation_relevance: status ``unsupported`` (no offline check measures it)."""

    family = "conversation_relevance_local"
    writes_for = "conversation_relevance"
    outputs = ConversationRelevance.outputs
    order = 88
    why = ("whether a turn addresses its user turn in context depends on the earlier turns, which the offline "
           "relevance model (trained on single questions) does not read")


@register
class ConversationCompletenessLocal(OfflineConversation):
    """Offline conversation_completeness: status ``unsupported`` (no offline check measures it)."""

    family = "conversation_completeness_local"
    writes_for = "conversation_completeness"
    outputs = ConversationCompleteness.outputs
    order = 89
    why = "finding the user's requests and whether one was fulfilled takes reading the conversation"
