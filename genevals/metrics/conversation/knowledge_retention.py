"""LLM-judged knowledge retention: does the assistant keep to what the user told it earlier in the conversation?

One judge call per conversation, on its last assistant turn (``prompts/knowledge_retention.md``, the
transcript's turns numbered). The judge lists the facts the user gave (turn and verbatim quote) and the
assistant turns that contradict or ignore a fact the user gave in an *earlier* turn, each with the assistant's
words (quote), the fact and its turn. A failure counts when its quote is found in that turn's answer and its
fact's turn comes before it; the others are listed (``located: false`` or ``issues``) and not counted. Only
facts whose quote is found in their user turn count as given.

With :math:`f` the first turn in which the user gives a fact, the turns at stake are the assistant turns after
it, :math:`T = \\{t > f\\}`, and :math:`F \\subseteq T` the turns with a counted failure:

.. math::
    \\mathrm{knowledge\\_retention} = 1 - \\frac{|F|}{|T|}

Per turn after the first, ``details.turns`` says ``failed``, ``kept`` or ``not_at_stake`` (no fact given before
it): a jury votes on these (:mod:`.jury`). Statuses: ``not_last_turn`` (the conversation's other turns), ``not_conversation``, ``no_earlier_turns`` (one
exchange: nothing said earlier, no call), ``no_facts`` (the user gives no fact before the last turn),
``judge_error``, ``parse_error``, ``dry_run``. Offline: ``unsupported`` (:mod:`.offline`).
"""
from __future__ import annotations

from typing import Any

from genevals.metrics.base import Unscored, register
from genevals.metrics.conversation.judged import ConversationJudge, turn_of, turn_schema
from genevals.metrics.conversation.scope import Transcript
from genevals.metrics.judging.one_call import items_of, spans_of, text_field
from genevals.types import MetricResult

NO_EARLIER_TURNS = "no_earlier_turns"
NO_FACTS = "no_facts"
KINDS = ("contradicts", "ignores")


@register
class KnowledgeRetention(ConversationJudge):
    """LLM judge: share of the assistant turns after the user's first fact that neither contradict nor ignore
    a fact the user gave earlier."""

    family = "knowledge_retention"
    definition = ("share of the assistant turns after the user's first fact that neither contradict nor ignore a "
                  "fact the user gave earlier")
    order = 77
    jury_items = ("turns", "verdict", "turn")

    def _check(self, transcript: Transcript) -> None:
        if len(transcript.turns) < 2 and transcript.dropped:
            raise Unscored(NO_EARLIER_TURNS, f"the history budget left all {transcript.dropped} earlier message(s) "
                                             "out: raise --history-tokens to judge what the assistant retained")
        if len(transcript.turns) < 2:
            raise Unscored(NO_EARLIER_TURNS, "the conversation has one exchange: no earlier turn whose facts "
                                             "the assistant could forget")

    def _schema(self, transcript: Transcript) -> dict[str, Any]:
        turn = turn_schema(transcript)
        fact = {"type": "object", "properties": {"turn": turn, "quote": {"type": "string", "maxLength": 300}},
                "required": ["turn", "quote"], "additionalProperties": False}
        failure = {"type": "object",
                   "properties": {"turn": turn, "quote": {"type": "string", "maxLength": 300},
                                  "fact_turn": turn, "fact": {"type": "string", "maxLength": 300},
                                  "kind": {"type": "string", "enum": list(KINDS)},
                                  "reason": {"type": "string", "maxLength": 300}},
                   "required": ["turn", "quote", "fact_turn", "fact", "kind", "reason"],
                   "additionalProperties": False}
        return {"type": "object",
                "properties": {"facts": {"type": "array", "maxItems": 20, "items": fact},
                               "failures": {"type": "array", "maxItems": 20, "items": failure}},
                "required": ["facts", "failures"], "additionalProperties": False}

    def _score_reply(self, transcript: Transcript, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        issues = details.setdefault("issues", [])
        facts = []
        for item in items_of(reply, "facts"):
            turn = transcript.turn(turn_of(item))
            quote = text_field(item, "quote")
            if turn is None or not quote:
                issues.append(f"a fact with no turn of the transcript or no quote: dropped ({dict(item)})")
                continue
            facts.append({"turn": turn.number, "quote": quote, "located": bool(spans_of(quote, turn.user))})
        failures = []
        for item in items_of(reply, "failures"):
            turn, fact_turn = transcript.turn(turn_of(item)), transcript.turn(turn_of(item, "fact_turn"))
            quote, fact = text_field(item, "quote"), text_field(item, "fact")
            if turn is None or fact_turn is None:
                issues.append(f"a failure names a turn not in the transcript: dropped ({dict(item)})")
                continue
            spans = spans_of(quote, turn.assistant)
            entry = {"turn": turn.number, "quote": quote, "spans": spans, "located": bool(spans),
                     "fact": fact, "fact_turn": fact_turn.number,
                     "kind": item.get("kind") if item.get("kind") in KINDS else "contradicts",
                     "reason": text_field(item, "reason")}
            entry["counted"] = entry["located"] and fact_turn.number < turn.number
            if fact_turn.number >= turn.number:
                issues.append(f"turn {turn.number}'s failure names a fact of turn {fact_turn.number}, not an "
                              "earlier one: not counted")
            failures.append(entry)
            # a failure says the user gave a fact then, whether or not the facts list has it
            facts.append({"turn": fact_turn.number, "quote": fact, "located": bool(spans_of(fact, fact_turn.user))})
        if not issues:
            details.pop("issues")
        last = transcript.turns[-1].number
        # only facts found in the user's words count: a reply that copies the prompt's form ("...") gives none
        given = [f["turn"] for f in facts if f["turn"] < last and f["located"]]
        details.update({"facts": _unique(facts), "failures": failures})
        if not given:
            raise Unscored(NO_FACTS, "the judge found no fact the user gives before the last turn (with its "
                                     "words located in that turn): nothing the assistant could forget", **details)
        first = min(given)
        at_stake = [t.number for t in transcript.turns if t.number > first]
        failed = sorted({f["turn"] for f in failures if f["counted"]})
        value = 1.0 - len(failed) / len(at_stake)
        # every turn that could fail, labelled alike by every judge of a jury: the units it votes on
        details["turns"] = [{"turn": t.number, "verdict": "failed" if t.number in failed else "kept"
                             if t.number in at_stake else "not_at_stake"} for t in transcript.turns[1:]]
        details.update({"turns_at_stake": at_stake, "failed_turns": failed,
                        "first_failure": None if not failed else f"turn {failed[0]}: " + next(
                            f["quote"] for f in failures if f["counted"] and f["turn"] == failed[0])})
        return {"knowledge_retention": MetricResult("knowledge_retention", value, details=details)}


def _unique(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for fact in facts:
        key = (fact["turn"], fact["quote"].lower())
        if key not in seen:
            seen.add(key)
            out.append(fact)
    return sorted(out, key=lambda f: f["turn"])
