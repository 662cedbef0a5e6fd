"""Local grounding (no LLM): the faithfulness outputs from MiniLM alignment, word overlap and explicit rules.

Same outputs and details layout as the LLM ``faithfulness`` metric, so the report, ``genevals validate`` and the
cascade read either: claims with spans in the answer, verdicts with context_index / quote / quote_found /
quote_span / reason, plus a per-verdict ``confidence`` in [0.5, 1] and a response-level ``confidence``.
See :mod:`genevals.grounding.checker` for the method and ``genevals/grounding/thresholds.json`` for the
thresholds calibrated on RAGTruth dev.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Sequence

from genevals import types
from genevals.metrics.base import Metric, register
from genevals.metrics.verdicts import restate, scored_outputs, unscored_outputs
from genevals.signature import make_signature, package_version
from genevals.text import detect_refusal
from genevals.types import Claim, MetricResult, Sample, Verdict

BACKEND = "local-grounding"


def response_confidence(labels: Sequence[str], confidences: Sequence[float]) -> float:
    """How sure the checker is of its answer-level call: the surest flag when it flags the answer, else the
    least sure 'supported'."""
    flagged = [c for lab, c in zip(labels, confidences) if lab != types.SUPPORTED]
    if flagged:
        return max(flagged)
    return min(confidences) if confidences else 0.5


@register
class Grounding(Metric):
    """Local grounding checker (no LLM): share of the answer's sentences aligned to supporting context.

    Claims are the answer's sentences; each is aligned to context sentences with all-MiniLM-L6-v2 embeddings
    and word recall; numbers, names and JSON record fields absent from or conflicting with the contexts flag
    it. faithfulness = supported / n, contradiction_rate = contradicted / n, unverifiable_rate = unverifiable / n.
    """

    family = "grounding"
    outputs = restate("Local grounding (no LLM): share of answer sentences aligned to supporting context",
                      "Local grounding: share of answer sentences whose numbers or record fields conflict with the "
                      "aligned evidence",
                      "Local grounding: share of answer sentences without close evidence, or with numbers/names "
                      "absent from the contexts")
    writes_for = "faithfulness"
    order = 80

    def __init__(self, thresholds: str | Mapping[str, Any] | None = None, device: str = "cpu",
                 batch_size: int = 64) -> None:
        from genevals.grounding import checker

        if isinstance(thresholds, Mapping):
            base = checker.load_thresholds()
            self.thresholds = {k: {**base[k], **dict(thresholds.get(k, {}))} for k in base}
        else:
            self.thresholds = checker.load_thresholds(thresholds)
        self.thresholds_source = thresholds if isinstance(thresholds, str) else (
            "inline" if thresholds else "packaged")
        self.device = device
        self.batch_size = int(batch_size)
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")

    def _thresholds_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.thresholds, sort_keys=True).encode()).hexdigest()[:10]

    def signature(self) -> str:
        from genevals.grounding.checker import MODEL_NAME

        return make_signature("grounding", model=MODEL_NAME, thresholds=self._thresholds_hash(),
                              claims="sentences", st=package_version("sentence-transformers"))

    def judge_info(self, kind: str | None = None) -> dict[str, Any]:
        from genevals.grounding.checker import MODEL_NAME

        info: dict[str, Any] = {"backend": BACKEND, "model": MODEL_NAME, "thresholds": self.thresholds_source,
                                "thresholds_hash": self._thresholds_hash()}
        if kind:
            info["context_kind"] = kind
            info["settings"] = dict(self.thresholds[kind])
        return info

    @staticmethod
    def _usage() -> dict[str, Any]:
        return {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}

    def _unscored(self, status: str, reason: str, **details: Any) -> dict[str, MetricResult]:
        return unscored_outputs(status, reason, {"judge": self.judge_info(), "usage": self._usage(), **details})

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        from genevals.grounding import checker

        out: list[dict[str, MetricResult] | None] = [None] * len(samples)
        todo = []
        for i, s in enumerate(samples):
            if not s.answer.strip():
                out[i] = self._unscored(types.EMPTY_ANSWER, "the answer is empty")
                continue
            refusal = detect_refusal(s.answer)
            if refusal:
                out[i] = self._unscored(types.REFUSAL, f"the answer abstains ('{refusal}'); nothing to check")
                continue
            if not any(c.text.strip() for c in s.contexts):
                out[i] = self._unscored(types.NO_CONTEXT, "the sample has no context text to check claims against")
                continue
            todo.append(i)
        try:
            feats = checker.featurize([(samples[i].answer, [c.text for c in samples[i].contexts],
                                        samples[i].question) for i in todo],
                                      batch_size=self.batch_size, device=self.device)
        except Exception as exc:  # the model failed to load or run: record it on every sample
            reason = f"local grounding failed: {type(exc).__name__}: {exc}"
            for i in todo:
                out[i] = self._unscored(types.ERROR, reason)
            return out  # type: ignore[return-value]
        for i, f in zip(todo, feats):
            out[i] = self._result(samples[i], f)
        return out  # type: ignore[return-value]

    def _result(self, sample: Sample, f) -> dict[str, MetricResult]:
        from genevals.grounding import checker

        if f.status != "ok":
            status = {"no_claims": types.NO_CLAIMS, "empty_context": types.NO_CONTEXT,
                      "empty_answer": types.EMPTY_ANSWER}.get(f.status, types.ERROR)
            return self._unscored(status, f.reason, claims=[], verdicts=[])
        decisions = checker.decide_all(f, self.thresholds)
        claims, verdicts = [], []
        for c, d in zip(f.claims, decisions):
            claims.append(Claim(c.index, c.text, ((c.start, c.end),), located=True))
            quote, span = "", None
            if d.quote_span is not None and d.context_index is not None:
                span = tuple(d.quote_span)
                quote = sample.contexts[d.context_index].text[span[0]:span[1]]
            verdicts.append(Verdict(
                claim_index=c.index, label=d.label, context_index=d.context_index, quote=quote,
                quote_found=span is not None and bool(quote), quote_span=span, reason=d.reason, missing=False,
                scores={"confidence": round(d.confidence, 4), "support": round(d.score, 4),
                        "similarity": round(c.sim, 4), "recall_aligned": round(c.recall_top, 4),
                        "recall_all": round(c.recall_all, 4)}))
        labels = [d.label for d in decisions]
        return scored_outputs(claims, verdicts, {
            "issues": [], "confidence": round(response_confidence(labels, [d.confidence for d in decisions]), 4),
            "judge": self.judge_info(f.kind), "usage": self._usage()})
