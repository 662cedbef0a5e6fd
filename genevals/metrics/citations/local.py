"""Citations checked offline: phi(X, s) is the local grounding checker's verdict on sentence s against the
contexts X alone (all-MiniLM-L6-v2 alignment, word recall, numbers and names; its RAGTruth-calibrated rule
thresholds, :mod:`genevals.grounding.checker`). The formulas are :mod:`genevals.metrics.citations.formulas`'.

Per cited sentence it asks phi(C_s, s), phi({c}, s) and phi(C_s minus c, s) for each citation when there are
several, and phi(K, s) over all retrieved contexts; every text is embedded once per process.

English only, as the checker is (:data:`genevals.grounding.LANGUAGES`): an answer in another language gets status
``unsupported_language``, naming its language and the LLM judge (``citations``) to use instead, before anything
is embedded; every result's details record the sample's language.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genevals import types
from genevals import grounding as checker_needs
from genevals.claims.citations import PatternError, ScanError, compile_pattern
from genevals.metrics.base import Metric, register
from genevals.metrics.citations import calibration, citation_features, formulas
from genevals.metrics.citations.formulas import CitationCheck, SentenceCheck, Unscored
from genevals.metrics.citations.sentences import CitationInputError, CitedSentence, cited_sentences
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

BACKEND = "local-citations"


def sentences_of(sample: Sample, pattern: Any) -> list[CitedSentence]:
    """The answer's cited sentences, the statuses checked (:class:`Unscored` when it cannot be scored)."""
    try:
        sentences, _ = cited_sentences(sample, pattern)
    except CitationInputError as exc:
        raise Unscored(types.ERROR, f"{sample.origin or sample.id}: field 'citations': {exc}") from None
    except ScanError as exc:
        raise Unscored(types.ERROR, f"{sample.origin or sample.id}: {exc}") from None
    formulas.precheck(sample, sentences)
    return sentences


def checked_pattern(pattern: str | None) -> Any:
    """The compiled custom pattern (None: the default forms); a ValueError naming it when it cannot be used."""
    try:
        return compile_pattern(pattern)
    except PatternError as exc:
        raise ValueError(str(exc)) from None


def markers_setting(pattern: str | None) -> str:
    """The signature's ``markers`` setting: ``default``, or ``re2-`` and the custom pattern's SHA-256 prefix (so
    runs with different patterns, or a pattern run by another engine, never compare as the same settings)."""
    if not pattern:
        return "default"
    import hashlib

    return "re2-" + hashlib.sha256(pattern.encode("utf-8", "surrogatepass")).hexdigest()[:12]


@register
class CitationsLocal(Metric):
    """Offline citation checks (no LLM): ALCE citation recall, precision, coverage and miscited sentences, with
    the local grounding checker deciding whether cited contexts support a sentence.

    Args:
        pattern: a regular expression for the citation markers (its group ``ref``, else its first group, holds
            the references); None: ``[n]``, ``[n, m]``, ``[n-m]``, ``[id]``, ``(Source n)`` and ``^n``.
        device: where the MiniLM encoder runs.
        calibration: ``rule`` (default): the checker's rule verdict; ``expertqa``: a citation is unsupported when
            the logistic model calibrated on ExpertQA's expert labels gives p(not supported) >= its threshold
            (:mod:`genevals.metrics.citations.calibration`; both measured on its card).
    """
    reads_language = True  # scores in the sample's language: the run counts its majority
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("pattern", str, None, "regex of citation markers (RE2; group 'ref' holds the references)"),
        Setting("device", str, "cpu", "where the embedding model runs"),
        Setting("calibration", str, "rule", "rule: the checker's rule verdict; expertqa: the model calibrated on "
                "ExpertQA's expert labels (both on the validation card)", choices=calibration.MODES),
    )

    family = "citations_local"
    extra, requires = checker_needs.EXTRA, checker_needs.REQUIRES  # the checker's MiniLM
    outputs = formulas.OUTPUTS
    writes_for = "citations"
    order = 84
    languages = checker_needs.LANGUAGES

    def __init__(self, **values: Any) -> None:
        from genevals.grounding import checker

        super().__init__(**values)
        self.pattern_text = self.pattern
        self.pattern = checked_pattern(self.pattern_text)
        self.thresholds = checker.load_thresholds()
        self.model = calibration.model() if self.calibration == "expertqa" else None

    @classmethod
    def card(cls) -> dict[str, Any] | None:
        """Measured on ExpertQA's expert labels (:mod:`genevals.metrics.citations.calibration`)."""
        return calibration.card()

    @property
    def warning(self) -> str | None:
        # shown by every run that uses the checker (terminal, summary.json, report) while it does not beat the
        # best trivial baseline on expert labels
        return calibration.caveat(self.calibration)

    def signature(self) -> str:
        from genevals.grounding.checker import MODEL_NAME

        # the default rule keeps its signature; a calibrated run names the fit it used
        fit = {"calibration": f"expertqa-{self.model.tag}"} if self.model is not None else {}
        return make_signature("citations", variant="local", model=MODEL_NAME,
                              markers=markers_setting(self.pattern_text), **fit, lang=str(self.language),
                              languages=",".join(sorted(self.languages or ())), st=package_version("sentence-transformers"))

    def describe(self) -> dict[str, str]:
        return {o.name: "Local (no LLM): " + o.definition for o in self.outputs}

    def judge_info(self) -> dict[str, Any]:
        from genevals.grounding.checker import MODEL_NAME

        return {"backend": BACKEND, "model": MODEL_NAME, "variant": "local",
                "pattern": self.pattern_text or "default", "calibration": self.calibration}

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        out: list[dict[str, MetricResult] | None] = [None] * len(samples)
        todo: list[tuple[int, list[CitedSentence]]] = []
        for i, sample in enumerate(samples):
            skip = self.unsupported(sample, instead=checker_needs.instead("citations")) if sample.answer.strip() \
                else None
            if skip is not None:  # decided before anything is embedded
                out[i] = formulas.unscored(skip.status, skip.reason or "", {"judge": self.judge_info(), **skip.details})
                continue
            try:
                todo.append((i, sentences_of(sample, self.pattern)))
            except Unscored as exc:
                out[i] = formulas.unscored(exc.status, exc.reason, {"judge": self.judge_info(), **exc.details})
        try:
            checks = self.check([(samples[i], sentences) for i, sentences in todo])
        except Exception as exc:  # the encoder failed to load or run: every sample says so
            reason = f"local citation check failed: {type(exc).__name__}: {exc}"
            for i, _ in todo:
                out[i] = formulas.unscored(types.ERROR, reason, {"judge": self.judge_info()})
            return out  # type: ignore[return-value]
        for (i, sentences), found in zip(todo, checks):
            fill_quotes(samples[i], found)
            out[i] = formulas.scored(sentences, found, {"judge": self.judge_info(), "source": (
                "field" if samples[i].citations is not None else "markers"),
                **self.language_details(samples[i])})
        return out  # type: ignore[return-value]

    def check(self, items: Sequence[tuple[Sample, list[CitedSentence]]]) -> list[dict[int, SentenceCheck]]:
        """phi for every question each cited sentence needs, all texts embedded in one batched pass."""
        from genevals.grounding import checker

        asks: list[tuple[str, list[str], str]] = []
        plan: list[list[tuple[CitedSentence, list[tuple[int, ...]]]]] = []
        for sample, sentences in items:
            texts = [c.text for c in sample.contexts]
            rows = []
            for s in sentences:
                if not (s.factual and s.cited):
                    continue
                sets = [tuple(s.cited)]  # C_s
                if len(s.cited) > 1:
                    sets += [(c,) for c in s.cited] + [tuple(x for x in s.cited if x != c) for c in s.cited]
                sets.append(tuple(range(len(texts))))  # K
                for subset in sets:
                    asks.append((s.text, [texts[j] if j in subset else "" for j in range(len(texts))], ""))
                rows.append((s, sets))
            plan.append(rows)
        features = checker.featurize(asks, device=self.device) if asks else []
        at = 0
        out = []
        for (sample, _), rows in zip(items, plan):
            found: dict[int, SentenceCheck] = {}
            for s, sets in rows:
                verdicts = [self._phi(features[at + k], sample, asks[at + k]) for k in range(len(sets))]
                at += len(sets)
                found[s.index] = self._sentence(s, verdicts)
            out.append(found)
        return out

    def _phi(self, f, sample: Sample, ask: tuple[str, list[str], str]) -> tuple[bool, float | None, str, int | None,
                                                                              tuple[int, int] | None]:
        """(supported, support score, reason, context of the quote, quote span) of one featurized check."""
        from genevals.grounding import checker

        if f.status != "ok" or not f.claims:
            return False, None, f.reason or "nothing to check against", None, None
        decisions = [checker.decide(f, c, self.thresholds[f.kind]) for c in f.claims]
        worst = min(decisions, key=lambda d: (d.label == types.SUPPORTED, d.score))
        ok = all(d.label == types.SUPPORTED for d in decisions)
        if self.model is None:
            return ok, round(worst.score, 4), worst.reason, worst.context_index, worst.quote_span
        claim, contexts, _ = ask
        p = self.model.probability(citation_features.features(f, self.thresholds, claim,
                                                              [c for c in contexts if c]))
        ok = p < self.model.threshold
        reason = (f"calibrated on ExpertQA: p(not supported) {p:.2f} {'<' if ok else '>='} "
                  f"{self.model.threshold:.2f}; the rule said: {worst.reason}")
        return ok, round(1.0 - p, 4), reason, worst.context_index, worst.quote_span

    def _sentence(self, s: CitedSentence, verdicts: list) -> SentenceCheck:
        whole, everything = verdicts[0], verdicts[-1]
        n = len(s.cited)
        citations = []
        for k, ci in enumerate(s.cited):
            alone = whole if n == 1 else verdicts[1 + k]
            rest = False if n == 1 else verdicts[1 + n + k][0]
            # a quote only where the context supports the sentence, alone or with the others
            quote_span = (alone[4] if alone[0] and alone[3] == ci else
                          whole[4] if whole[0] and whole[3] == ci else None)
            citations.append(CitationCheck(ci, alone[0], rest, quote_span=quote_span, score=alone[1]))
        return SentenceCheck(supported=whole[0], elsewhere=everything[0], citations=citations,
                             reason=whole[2], score=whole[1],
                             elsewhere_context=everything[3] if everything[0] else None)


def fill_quotes(sample: Sample, checks: Mapping[int, SentenceCheck]) -> None:
    """Each citation's quote: the text of its span in the cited context."""
    for check in checks.values():
        for c in check.citations:
            if c.quote_span is not None and not c.quote:
                c.quote = sample.contexts[c.context].text[c.quote_span[0]:c.quote_span[1]]
