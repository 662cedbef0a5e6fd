"""LLM-judged context recall: which facts of the reference answer the retrieved chunks contain.

One judge call per answer (``prompts/context_recall.md``): the reference is split into atomic facts, each
with a verbatim excerpt of the reference (located: its ``spans``) and the number of the chunk that states it
(0: missing). Over the n facts located in the reference:

.. math::
    \\mathrm{context\\_recall} = \\frac{\\#\\,\\text{facts attributed to a chunk}}{n}

Facts whose excerpt is not in the reference are listed (``located: false``) and not counted. The reference
is the sample's first non-empty one. Unscored: ``no_reference``, ``empty_context``, ``no_claims``,
``judge_error``, ``parse_error``, ``dry_run``.
"""
from __future__ import annotations

from typing import Any

from genevals import types
from genevals.metrics.base import register
from genevals import prompt_render
from genevals.metrics.judging.parse import _as_int
from genevals.metrics.judging.one_call import items_of, spans_of, text_field
from genevals.metrics.judging.prompts import numbered_contexts
from genevals.metrics.triad.judged import SingleCallJudge, Unscored, first_reference
from genevals.metrics.triad.rag_formulas import CONTEXT_RECALL_OUTPUTS, recall_result
from genevals.types import MetricResult, Sample
from genevals.metrics.settings import MAX_CLAIMS

OFFLINE_NOTE = ("no judge configured: context_recall comes from its offline variant (see genevals metrics "
                "context_recall_local); --judge-base-url for an LLM judge\n"
                "The offline variant runs the local grounding checker on the reference's sentences.")



@register
class ContextRecall(SingleCallJudge):
    """LLM judge: share of the reference answer's facts that some retrieved chunk states."""
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (MAX_CLAIMS,)

    family = "context_recall"
    outputs = CONTEXT_RECALL_OUTPUTS
    order = 73
    offline_alternative = ("context_recall_local", OFFLINE_NOTE)

    def settings(self) -> dict[str, Any]:
        return {"max_claims": self.max_claims, "reference": "first", "budget": self.context_token_budget}

    def _check(self, sample: Sample) -> None:
        if first_reference(sample) is None:
            raise Unscored(types.EMPTY_REFERENCE, "the sample has no reference answer to recall")
        if not any(c.text.strip() for c in sample.contexts):
            raise Unscored(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no retrieved chunk to find the reference's facts in"))

    def _prompt(self, sample: Sample) -> str:
        text, _ = numbered_contexts(sample, self.context_token_budget * 4)
        return prompt_render.with_history(prompt_render.render(
            "context_recall", question=sample.question.strip() or "(none)", contexts=text,
            reference=first_reference(sample)[1]), sample)

    def _schema(self, sample: Sample) -> dict[str, Any]:
        item = {"type": "object",
                "properties": {"claim": {"type": "string", "maxLength": 400},
                               "source": {"type": "string", "maxLength": 400},
                               "passage": {"type": "integer", "minimum": 0, "maximum": len(sample.contexts)},
                               "reason": {"type": "string", "maxLength": 200}},
                "required": ["claim", "source", "passage", "reason"], "additionalProperties": False}
        return {"type": "object", "properties": {"claims": {"type": "array", "maxItems": self.max_claims,
                                                            "items": item}},
                "required": ["claims"], "additionalProperties": False}

    def _score_reply(self, sample: Sample, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        ref_index, reference = first_reference(sample)
        claims = []
        for i, item in enumerate(items_of(reply, "claims")[: self.max_claims]):
            text = text_field(item, "claim", "text")
            if not text:
                continue
            spans = spans_of(text_field(item, "source") or text, reference)
            passage = _as_int(item.get("passage", item.get("context")))
            in_range = passage is not None and 1 <= passage <= len(sample.contexts)
            claims.append({"index": i, "text": text, "spans": spans, "located": bool(spans),
                           "found": in_range, "context_index": passage - 1 if in_range else None,
                           "reason": text_field(item, "reason")})
        return {"context_recall": recall_result(claims, ref_index, details)}
