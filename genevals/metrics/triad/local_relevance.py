"""The offline variants (no LLM) of answer_relevance, context_relevance, context_recall and answer_correctness.

They run when no judge is configured (as the local grounding checker runs for ``faithfulness``), write the
same outputs with the same details layout, and say ``variant:offline`` in their signature and
``judge.backend = "local"`` in their details. Built on the packaged all-MiniLM-L6-v2 sentence embeddings and
the local grounding checker's public API (:mod:`genevals.grounding.checker`: ``segment``, ``embed``,
``featurize``, ``decide_all``); cos is the cosine similarity of unit-normalised embeddings.

- **answer_relevance_local**: the estimated probability that the answer addresses the question,
  p = sigma(b + w . x) over :data:`~genevals.metrics.triad.triad_features.ANSWER_FEATURES` (cos(question, answer),
  the best sentence's cosine, word overlap, new words, length, answer type), weights fit on WikiQA
  (:mod:`genevals.metrics.triad.calibration`). Sentences whose cosine is under ``threshold`` are listed off-topic in
  the details (they do not enter the value).
- **context_relevance_local**: chunk i's score is its calibrated probability of relevance p_i over
  :data:`~genevals.metrics.triad.triad_features.CONTEXT_FEATURES` (the cosine of the chunk's first 94 word
  pieces to the question, whether it is a passage), fit on WikiQA and Cranfield with classes weighted to even
  odds; b_i = 1 when p_i >= ``threshold`` (0.5); context_relevance = mean b_i and context_precision = ragas' rank-aware precision of
  b (:func:`~genevals.metrics.triad.rag_formulas.context_precision`). It gives relevant / not_relevant only.
- **context_recall_local**: the reference's sentences are checked against the chunks by the grounding
  checker; found = "supported"; value = found / sentences.
- **answer_correctness_local**: the estimated probability that a person would accept the answer, over
  :data:`~genevals.metrics.triad.triad_features.CORRECTNESS_FEATURES` (token F1, reference recall, containment,
  numbers, cosine, length; best over all references), fit on NQ301: short answers ("Nixon") are scored.
  Precision and recall are SQuAD token precision and recall against the best reference.

English only (:data:`genevals.grounding.LANGUAGES`): MiniLM and the calibrations are English, the word features
ASCII. A sample in another language gets status ``unsupported_language``, naming its language and the LLM variant
to use instead, before anything is embedded; every result's details record the sample's language.

Each calibrated judge carries a validation card (:meth:`card`) measured by ``benchmarks/bench_triad.py``.
Where they are weak is measured in benchmarks/RESULTS.md ("Offline RAG judges").
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals import types
from genevals import grounding as checker_needs
from genevals.metrics.base import MODEL, Metric, Output, register
from genevals.metrics.triad.calibration import calibration, card
from genevals.metrics.triad.rag_formulas import (
    CONTEXT_RECALL_OUTPUTS,
    CONTEXT_RELEVANCE_OUTPUTS,
    NO_QUESTION,
    Unscored,
    check_answer,
    chunk_label,
    chunk_scores,
    first_reference,
    label_agreement,
    label_statistics,
    recall_result,
)
from genevals.metrics.triad.triad_features import (
    ANSWER_FEATURES,
    CONTEXT_FEATURES,
    CORRECTNESS_FEATURES,
    HEAD_PIECES,
    answer_features,
    chunk_sentences,
    context_features,
    correctness_features,
    stems,
)
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

ANSWER_THRESHOLD = 0.2
SHORT = ("{} has no sentence of three or more words, the local checker's unit of claim (short references such "
         "as 'Thursday.' need the LLM variant)")


def _judge_info(**settings: Any) -> dict[str, Any]:
    from genevals.grounding.checker import MODEL_NAME

    return {"backend": "local", "variant": "offline", "model": MODEL_NAME, **settings}


class _Local(Metric):
    """Per-sample loop with typed statuses; subclasses implement :meth:`_score`."""
    reads_language = True  # scores in the sample's language: the run counts its majority

    kind = MODEL
    order = 81
    extra, requires = checker_needs.EXTRA, checker_needs.REQUIRES  # the checker's MiniLM embeds, every variant
    languages = checker_needs.LANGUAGES

    def settings(self) -> dict[str, Any]:
        return {}

    def signature(self) -> str:
        from genevals.grounding.checker import MODEL_NAME

        return make_signature(self.writes_for, variant="offline", model=MODEL_NAME, **self.settings(),
                              lang=str(self.language), languages=",".join(sorted(self.languages or ())),
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
            skip = self.unsupported(sample, instead=checker_needs.instead(self.writes_for))
            if skip is not None:  # decided before anything is embedded
                out.append(self._unscored(skip.status, skip.reason or "", {**details, **skip.details}))
                continue
            details.update(self.language_details(sample))
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


@register
class AnswerRelevanceLocal(_Local):
    """Offline answer relevance: the calibrated probability that the answer addresses the question."""
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("threshold", float, ANSWER_THRESHOLD,
                "cosine under which a sentence is off-topic", minimum=-1, maximum=1),
    )

    family = "answer_relevance_local"
    writes_for = "answer_relevance"
    outputs = (Output("answer_relevance", "estimated probability that the answer addresses the question (logistic "
                                          "regression on MiniLM cosines, word overlap, length and answer type, "
                                          "calibrated on WikiQA at even prior odds)"),)

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.calibration = calibration("answer_relevance", ANSWER_FEATURES)

    def settings(self) -> dict[str, Any]:
        return {"calibration": self.calibration.tag, "off_topic_below": f"{self.threshold:g}"}

    @classmethod
    def card(cls) -> dict[str, Any] | None:
        return card("answer_relevance")

    @staticmethod
    def features(sample: Sample) -> tuple[list[float], list[tuple[int, int]], list[float]]:
        """(:data:`ANSWER_FEATURES`, the answer's sentence spans, their cosines to the question)."""
        from genevals.grounding.checker import segment, split_claims

        # The checker's claim sentences leave out fragments ("No.") whose similarity says nothing; an answer
        # made only of such fragments is judged on them.
        spans = split_claims(sample.answer) or segment(sample.answer)
        if not spans:
            raise Unscored(types.NO_CLAIMS, "no sentence with a word in the answer")
        sims = [float(v) for v in _cosines(sample.question, [sample.answer.strip()]
                                           + [sample.answer[s:e] for s, e in spans])]
        return answer_features(sample.question, sample.answer, sims[0], max(sims[1:])), spans, sims[1:]

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:
        check_answer(sample)
        if not sample.question.strip():
            raise Unscored(NO_QUESTION, "the sample has no question to judge the answer against")
        row, spans, sims = self.features(sample)
        sentences = [{"text": sample.answer[s:e], "spans": [[s, e]], "similarity": round(v, 4),
                      "on_topic": bool(v >= self.threshold)} for (s, e), v in zip(spans, sims)]
        total = sum(e - s for s, e in spans)
        on = sum(e - s for (s, e), c in zip(spans, sentences) if c["on_topic"])
        off = [{"text": c["text"], "spans": c["spans"], "located": True} for c in sentences if not c["on_topic"]]
        details.update({"sentences": sentences, "off_topic": off, "off_topic_share": 1 - on / total,
                        "features": dict(zip(ANSWER_FEATURES, (round(x, 4) for x in row)))})
        return {"answer_relevance": MetricResult("answer_relevance", self.calibration.probability(row),
                                                 details=details)}


@register
class ContextRelevanceLocal(_Local):
    """Offline context relevance: a chunk is relevant when its calibrated probability of relevance reaches the
    threshold."""
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("threshold", float, None,
                "probability from which a context counts as relevant (default: calibrated)", minimum=0, maximum=1),
        Setting("k", int, None, "the first k contexts only (default: all)", minimum=1),
    )

    outputs = CONTEXT_RELEVANCE_OUTPUTS

    family = "context_relevance_local"
    writes_for = "context_relevance"

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.calibration = calibration("context_relevance", CONTEXT_FEATURES)
        # a probability: the calibrated model's, above which a chunk is called relevant
        if self.threshold is None:
            self.threshold = float(self.calibration.threshold)
        if not 0.0 < self.threshold < 1.0:
            raise ValueError("threshold is a probability: it must lie strictly between 0 and 1")

    def settings(self) -> dict[str, Any]:
        return {"calibration": self.calibration.tag, "threshold": f"{self.threshold:g}", "k": self.k or "all"}

    @classmethod
    def card(cls) -> dict[str, Any] | None:
        return card("context_relevance")

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """The verdicts' agreement with the ``relevant`` labels, where the input has them."""
        return label_statistics(outputs.get("context_relevance"))

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        return label_agreement(totals)

    def chunk_similarities(self, sample: Sample) -> list[tuple[float, tuple[int, int] | None]]:
        """(best sentence similarity, its span) per chunk; (0, None) for an empty chunk."""
        return self.chunk_features(sample)[1]

    @staticmethod
    def chunk_features(sample: Sample) -> tuple[list[list[float]], list[tuple[float, tuple[int, int] | None]]]:
        """(:data:`CONTEXT_FEATURES` per chunk, (its cosine, the span of its sentence sharing the most words with
        the question) per chunk); (0, None) for an empty chunk.

        A chunk is embedded once, its first :data:`HEAD_PIECES` word pieces only: on WikiQA and Cranfield that
        ranks as well as the mean of its best sentence's and its whole cosine did, at a seventh of the CPU for
        abstracts (benchmarks/RESULTS.md, "Calibrated offline triad judges"). The sentence shown is chosen by
        shared words, which costs no embedding."""
        from genevals.grounding.checker import heads, segment

        texts = [c.text.strip() for c in sample.contexts]
        present = [i for i, t in enumerate(texts) if t]
        cosine = [0.0] * len(texts)
        if present:
            for i, v in zip(present, _cosines(sample.question, heads([texts[i] for i in present], HEAD_PIECES))):
                cosine[i] = float(v)
        asked = stems(sample.question)
        best: list[tuple[float, tuple[int, int] | None]] = []
        for ctx, text, v in zip(sample.contexts, texts, cosine):
            if not text:
                best.append((0.0, None))
                continue
            spans = chunk_sentences(ctx.text, segment(ctx.text)) or [(0, len(ctx.text))]
            best.append((v, max(spans, key=lambda se: len(asked & stems(ctx.text[se[0]:se[1]])))))
        return context_features(texts, cosine), best

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:

        if not any(c.text.strip() for c in sample.contexts):
            raise Unscored(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no retrieved chunk to judge"))
        if not sample.question.strip():
            raise Unscored(NO_QUESTION, "the sample has no question to judge the chunks against")
        chunks = []
        rows, best = self.chunk_features(sample)
        for i, (ctx, row, (sim, span)) in enumerate(zip(sample.contexts, rows, best)):
            p = self.calibration.probability(row) if span is not None else 0.0
            relevant = p >= self.threshold
            chunks.append({"index": i, "rank": ctx.rank, "id": ctx.key, "label": chunk_label(sample, i),
                           "score": round(p, 4), "relevant": relevant, "missing": False,
                           "verdict": "relevant" if relevant else "not_relevant", "similarity": round(sim, 4),
                           "sentence": ctx.text[span[0]:span[1]] if span else "",
                           "sentence_span": list(span) if span else None,
                           "reason": f"estimated probability of relevance {p:.2f} {'>=' if relevant else '<'} "
                                     f"{self.threshold:g} (similarity to the question {sim:.2f})"})
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
    """Offline answer correctness: the calibrated probability that a person would accept the answer, from its
    token overlap, containment, numbers and MiniLM similarity against the references (short answers too)."""

    outputs = (
        Output("answer_correctness", "estimated probability that a person would accept the answer as correct "
                                     "(logistic regression on token F1, containment, numbers and MiniLM "
                                     "similarity against the references, calibrated on NQ301)"),
        Output("answer_correctness_precision", "share of the answer's SQuAD tokens found in the best-matching "
                                               "reference"),
        Output("answer_correctness_recall", "share of the best-matching reference's SQuAD tokens found in the "
                                            "answer"),
    )

    family = "answer_correctness_local"
    writes_for = "answer_correctness"

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.calibration = calibration("answer_correctness", CORRECTNESS_FEATURES)

    def settings(self) -> dict[str, Any]:
        return {"calibration": self.calibration.tag, "references": "all"}

    @classmethod
    def card(cls) -> dict[str, Any] | None:
        return card("answer_correctness")

    @staticmethod
    def features(sample: Sample) -> tuple[list[float], list[str]]:
        """(:data:`CORRECTNESS_FEATURES`, the non-empty references they were computed against)."""
        refs = [r for r in sample.references if r.strip()]
        sims = _cosines(sample.answer.strip(), [r.strip() for r in refs])
        return correctness_features(sample.question, sample.answer, refs, [float(v) for v in sims]), refs

    def _score(self, sample: Sample, details: dict[str, Any]) -> dict[str, MetricResult]:
        from genevals.metrics.lexical.squad import TokenF1

        check_answer(sample)
        if first_reference(sample) is None:
            raise Unscored(types.EMPTY_REFERENCE, "the sample has no reference answer to compare with")
        row, refs = self.features(sample)
        f1 = TokenF1().score([Sample(sample.id, sample.answer, references=tuple(refs))])[0]["token_f1"]
        index = f1.details["reference_index"]
        details.update({"features": dict(zip(CORRECTNESS_FEATURES, (round(x, 4) for x in row))),
                        "reference_index": sample.references.index(refs[index])})
        token = {"token_f1": f1.value, "reference_index": details["reference_index"]}
        return {"answer_correctness": MetricResult("answer_correctness", self.calibration.probability(row),
                                                   details=details),
                "answer_correctness_precision": MetricResult("answer_correctness_precision",
                                                             f1.details["precision"], details=token),
                "answer_correctness_recall": MetricResult("answer_correctness_recall", f1.details["recall"],
                                                          details=token)}
