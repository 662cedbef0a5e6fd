"""Local grounding (no LLM): the faithfulness outputs from the learned detector (default) or the rule checker.

Same outputs and details layout as the LLM ``faithfulness`` metric, so the report, ``genevals validate`` and the
cascade read either: claims with spans in the answer, verdicts with context_index / quote / quote_found /
quote_span / reason, plus a per-verdict ``confidence`` in [0.5, 1] and a response-level ``confidence``.
``method="learned"`` (:mod:`genevals.grounding.detector`, weights in ``genevals/grounding/detector.json``) also
gives each verdict ``probability`` (of the claim being hallucinated) and, when flagged, ``answer_span`` (the span
the weights' span mode names: the unsupported phrase, its clause or the sentence), and the answer
``probability``; its confidence is max(p, 1 - p). ``method="rules"`` uses
``genevals/grounding/thresholds.json`` (calibrated on RAGTruth dev by tools/calibrate_grounding.py).

English only (:data:`genevals.grounding.LANGUAGES`: ASCII word patterns, an English encoder and English
calibration): an answer in another language gets status ``unsupported_language`` naming its language and the LLM
judge to use instead, and no model is loaded for it. Each result's details record the sample's language.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals import types
from genevals import grounding as checker_needs
from genevals.metrics.base import Metric, register
from genevals.metrics.faithfulness.verdicts import from_history, restate, scored_outputs, unscored_outputs
from genevals.signature import make_signature, package_version
from genevals.text import detect_refusal
from genevals.types import Claim, MetricResult, Sample, Verdict
from genevals.settings import Setting

BACKEND = "local-grounding"
#: "learned": the detector trained by tools/train_grounding.py (default); "rules": the hand-set thresholds
METHODS = ("learned", "rules")
RULE_CONFIDENCE = 0.8  # an answer flagged by an explicit rule against its p: the rules' precision on RAGTruth dev


def response_confidence(labels: Sequence[str], confidences: Sequence[float]) -> float:
    """How sure the checker is of its answer-level call: the surest flag when it flags the answer, else the
    least sure 'supported'."""
    flagged = [c for lab, c in zip(labels, confidences) if lab != types.SUPPORTED]
    if flagged:
        return max(flagged)
    return min(confidences) if confidences else 0.5


@register
class Grounding(Metric):
    """Local hallucination detector (no LLM): share of the answer's sentences it does not flag.

    Claims are the answer's sentences; each is aligned to context sentences with all-MiniLM-L6-v2 embeddings
    and word recall. By default a logistic regression over the answer's and claims' features (word overlap,
    alignment, numbers/dates/names missing or bound elsewhere) flags the answer and its likeliest claims; with
    method="rules", hand-set thresholds and rules. faithfulness = supported / m, contradiction_rate =
    contradicted / m, unverifiable_rate = unverifiable / m, with m = n - h: a conversation's turn whose
    unsupported sentence repeats what the user said earlier (``from_history``, h of them) is in no share; m = n
    for a single answer.
    """
    reads_language = True  # scores in the sample's language: the run counts its majority
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("thresholds", object, None, "method rules: a thresholds JSON file or mapping"),
        Setting("device", str, "cpu", "where the embedding model runs"),
        Setting("batch_size", int, 64, "sentences per embedding batch", minimum=1),
        Setting("method", str, "learned", "the learned detector or the hand-set rules", choices=METHODS),
        Setting("detector", str, None, "a detector weights file (default: the packaged one)"),
        Setting("turns", str, "detector", "conversation turns: the detector, or 'overlap': the word-overlap rule "
                "(turn_overlap), which beats the detector on BEGIN's dialogue labels and is what faithfulness "
                "with no judge uses for them", choices=("detector", "overlap")),
    )

    family = "grounding"
    extra, requires = checker_needs.EXTRA, checker_needs.REQUIRES  # the checker's MiniLM
    outputs = restate("Local grounding (no LLM): share of answer sentences aligned to supporting context",
                      "Local grounding: share of answer sentences whose numbers or record fields conflict with the "
                      "aligned evidence",
                      "Local grounding: share of answer sentences without close evidence, or with numbers/names "
                      "absent from the contexts")
    writes_for = "faithfulness"
    order = 80
    languages = checker_needs.LANGUAGES

    def __init__(self, **values: Any) -> None:
        from genevals.grounding import checker

        super().__init__(**values)
        thresholds, detector = self.thresholds, self.detector
        if self.method == "learned" and thresholds is not None:
            raise ValueError("thresholds apply to method 'rules' (the learned detector has its own weights: "
                             "set detector=PATH, or method='rules')")
        self.detector_source = detector or "packaged"
        self.detector = None
        if self.method == "learned":
            from genevals.grounding import detector as learned

            self.detector = learned.load(detector)

        if isinstance(thresholds, Mapping):
            base = checker.load_thresholds()
            self.thresholds = {k: {**base[k], **dict(thresholds.get(k, {}))} for k in base}
        else:
            self.thresholds = checker.load_thresholds(thresholds)
        self.thresholds_source = thresholds if isinstance(thresholds, str) else (
            "inline" if thresholds else "packaged")
        # conversation turns scored by the word-overlap rule instead of the detector (issue 52: on people's labels
        # of dialogue turns the detector is worse than it)
        self.overlap = None
        if self.turns == "overlap":
            from genevals.metrics.faithfulness.turn_overlap import TurnOverlap

            self.overlap = TurnOverlap()
        self.encoder = self.detector.encoder if self.detector is not None else checker.FULL

    def training_record(self) -> dict[str, Any] | None:
        """What the learned detector was trained on and its cross-validated scores beside the baselines (from
        its weights file); None for the rules."""
        if self.detector is None:
            return None
        from genevals.grounding import detector as learned

        path = learned.WEIGHTS_PATH if self.detector_source == "packaged" else self.detector_source
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        judges = data["scores"]["cross_validated"]["judges"]
        keep = ("f1", "precision", "recall", "balanced_accuracy", "f1_minus_word_overlap", "ece")
        return {"trained_on": data["trained_on"],
                "cross_validated": {name: {**{k: v for k, v in r.items() if k in keep},
                                           "span_f1": r["span"]["f1"],
                                           "per_task_f1": {t: x["f1"] for t, x in r["per_task"].items()}}
                                    for name, r in judges.items()},
                "transfer": data["scores"].get("transfer")}

    def _thresholds_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.thresholds, sort_keys=True).encode()).hexdigest()[:10]

    def signature(self) -> str:
        from genevals.grounding.checker import MODEL_NAME

        if self.detector is not None:
            return make_signature("grounding", model=self.encoder.name, method="learned",
                                  weights=self.detector.digest, claims="sentences", **self._languages(),
                                  st=package_version("sentence-transformers"))
        return make_signature("grounding", model=MODEL_NAME, thresholds=self._thresholds_hash(),
                              claims="sentences", **self._languages(), st=package_version("sentence-transformers"))

    def _languages(self) -> dict[str, str]:
        """The signature's language handling: the run's setting, and the one language scored; and how conversation
        turns are scored, when not by the detector (so runs that differ in it never compare as alike)."""
        turns = {"turns": f"overlap@{self.overlap.threshold:g}"} if self.overlap is not None else {}
        return {"lang": str(self.language), "languages": ",".join(sorted(self.languages or ())), **turns}

    def judge_info(self, kind: str | None = None) -> dict[str, Any]:
        from genevals.grounding.checker import MODEL_NAME

        if self.detector is not None:
            info: dict[str, Any] = {"backend": BACKEND, "model": self.encoder.name, "method": "learned",
                                    "weights": self.detector_source, "weights_hash": self.detector.digest}
            if kind:
                info["context_kind"] = kind
            return info
        info = {"backend": BACKEND, "model": MODEL_NAME, "thresholds": self.thresholds_source,
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
        turns = [i for i, s in enumerate(samples) if s.conversation_id is not None] if self.overlap else []
        if not turns:
            return self._score(samples)
        self.overlap.language = self.language
        out: list[dict[str, MetricResult] | None] = [None] * len(samples)
        for i in turns:
            out[i] = self.overlap.score_one(samples[i])
        rest = [i for i in range(len(samples)) if out[i] is None]
        for i, result in zip(rest, self._score([samples[i] for i in rest]) if rest else []):
            out[i] = result
        return out  # type: ignore[return-value]

    def _score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        from genevals.grounding import checker

        out: list[dict[str, MetricResult] | None] = [None] * len(samples)
        todo = []
        for i, s in enumerate(samples):
            if not s.answer.strip():
                out[i] = self._unscored(types.EMPTY_ANSWER, "the answer is empty")
                continue
            skip = self.unsupported(s, instead=checker_needs.instead("faithfulness"))
            if skip is not None:  # decided before anything loads the encoder
                out[i] = self._unscored(skip.status, skip.reason or "", **skip.details)
                continue
            refusal = detect_refusal(s.answer)
            if refusal:
                out[i] = self._unscored(types.REFUSAL, f"the answer abstains ('{refusal}'); nothing to check")
                continue
            if not any(c.text.strip() for c in s.contexts):
                out[i] = self._unscored(types.NO_CONTEXT, types.no_context_reason(
                    s, "the sample has no context text to check claims against"))
                continue
            todo.append(i)
        try:
            feats = checker.featurize([(samples[i].answer, [c.text for c in samples[i].contexts],
                                        samples[i].question) for i in todo],
                                      batch_size=self.batch_size, device=self.device, encoder=self.encoder)
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
        if self.detector is not None:
            return self._learned(sample, f)
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
        return scored_outputs(claims, from_history(verdicts, claims, sample), {
            "issues": [], "confidence": round(response_confidence(labels, [d.confidence for d in decisions]), 4),
            "judge": self.judge_info(f.kind), "usage": self._usage(), **self.language_details(sample)})

    def _learned(self, sample: Sample, f) -> dict[str, MetricResult]:
        """Verdicts of the learned detector under :data:`genevals.grounding.detector.FLAG_RULE`; each reason
        shows the numbers that rule read, and the quote is the passage the verdict rests on
        (:func:`genevals.grounding.detector.passage_for`), or none when no passage is about the claim."""
        from genevals.grounding.detector import ALWAYS_RULES, RULE_REASONS

        contexts = [c.text for c in sample.contexts]
        pa, pc, analyses = self.detector.predict(f, contexts, sample.question, sample.answer)
        flags = self.detector.flagged(pa, pc, [a.rule for a in analyses])
        ta, tc = self.detector.answer_threshold, self.detector.claim_threshold
        claims, verdicts = [], []
        for c, p, a, flag in zip(f.claims, pc, analyses, flags):
            claims.append(Claim(c.index, c.text, ((c.start, c.end),), located=True))
            quote, span, ci = "", None, None
            if a.rule == "field" and a.conflict and c.field_conflicts:
                _, _, span, ci = c.field_conflicts[0]  # the record field it contradicts
                span = tuple(span)
            elif a.passage is not None:
                unit = f.units[a.passage]
                span, ci = (unit.start, unit.end), unit.context_index
            if span is not None:
                quote = sample.contexts[ci].text[span[0]:span[1]]
            phrase = self.detector.answer_span(c, a) if flag else None
            stats = f"similarity {c.sim:.2f}, word recall {c.recall_top:.2f}"
            active = a.rule in self.detector.rules or a.rule in ALWAYS_RULES
            why = _why(flag, a.rule if active else "", p, tc, pa, ta)
            if not flag:
                label = types.SUPPORTED
                reason = (f"aligned evidence found ({why}; {stats})" if quote
                          else f"no passage is about it, but nothing flags it ({why}; {stats})")
            else:
                label = types.CONTRADICTED if a.conflict and quote else types.UNVERIFIABLE
                what = f"'{c.text[a.phrase[0]:a.phrase[1]]}'" if a.phrase else "the sentence"
                if label == types.CONTRADICTED:
                    reason = f"{a.conflict} ({why}; {stats})"
                elif a.rule == "absent":
                    reason = f"no related evidence: {RULE_REASONS['absent']} ({why}; {stats})"
                elif quote:
                    reason = f"{what} is not supported by the closest evidence ({why}; {stats})"
                else:
                    reason = f"no related evidence in the contexts for {what} ({why}; {stats})"
            verdicts.append(Verdict(
                claim_index=c.index, label=label, context_index=ci, quote=quote, quote_found=bool(quote),
                quote_span=span, reason=reason, missing=False, answer_span=phrase,
                scores={"confidence": round(float(p if flag else 1 - p), 4), "probability": round(float(p), 4),
                        "similarity": round(c.sim, 4), "recall_aligned": round(c.recall_top, 4),
                        "recall_all": round(c.recall_all, 4)}))
        return scored_outputs(claims, from_history(verdicts, claims, sample), {
            "issues": [], "confidence": round(max(pa, 1 - pa) if not any(flags) or pa >= self.detector.answer_threshold
                                              else RULE_CONFIDENCE, 4), "probability": round(pa, 4),
            "judge": self.judge_info(f.kind), "usage": self._usage(), **self.language_details(sample)})


def _why(flag: bool, rule: str, p: float, tc: float, pa: float, ta: float) -> str:
    """The part of FLAG_RULE that decided a label, with the numbers it compared (a flagged claim under the claim
    threshold with no rule is the likeliest claim of an answer over the answer threshold)."""
    mine = f"p(hallucinated) {p:.2f}"
    if rule:
        return f"the '{rule}' rule flags it; {mine}"
    if p >= tc:
        return f"{mine} >= {tc:.2f}"
    if flag:
        return f"{mine}; the answer's p {pa:.2f} >= {ta:.2f} and this is its likeliest sentence"
    return f"{mine} < {tc:.2f}" + ("" if pa < ta else f"; the answer's p {pa:.2f} >= {ta:.2f} flags another sentence")
