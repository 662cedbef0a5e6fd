"""LLM-judged conversation completeness: were the user's requests fulfilled by the end of the conversation?

One judge call per conversation, on its last assistant turn (``prompts/conversation_completeness.md``). The
judge lists what the user asked for over the conversation (each request with its turn and the user's verbatim
words), and for each whether some assistant turn up to the last fulfilled it (and which). A request counts
when its quote is found in its user turn; the others are listed (``located: false``) and not counted. Over the
n counted requests:

.. math::
    \\mathrm{conversation\\_completeness} = \\frac{\\#\\,\\text{requests fulfilled by the end}}{n}

Per user turn, ``details.turns`` says whether its requests were ``fulfilled``, ``partly``, ``unfulfilled``, or
that it made ``no_request``: a jury votes on these, as judges word the requests differently (:mod:`.jury`).
Statuses: ``not_last_turn`` (the conversation's other turns), ``not_conversation``, ``no_requests`` (the user
asks for nothing), ``judge_error``, ``parse_error``, ``dry_run``. Offline: ``unsupported`` (:mod:`.offline`).
"""
from __future__ import annotations

from typing import Any

from genevals.metrics.base import Unscored, register
from genevals.metrics.conversation.judged import ConversationJudge, turn_of, turn_schema
from genevals.metrics.conversation.scope import Transcript
from genevals.metrics.judging.one_call import flag, items_of, spans_of, text_field
from genevals.types import MetricResult

NO_REQUESTS = "no_requests"


@register
class ConversationCompleteness(ConversationJudge):
    """LLM judge: share of the user's requests that the assistant fulfilled by the end of the conversation."""

    family = "conversation_completeness"
    definition = "share of the user's requests in the conversation that an assistant turn fulfilled by its end"
    order = 79
    jury_items = ("turns", "verdict", "turn")

    def _schema(self, transcript: Transcript) -> dict[str, Any]:
        turn = turn_schema(transcript)
        item = {"type": "object",
                "properties": {"turn": turn, "request": {"type": "string", "maxLength": 300},
                               "quote": {"type": "string", "maxLength": 300}, "fulfilled": {"type": "boolean"},
                               "fulfilled_in": {"type": "integer", "minimum": 0},
                               "reason": {"type": "string", "maxLength": 300}},
                "required": ["turn", "request", "quote", "fulfilled", "fulfilled_in", "reason"],
                "additionalProperties": False}
        return {"type": "object", "properties": {"requests": {"type": "array", "maxItems": 20, "items": item}},
                "required": ["requests"], "additionalProperties": False}

    def _score_reply(self, transcript: Transcript, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        requests = []
        issues = details.setdefault("issues", [])
        for item in items_of(reply, "requests"):
            turn, fulfilled = transcript.turn(turn_of(item)), flag(item, "fulfilled")
            if turn is None or fulfilled is None:
                issues.append(f"a request with no turn of the transcript or no true/false 'fulfilled': dropped "
                              f"({dict(item)})")
                continue
            quote = text_field(item, "quote")
            spans = spans_of(quote, turn.user)
            by = transcript.turn(turn_of(item, "fulfilled_in"))
            requests.append({"turn": turn.number, "request": text_field(item, "request") or quote, "quote": quote,
                             "spans": spans, "located": bool(spans), "fulfilled": fulfilled,
                             "fulfilled_in": by.number if fulfilled and by is not None else None,
                             "reason": text_field(item, "reason")})
        if not issues:
            details.pop("issues")
        details["requests"] = requests
        counted = [r for r in requests if r["located"]]
        if not counted:
            raise Unscored(NO_REQUESTS, "the judge found no request of the user's (with its words located in its "
                                        "turn) to fulfil", **details)
        value = sum(r["fulfilled"] for r in counted) / len(counted)
        details["turns"] = [{"turn": t.number, "verdict": _verdict([r["fulfilled"] for r in counted
                                                                    if r["turn"] == t.number])}
                            for t in transcript.turns]
        details["unfulfilled"] = [f"turn {r['turn']}: {r['request']}" for r in counted if not r["fulfilled"]]
        return {"conversation_completeness": MetricResult("conversation_completeness", value, details=details)}


def _verdict(fulfilled: list[bool]) -> str:
    """One user turn's requests as one label: judges list requests in their own words, but agree or not on the
    turn's outcome, which a jury can vote on."""
    if not fulfilled:
        return "no_request"
    return "fulfilled" if all(fulfilled) else "unfulfilled" if not any(fulfilled) else "partly"
