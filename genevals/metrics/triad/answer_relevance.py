"""LLM-judged answer relevance: does the answer address the question?

One judge call per answer (``prompts/answer_relevance.md``): the judge splits the question into the parts it
asks for, says for each whether the answer answers it, and copies the answer's off-topic excerpts verbatim.

.. math::
    \\mathrm{coverage} = \\frac{\\#\\,\\text{parts answered}}{\\#\\,\\text{parts}}, \\qquad
    \\mathrm{off\\_topic} = \\frac{|\\bigcup \\text{off-topic spans}|}{|\\text{answer}|}, \\qquad
    \\mathrm{answer\\_relevance} = \\mathrm{coverage} \\cdot (1 - \\mathrm{off\\_topic})

where the spans are the off-topic excerpts located in the answer (characters, answer stripped of surrounding
whitespace); excerpts not found in the answer are listed (``located: false``) and not counted. Unscored:
``empty_answer``, ``refusal`` (no call), ``no_question``, ``judge_error``, ``parse_error`` (also a reply with
no question part), ``dry_run``. Without a judge configured, :mod:`genevals.metrics.triad.local_relevance` scores it.
"""
from __future__ import annotations

from typing import Any

from genevals.metrics.base import register
from genevals import prompt_render
from genevals.metrics.judging.parse import ParseError
from genevals.metrics.judging.one_call import flag, items_of, spans_of, text_field
from genevals.metrics.triad.judged import NO_QUESTION, SingleCallJudge, Unscored
from genevals.metrics.triad.rag_formulas import ANSWER_RELEVANCE_OUTPUTS, check_answer
from genevals.types import MetricResult, Sample

OFFLINE_NOTE = ("no judge configured: answer_relevance comes from its offline variant (see genevals metrics "
                "answer_relevance_local); --judge-base-url for an LLM judge\n"
                "The offline variant is a probability from MiniLM similarity, word overlap, length and answer type, "
                "calibrated on WikiQA.")


def union_length(spans: list[list[int]]) -> int:
    """Characters covered by the union of [start, end) spans."""
    total, reach = 0, -1
    for start, end in sorted(spans):
        start = max(start, reach)
        if end > start:
            total += end - start
        reach = max(reach, end)
    return total


@register
class AnswerRelevance(SingleCallJudge):
    """LLM judge: share of the question's parts answered, times the on-topic share of the answer."""

    family = "answer_relevance"
    outputs = ANSWER_RELEVANCE_OUTPUTS
    order = 71
    reply_tokens = 600
    offline_alternative = ("answer_relevance_local", OFFLINE_NOTE)

    def _check(self, sample: Sample) -> None:
        check_answer(sample, "not sent to the judge")
        if not sample.question.strip():
            raise Unscored(NO_QUESTION, "the sample has no question to judge the answer against")

    def _prompt(self, sample: Sample) -> str:
        return prompt_render.with_history(prompt_render.render("answer_relevance", question=sample.question.strip(),
                                                   answer=sample.answer), sample)

    def _schema(self, sample: Sample) -> dict[str, Any]:
        part = {"type": "object", "properties": {"part": {"type": "string", "maxLength": 200},
                                                 "answered": {"type": "boolean"}},
                "required": ["part", "answered"], "additionalProperties": False}
        return {"type": "object",
                "properties": {"parts": {"type": "array", "minItems": 1, "maxItems": 8, "items": part},
                               "off_topic": {"type": "array", "maxItems": 8,
                                             "items": {"type": "string", "maxLength": 400}},
                               "reason": {"type": "string", "maxLength": 300}},
                "required": ["parts", "off_topic", "reason"], "additionalProperties": False}

    def _score_reply(self, sample: Sample, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        parts = []
        for item in items_of(reply, "parts"):
            answered = flag(item, "answered")
            if answered is None:
                details.setdefault("issues", []).append("a question part has no true/false 'answered'; dropped")
                continue
            parts.append({"part": text_field(item, "part", "text"), "answered": answered})
        if not parts:
            raise ParseError("the reply lists no question part with an 'answered' flag")
        answer = sample.answer
        lead = len(answer) - len(answer.lstrip())
        length = len(answer.strip())
        off = []
        for excerpt in reply.get("off_topic") or []:
            if isinstance(excerpt, str) and excerpt.strip():
                spans = spans_of(excerpt, answer)
                off.append({"text": excerpt.strip(), "spans": spans, "located": bool(spans)})
        covered = union_length([[max(s, lead), min(e, lead + length)] for o in off for s, e in o["spans"]])
        coverage = sum(1 for p in parts if p["answered"]) / len(parts)
        off_share = covered / length
        value = coverage * (1.0 - off_share)
        reason = reply.get("reason") if isinstance(reply.get("reason"), str) else ""
        details.update({"parts": parts, "off_topic": off, "coverage": coverage, "off_topic_share": off_share,
                        "unanswered": [p["part"] for p in parts if not p["answered"]], "reason": reason})
        return {"answer_relevance": MetricResult("answer_relevance", value, details=details)}
