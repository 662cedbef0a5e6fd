"""LLM-judged context relevance: one verdict per retrieved chunk, all chunks of a question in one call.

The judge (``prompts/context_relevance.md``) labels each chunk relevant, partly or not_relevant, with a reason
and the verbatim sentence that makes it relevant (located in the chunk: ``sentence_span``). With b_i = 1 for
a relevant chunk (and for a partly relevant one while ``partly_counts``) and n chunks:

.. math::
    \\mathrm{context\\_relevance} = \\frac{1}{n}\\sum_{i=1}^{n} b_i, \\qquad
    \\mathrm{context\\_precision} = \\frac{\\sum_{k=1}^{K} \\mathrm{precision@}k \\cdot b_k}{\\sum_{k=1}^{K} b_k}

(:func:`genevals.metrics.triad.rag_formulas.context_precision`, ragas' definition; K = ``k`` or all chunks). A chunk
the reply gives no verdict for counts as not relevant, flagged ``missing``. Unscored: ``empty_context``,
``no_question``, ``judge_error``, ``parse_error`` (no verdict readable), ``dry_run``. The answer is not
needed, so empty answers and refusals are scored too.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from genevals import types
from genevals.metrics.base import register, usage_statistics
from genevals import prompt_render
from genevals.metrics.judging.parse import ParseError, _as_int
from genevals.metrics.judging.one_call import items_of, spans_of, text_field
from genevals.metrics.judging.prompts import numbered_contexts
from genevals.metrics.triad.judged import NO_QUESTION, SingleCallJudge, Unscored
from genevals.metrics.triad.rag_formulas import (
    CONTEXT_RELEVANCE_OUTPUTS,
    chunk_label,
    chunk_scores,
    label_agreement,
    label_statistics,
)
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

RELEVANT, PARTLY, NOT_RELEVANT = "relevant", "partly", "not_relevant"
#: a verdict's score, for the AUC against labels
VERDICT_SCORE = {RELEVANT: 1.0, PARTLY: 0.5, NOT_RELEVANT: 0.0}
_VERDICTS = {"relevant": RELEVANT, "yes": RELEVANT, "highly relevant": RELEVANT, "partly": PARTLY,
             "partly relevant": PARTLY, "partial": PARTLY, "partially relevant": PARTLY, "partially": PARTLY,
             "not relevant": NOT_RELEVANT, "irrelevant": NOT_RELEVANT, "no": NOT_RELEVANT,
             "not_relevant": NOT_RELEVANT}
OFFLINE_NOTE = ("no judge configured: context_relevance comes from its offline variant (see genevals metrics "
                "context_relevance_local); --judge-base-url for an LLM judge\n"
                "The offline variant is MiniLM question-to-chunk similarity, calibrated on WikiQA and Cranfield.")


def normalize_verdict(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return _VERDICTS.get(re.sub(r"[\s_-]+", " ", value.strip().lower()).strip(" ."))


@register
class ContextRelevance(SingleCallJudge):
    """LLM judge: relevant / partly / not relevant per retrieved chunk; the share relevant and ragas' rank-aware
    context precision.

    Args:
        judge: the :class:`JudgeConfig`.
        k: context precision's cutoff (None: every chunk).
        partly_counts: count "partly" verdicts as relevant (default yes).
    """
    jury_items = ("chunks", "verdict")  # every judge labels the same chunks: a jury votes chunk by chunk
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("k", int, None, "judge the first k contexts only (default: all)", minimum=1),
        Setting("partly_counts", bool, True, "a partly relevant context counts as relevant"),
    )

    family = "context_relevance"
    outputs = CONTEXT_RELEVANCE_OUTPUTS
    order = 72
    offline_alternative = ("context_relevance_local", OFFLINE_NOTE)

    def settings(self) -> dict[str, Any]:
        return {"k": self.k or "all", "partly": "relevant" if self.partly_counts else "not_relevant",
                "budget": self.context_token_budget}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """Judge usage, and the verdicts' agreement with the ``relevant`` labels where the input has them."""
        result = outputs.get("context_relevance")
        return {**(usage_statistics(result, "context_relevance_judge_") or {}), **label_statistics(result)}

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        return {**{k: v for k, v in totals.items() if not k.startswith("context_relevance_labels:")},
                **label_agreement(totals)}

    def _check(self, sample: Sample) -> None:
        if not any(c.text.strip() for c in sample.contexts):
            raise Unscored(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no retrieved chunk to judge"))
        if not sample.question.strip():
            raise Unscored(NO_QUESTION, "the sample has no question to judge the chunks against")

    def _prompt(self, sample: Sample) -> str:
        text, _ = numbered_contexts(sample, self.context_token_budget * 4)
        return prompt_render.with_history(prompt_render.render("context_relevance", question=sample.question.strip(),
                                                   contexts=text), sample)

    def _schema(self, sample: Sample) -> dict[str, Any]:
        n = len(sample.contexts)
        item = {"type": "object",
                "properties": {"id": {"type": "integer"},
                               "verdict": {"type": "string", "enum": [RELEVANT, PARTLY, NOT_RELEVANT]},
                               "sentence": {"type": "string", "maxLength": 400},
                               "reason": {"type": "string", "maxLength": 200}},
                "required": ["id", "verdict", "sentence", "reason"], "additionalProperties": False}
        return {"type": "object", "properties": {"passages": {"type": "array", "maxItems": n, "items": item}},
                "required": ["passages"], "additionalProperties": False}

    def _score_reply(self, sample: Sample, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        got: dict[int, dict[str, Any]] = {}
        issues = details.setdefault("issues", [])
        for item in items_of(reply, "passages"):
            cid = _as_int(item.get("id", item.get("passage")))
            verdict = normalize_verdict(item.get("verdict", item.get("label")))
            if cid is None or not 1 <= cid <= len(sample.contexts) or cid in got:
                issues.append(f"verdict for unknown or repeated passage id {item.get('id')!r} ignored")
                continue
            if verdict is None:
                issues.append(f"passage {cid}: unknown verdict {item.get('verdict')!r}")
                continue
            got[cid] = {"verdict": verdict, "sentence": text_field(item, "sentence", "quote"),
                        "reason": text_field(item, "reason")}
        if not got:
            raise ParseError("no verdict for any passage could be read")
        _, truncated = numbered_contexts(sample, self.context_token_budget * 4)
        if truncated:
            details["contexts_truncated"] = True
        chunks = []
        for i, ctx in enumerate(sample.contexts):
            v = got.get(i + 1)
            record: dict[str, Any] = {"index": i, "rank": ctx.rank, "id": ctx.key, "label": chunk_label(sample, i)}
            if v is None:
                record.update({"verdict": None, "relevant": False, "missing": True, "score": 0.0,
                               "reason": "no verdict in the reply; counted as not relevant"})
            else:
                span = spans_of(v["sentence"], ctx.text) if v["sentence"] else []
                record.update({"verdict": v["verdict"], "reason": v["reason"], "sentence": v["sentence"],
                               "score": VERDICT_SCORE[v["verdict"]],
                               "sentence_span": span[0] if span else None, "missing": False,
                               "relevant": v["verdict"] == RELEVANT or (v["verdict"] == PARTLY and self.partly_counts)})
            chunks.append(record)
        missing = sum(1 for c in chunks if c["missing"])
        if missing:
            issues.append(f"{missing} passage(s) without a verdict counted as not relevant")
        return chunk_scores(chunks, self.k, details)
