"""LLM-judged answer correctness: the answer's facts against the reference's, both ways.

One judge call per answer (``prompts/answer_correctness.md``): the answer's facts, each with a verbatim
excerpt of the answer and whether the reference states it; the reference's facts, each with a verbatim
excerpt of the reference and whether the answer states it. Over the facts located in their own text:
TP / FP = answer facts the reference states / does not, F / FN = reference facts the answer states / misses,

.. math::
    P = \\frac{TP}{TP + FP}, \\quad R = \\frac{F}{F + FN}, \\quad
    \\mathrm{answer\\_correctness} = F_1 = \\frac{2PR}{P + R}

(:func:`genevals.metrics.triad.rag_formulas.claim_scores`; ragas' ``FactualCorrectness`` with recall counted on the
reference's own claims). The reference is the
sample's first non-empty one. Unscored: ``empty_answer``, ``refusal`` (no call), ``no_reference``,
``no_claims`` (no located fact in the answer or in the reference), ``judge_error``, ``parse_error``,
``dry_run``.
"""
from __future__ import annotations

from typing import Any

from genevals import types
from genevals.metrics.base import register
from genevals import prompt_render
from genevals.metrics.judging.one_call import flag, items_of, spans_of, text_field
from genevals.metrics.triad.judged import SingleCallJudge, Unscored, first_reference
from genevals.metrics.triad import rag_formulas
from genevals.metrics.triad.rag_formulas import ANSWER_CORRECTNESS_OUTPUTS, correctness_results
from genevals.types import MetricResult, Sample
from genevals.metrics.settings import MAX_CLAIMS

OFFLINE_NOTE = ("no judge configured: answer_correctness comes from its offline variant (see genevals metrics "
                "answer_correctness_local); --judge-base-url for an LLM judge\n"
                "The offline variant is a probability calibrated on NQ301 from overlap, containment, numbers and MiniLM "
                "similarity.")



def check_answer(sample: Sample) -> None:
    rag_formulas.check_answer(sample, "not compared with the reference")
    if first_reference(sample) is None:
        raise Unscored(types.EMPTY_REFERENCE, "the sample has no reference answer to compare with")


@register
class AnswerCorrectness(SingleCallJudge):
    """LLM judge: claim-level precision, recall and F1 of the answer against the reference answer."""
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (MAX_CLAIMS,)

    family = "answer_correctness"
    outputs = ANSWER_CORRECTNESS_OUTPUTS
    order = 74
    headline = ("answer_correctness",)
    reply_tokens = 1500
    offline_alternative = ("answer_correctness_local", OFFLINE_NOTE)

    def settings(self) -> dict[str, Any]:
        return {"max_claims": self.max_claims, "reference": "first", "recall": "reference-claims", "f1": "2pr/(p+r)"}

    def _check(self, sample: Sample) -> None:
        check_answer(sample)

    def _prompt(self, sample: Sample) -> str:
        return prompt_render.with_history(prompt_render.render(
            "answer_correctness", question=sample.question.strip() or "(none)",
            reference=first_reference(sample)[1], answer=sample.answer), sample)

    def _schema(self, sample: Sample) -> dict[str, Any]:
        def side(flag_name: str) -> dict[str, Any]:
            return {"type": "array", "maxItems": self.max_claims,
                    "items": {"type": "object", "properties": {"claim": {"type": "string", "maxLength": 400},
                                                               "source": {"type": "string", "maxLength": 400},
                                                               flag_name: {"type": "boolean"}},
                              "required": ["claim", "source", flag_name], "additionalProperties": False}}
        return {"type": "object", "properties": {"answer_claims": side("in_reference"),
                                                 "reference_claims": side("in_answer")},
                "required": ["answer_claims", "reference_claims"], "additionalProperties": False}

    def _claims(self, reply: Any, key: str, flag_name: str, text: str, issues: list[str]) -> list[dict[str, Any]]:
        out = []
        for i, item in enumerate(items_of(reply, key)[: self.max_claims]):
            claim = text_field(item, "claim", "text")
            if not claim:
                continue
            match = flag(item, flag_name)
            if match is None:
                issues.append(f"{key} {i + 1}: no true/false '{flag_name}'; counted as false")
            spans = spans_of(text_field(item, "source") or claim, text)
            out.append({"index": i, "text": claim, "spans": spans, "located": bool(spans), "match": bool(match)})
        return out

    def _score_reply(self, sample: Sample, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        ref_index, reference = first_reference(sample)
        issues = details.setdefault("issues", [])
        answer_claims = self._claims(reply, "answer_claims", "in_reference", sample.answer, issues)
        reference_claims = self._claims(reply, "reference_claims", "in_answer", reference, issues)
        return correctness_results(answer_claims, reference_claims, ref_index, details)
