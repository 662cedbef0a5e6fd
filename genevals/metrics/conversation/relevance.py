"""LLM-judged conversation relevance: does each assistant turn address its user turn, read in context?

One judge call per conversation, on its last assistant turn (``prompts/conversation_relevance.md``). The judge
says for every assistant turn of the transcript whether it addresses what the user asked or said in that turn,
in the light of the earlier turns ("How long does it take?" asks about what was being discussed), with a
reason. Every turn of the transcript needs a verdict (a reply that leaves one out, or gives no reason for
any, is ``parse_error``); over its n turns:

.. math::
    \\mathrm{conversation\\_relevance} = \\frac{\\#\\,\\text{turns that address their user turn}}{n}

A jury votes turn by turn on these verdicts (:mod:`.jury`). Statuses: ``not_last_turn`` (the conversation's other turns), ``not_conversation``, ``judge_error``,
``parse_error``, ``dry_run``. Offline: ``unsupported`` (:mod:`.offline`).
"""
from __future__ import annotations

from typing import Any

from genevals.metrics.base import register
from genevals.metrics.conversation.judged import ConversationJudge, turn_of, turn_schema
from genevals.metrics.conversation.scope import Transcript
from genevals.metrics.judging.one_call import flag, items_of, text_field
from genevals.metrics.judging.parse import ParseError
from genevals.types import MetricResult



@register
class ConversationRelevance(ConversationJudge):
    """LLM judge: share of the assistant turns that address their user turn, read in context."""

    family = "conversation_relevance"
    definition = "share of the assistant turns that address their user turn, read in the light of the earlier turns"
    order = 78
    jury_items = ("verdicts", "relevant", "turn")

    def _schema(self, transcript: Transcript) -> dict[str, Any]:
        item = {"type": "object", "properties": {"turn": turn_schema(transcript), "relevant": {"type": "boolean"},
                                                 "reason": {"type": "string", "maxLength": 300}},
                "required": ["turn", "relevant", "reason"], "additionalProperties": False}
        return {"type": "object", "properties": {"turns": {"type": "array", "minItems": 1,
                                                           "maxItems": len(transcript.turns), "items": item}},
                "required": ["turns"], "additionalProperties": False}

    def _score_reply(self, transcript: Transcript, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        judged: dict[int, dict[str, Any]] = {}
        issues = details.setdefault("issues", [])
        for item in items_of(reply, "turns"):
            turn, relevant = transcript.turn(turn_of(item)), flag(item, "relevant")
            if turn is None or relevant is None:
                issues.append(f"a verdict with no turn of the transcript or no true/false 'relevant': dropped "
                              f"({dict(item)})")
                continue
            judged.setdefault(turn.number, {"turn": turn.number, "relevant": relevant,
                                            "reason": text_field(item, "reason")})
        if not judged:
            raise ParseError("the reply judges no turn of the transcript")
        # a share over the turns the judge chose to judge would say nothing about the others
        missing = [t.number for t in transcript.turns if t.number not in judged]
        if missing:
            raise ParseError(f"the reply judges turn(s) {', '.join(map(str, sorted(judged)))} but not "
                             f"{', '.join(map(str, missing))}: every assistant turn needs a verdict")
        if all(v["reason"] in ("", "...") for v in judged.values()):
            raise ParseError("the reply gives no reason for any verdict (it copies the prompt's form)")
        if not issues:
            details.pop("issues")
        verdicts = [judged[n] for n in sorted(judged)]
        value = sum(v["relevant"] for v in verdicts) / len(verdicts)
        details.update({"verdicts": verdicts, "irrelevant_turns": [v["turn"] for v in verdicts if not v["relevant"]]})
        return {"conversation_relevance": MetricResult("conversation_relevance", value, details=details)}
