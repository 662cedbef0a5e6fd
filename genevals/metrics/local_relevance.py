"""The offline variants (no LLM) of answer_relevance, context_relevance, context_recall and answer_correctness.

They run when no judge is configured (as the local grounding checker runs for ``faithfulness``), write the
same outputs with the same details layout, and say ``variant:offline`` in their signature and
``judge.backend = "local"`` in their details. Built on the packaged all-MiniLM-L6-v2 sentence embeddings and
the local grounding checker's public API (:mod:`genevals.grounding.checker`: ``segment``, ``embed``,
``featurize``, ``decide_all``); cos is the cosine similarity of unit-normalised embeddings.

- **answer_relevance_local**: the answer's sentences s_j (checker.split_claims: 3+ words; else
  checker.segment) are on topic when cos(question, s_j) >= ``threshold``; value = characters of on-topic
  sentences / characters of all sentences.
  It measures off-topic content only: it cannot tell which parts of the question are left unanswered.
- **context_relevance_local**: chunk i's score is max_u cos(question, u) over its sentences u (the best one is
  the chunk's ``sentence``); b_i = 1 when the score >= ``threshold``; context_relevance = mean b_i and
  context_precision = ragas' rank-aware precision of b (:func:`~genevals.metrics.rag_formulas.context_precision`).
  It gives relevant / not_relevant only (no "partly").
- **context_recall_local**: the reference's sentences are checked against the chunks by the grounding
  checker; found = "supported"; value = found / sentences.
- **answer_correctness_local**: the answer's sentences are checked against the reference (TP when supported,
  else FP) and the reference's sentences against the answer (FN when not supported); P, R, F1 as the LLM
  variant (:func:`~genevals.metrics.rag_formulas.claim_scores`).

Where they are weak is measured in benchmarks/RESULTS.md ("Offline RAG judges").
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals import types
from genevals.metrics import settings
from genevals.metrics.base import MODEL, Metric, Output, register
from genevals.metrics.rag_formulas import (
    ANSWER_CORRECTNESS_OUTPUTS,
    CONTEXT_RECALL_OUTPUTS,
    CONTEXT_RELEVANCE_OUTPUTS,
    NO_QUESTION,
    Unscored,
    chunk_label,
    chunk_scores,
    correctness_results,
    first_reference,
    label_agreement,
    label_statistics,
    recall_result,
)
from genevals.signature import make_signature, package_version
from genevals.text import detect_refusal
from genevals.types import MetricResult, Sample

ANSWER_THRESHOLD = 0.2
SHORT = ("{} has no sentence of three or more words, the local checker's unit of claim (short references such "
         "as 'Thursday.' need the LLM variant)")
CONTEXT_THRESHOLD = 0.45


def _judge_info(**settings: Any) -> dict[str, Any]:
    from genevals.grounding.checker import MODEL_NAME

    return {"backend": "local", "variant": "offline", "model": MODEL_NAME, **settings}


class _Local(Metric):
    """Per-sample loop with typed statuses; subclasses implement :meth:`_score`."""

    kind = MODEL
    order = 81

    def settings(self) -> dict[str, Any]:
        return {}

    def signature(self) -> str:
        from genevals.grounding.checker import MODEL_NAME

        return make_signature(self.writes_for, variant="offline", model=MODEL_NAME, **self.settings(),
                              st=package_version("sentence-transformers"))

    def describe(self) -> dict[str, str]:
        return {name: "Offline (MiniLM, no LLM): " + self.output(name).definition for name in self.output_names()}

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:
        raise NotImplementedError

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        out = []
        for sample in samples:
            details: dict[str, Any] = {"judge": _judge_info(**self.settings()),
                                       "usage": {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}}
            try:
                out.append(self._score(sample, details))
            except Unscored as exc:
                out.append(self._unscored(exc.status, exc.reason, {**details, **exc.details}))
            except Exception as exc:  # the model failed to load or run: record it, lose nothing
                out.append(self._unscored(types.ERROR, f"offline {self.writes_for} failed: "
                                                       f"{type(exc).__name__}: {exc}", details))
        return out

    def _unscored(self, status: str, reason: str, details: Mapping[str, Any]) -> dict[str, MetricResult]:
        names = self.output_names()
        return {n: MetricResult.unscored(n, status, reason, **(dict(details) if n == names[0] else {})) for n in names}


def _cosines(question: str, texts: Sequence[str]):
    from genevals.grounding.checker import embed

    vectors = embed([question, *texts])
    return vectors[1:] @ vectors[0]


def _answer_checks(sample: Sample) -> None:
    if not sample.answer.strip():
        raise Unscored(types.EMPTY_ANSWER, "the answer is empty")
    refusal = detect_refusal(sample.answer)
    if refusal:
        raise Unscored(types.REFUSAL, f"the answer abstains ('{refusal}')")


@register
class AnswerRelevanceLocal(_Local):
    """Offline answer relevance: share of the answer's characters in sentences similar to the question."""

    family = "answer_relevance_local"
    writes_for = "answer_relevance"
    outputs = (Output("answer_relevance", "share of the answer's characters in sentences whose MiniLM similarity "
                                          "to the question reaches the threshold"),)

    def __init__(self, threshold: float = ANSWER_THRESHOLD) -> None:
        self.threshold = settings.number("threshold", threshold, -1, 1)  # a cosine similarity

    def settings(self) -> dict[str, Any]:
        return {"threshold": f"{self.threshold:g}"}

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:
        from genevals.grounding.checker import segment, split_claims

        _answer_checks(sample)
        if not sample.question.strip():
            raise Unscored(NO_QUESTION, "the sample has no question to judge the answer against")
        # The checker's claim sentences leave out fragments ("No.") whose similarity says nothing; an answer
        # made only of such fragments is judged on them.
        spans = split_claims(sample.answer) or segment(sample.answer)
        if not spans:
            raise Unscored(types.NO_CLAIMS, "no sentence with a word in the answer")
        sims = _cosines(sample.question, [sample.answer[s:e] for s, e in spans])
        sentences = [{"text": sample.answer[s:e], "spans": [[s, e]], "similarity": round(float(v), 4),
                      "on_topic": bool(v >= self.threshold)} for (s, e), v in zip(spans, sims)]
        total = sum(e - s for s, e in spans)
        on = sum(e - s for (s, e), c in zip(spans, sentences) if c["on_topic"])
        off = [{"text": c["text"], "spans": c["spans"], "located": True} for c in sentences if not c["on_topic"]]
        details.update({"sentences": sentences, "off_topic": off, "off_topic_share": 1 - on / total})
        return {"answer_relevance": MetricResult("answer_relevance", on / total, details=details)}


@register
class ContextRelevanceLocal(_Local):
    """Offline context relevance: a chunk is relevant when one of its sentences is similar to the question."""

    outputs = CONTEXT_RELEVANCE_OUTPUTS

    family = "context_relevance_local"
    writes_for = "context_relevance"

    def __init__(self, threshold: float = CONTEXT_THRESHOLD, k: int | None = None) -> None:
        self.threshold = settings.number("threshold", threshold, -1, 1)  # a cosine similarity
        self.k = settings.whole("k", k, 1) if k is not None else None

    def settings(self) -> dict[str, Any]:
        return {"threshold": f"{self.threshold:g}", "k": self.k or "all"}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """The verdicts' agreement with the ``relevant`` labels, where the input has them."""
        return label_statistics(outputs.get("context_relevance"))

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        return label_agreement(totals)

    def chunk_similarities(self, sample: Sample) -> list[tuple[float, tuple[int, int] | None]]:
        """(best sentence similarity, its span) per chunk; (0, None) for an empty chunk."""
        from genevals.grounding.checker import segment

        units = [(i, s, e) for i, c in enumerate(sample.contexts) for s, e in segment(c.text)]
        sims = _cosines(sample.question, [sample.contexts[i].text[s:e] for i, s, e in units]) if units else []
        best: list[tuple[float, tuple[int, int] | None]] = [(0.0, None)] * len(sample.contexts)
        for (i, s, e), v in zip(units, sims):
            if best[i][1] is None or float(v) > best[i][0]:
                best[i] = (float(v), (s, e))
        return best

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:

        if not any(c.text.strip() for c in sample.contexts):
            raise Unscored(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no retrieved chunk to judge"))
        if not sample.question.strip():
            raise Unscored(NO_QUESTION, "the sample has no question to judge the chunks against")
        chunks = []
        for i, (ctx, (sim, span)) in enumerate(zip(sample.contexts, self.chunk_similarities(sample))):
            relevant = span is not None and sim >= self.threshold
            chunks.append({"index": i, "rank": ctx.rank, "id": ctx.key, "label": chunk_label(sample, i),
                           "score": round(sim, 2), "relevant": relevant, "missing": False,
                           "verdict": "relevant" if relevant else "not_relevant", "similarity": round(sim, 4),
                           "sentence": ctx.text[span[0]:span[1]] if span else "",
                           "sentence_span": list(span) if span else None,
                           "reason": f"best sentence similarity {sim:.2f} {'>=' if relevant else '<'} "
                                     f"{self.threshold:g}"})
        return chunk_scores(chunks, self.k, details)


def _checked(pairs: Sequence[tuple[str, Sequence[str], str]]):
    """(features, decisions) of the grounding checker for (text, evidence, question) triples."""
    from genevals.grounding import checker

    thresholds = checker.load_thresholds()
    feats = checker.featurize(pairs)
    return [(f, checker.decide_all(f, thresholds) if f.status == "ok" else []) for f in feats]


def _sentence_claims(f, decisions) -> list[dict[str, Any]]:
    return [{"index": c.index, "text": c.text, "spans": [[c.start, c.end]], "located": True,
             "match": d.label == types.SUPPORTED, "context_index": d.context_index, "reason": d.reason}
            for c, d in zip(f.claims, decisions)]


@register
class ContextRecallLocal(_Local):
    """Offline context recall: share of the reference's sentences the grounding checker finds supported."""

    outputs = CONTEXT_RECALL_OUTPUTS

    family = "context_recall_local"
    writes_for = "context_recall"

    def settings(self) -> dict[str, Any]:
        return {"claims": "sentences", "checker": "grounding", "reference": "first"}

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:

        ref = first_reference(sample)
        if ref is None:
            raise Unscored(types.EMPTY_REFERENCE, "the sample has no reference answer to recall")
        if not any(c.text.strip() for c in sample.contexts):
            raise Unscored(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no retrieved chunk to find the reference's facts in"))
        [(f, decisions)] = _checked([(ref[1], [c.text for c in sample.contexts], sample.question)])
        if f.status == "no_claims":
            raise Unscored(types.NO_CLAIMS, SHORT.format("the reference"))
        if f.status != "ok":
            raise Unscored(types.ERROR, f.reason)
        claims = _sentence_claims(f, decisions)
        for c in claims:
            c["found"] = c.pop("match")
            if not c["found"]:
                c["context_index"] = None
        return {"context_recall": recall_result(claims, ref[0], details)}


@register
class AnswerCorrectnessLocal(_Local):
    """Offline answer correctness: the grounding checker, answer sentences against the reference and back."""

    outputs = ANSWER_CORRECTNESS_OUTPUTS

    family = "answer_correctness_local"
    writes_for = "answer_correctness"

    def settings(self) -> dict[str, Any]:
        return {"claims": "sentences", "checker": "grounding", "reference": "first"}

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:

        _answer_checks(sample)
        ref = first_reference(sample)
        if ref is None:
            raise Unscored(types.EMPTY_REFERENCE, "the sample has no reference answer to compare with")
        (fa, da), (fr, dr) = _checked([(sample.answer, [ref[1]], sample.question),
                                       (ref[1], [sample.answer], sample.question)])
        for f, which in ((fa, "the answer"), (fr, "the reference")):
            if f.status == "no_claims":
                raise Unscored(types.NO_CLAIMS, SHORT.format(which))
            if f.status != "ok":
                raise Unscored(types.ERROR, f.reason)
        a, r = _sentence_claims(fa, da), _sentence_claims(fr, dr)
        return correctness_results(a, r, ref[0], details)
