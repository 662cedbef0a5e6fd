"""Cascade: the local grounding checker settles the clear answers, the LLM judge only the uncertain ones.

Every answer is first checked locally (:class:`genevals.metrics.faithfulness.grounding.Grounding`). When the checker's
response-level confidence is at least ``settle_confidence`` **and the run declares its answers to be of the domain
the detector's confidence was calibrated on** (``domain``, :mod:`genevals.grounding.domain`: RAGTruth) the local
result is kept; otherwise the answer goes to the LLM judge
(:class:`genevals.metrics.faithfulness.faithfulness.Faithfulness`, built with the remaining options). Out of its
domain the confidence is not what it says (on SummaC's news summaries its calibration error is several times the
in-domain one, and the answers it would settle are less often right than the majority label): without the
declaration nothing is settled on confidence, ``details.cascade.not_settled`` says why, and so does the run's
warning.
Answers the checker cannot score because there is nothing to judge (empty answer, refusal, no context) are
settled locally too: the LLM judge would give the same status. When the LLM judge fails on an answer
(judge_error, parse_error, ...), ``fallback`` = "local" keeps the local verdict and says so; "none" keeps the
judge's unscored result.

The local checker knows English only (:data:`genevals.grounding.LANGUAGES`): an answer in another language skips
it (its status ``unsupported_language`` is not final, and no model is loaded for it) and goes to the LLM judge,
which reads any language; ``details.cascade.local_status`` / ``local_reason`` say why, and the local verdict is
never its fallback.

``details["cascade"] = {"settled_by": "local" | "llm", "sent_to_llm", "local_confidence", "settle_confidence",
"domain", "fallback"?, "local_status"?, "local_reason"?, "not_settled"?}`` on the
faithfulness output; ``corpus_scores`` counts the answers settled locally and sent to the LLM.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals import types
from genevals import grounding as checker_needs
from genevals.grounding import domain as domains
from genevals.judge.config import JudgeConfig
from genevals.metrics.base import JUDGE, Emit, Metric, register, usage_statistics
from genevals.metrics.faithfulness.grounding import Grounding
from genevals.metrics.faithfulness.verdicts import OUTPUTS, restate
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample
from genevals.metrics.settings import FUZZY_THRESHOLD, MAX_CLAIMS, WORKED_EXAMPLE
from genevals.settings import Setting

_LOCAL_FINAL = frozenset({types.EMPTY_ANSWER, types.REFUSAL, types.NO_CONTEXT})
DEFAULT_SETTLE = 0.9


@register
class Cascade(Metric):
    """Local grounding first; answers it is unsure of (confidence < settle_confidence) go to the LLM judge.

    Same outputs as faithfulness; details.cascade.settled_by says which judge decided each answer.
    """
    reads_language = True  # scores in the sample's language: the run counts its majority
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("settle_confidence", float, DEFAULT_SETTLE,
                "local confidence that settles an answer without the LLM judge", minimum=0.5, maximum=1.0),
        Setting("grounding", object, None, "the local grounding stage's settings (a mapping)"),
        Setting("domain", str, None,
                "the answers' domain: answers are settled locally only when it is the one the detector's confidence "
                "was calibrated on; unset: every scorable answer goes to the LLM judge",
                choices=(domains.DOMAIN,)),
        Setting("fallback", str, "local",
                "when the LLM judge fails: keep the local verdict (local) or not (none)", choices=("local", "none")),
        Setting("llm", object, None, "a ready LLM judge metric (tests)"),
        # the LLM stage's (faithfulness's), passed on to it
        MAX_CLAIMS, WORKED_EXAMPLE, FUZZY_THRESHOLD,
    )

    family = "cascade"
    extra, requires = checker_needs.EXTRA, checker_needs.REQUIRES  # its local stage
    outputs = restate("Cascade: local grounding settles confident answers, the LLM judge the rest (share of "
                      "supported claims)",
                      "Cascade: share of the answer's claims contradicted by the contexts",
                      "Cascade: share of the answer's claims the contexts neither support nor contradict")
    kind = JUDGE
    writes_for = "faithfulness"
    order = 90

    def __init__(self, judge: JudgeConfig | None = None, **values: Any) -> None:
        # not Metric.__init__: the setting ``llm`` is kept as ``_llm`` (``llm`` builds the judge when first read)
        settled = self.settled(values)
        self._llm = settled.pop("llm")  # a ready LLM judge metric (tests); built lazily otherwise
        self.local = Grounding(**dict(settled.pop("grounding") or {}))
        self.settle_confidence = settled.pop("settle_confidence")
        self.domain = settled.pop("domain")
        self._calibrated: domains.Calibrated | None = None
        self.fallback = settled.pop("fallback")
        # the rest are the LLM stage's (faithfulness's): passed on as given, so that its own defaults apply
        self.faithfulness_options = {key: value for key, value in settled.items() if key in values}
        self.judge_config = judge if judge is not None else JudgeConfig()

    @property
    def llm(self) -> Metric:
        if self._llm is None:
            from genevals.metrics.faithfulness.faithfulness import Faithfulness

            self._llm = Faithfulness(self.judge_config, **self.faithfulness_options)
        return self._llm

    @property
    def concurrency(self) -> int:
        return self.judge_config.in_flight

    def signature(self) -> str:
        self.local.language = self.llm.language = self.language  # their lang: parts are the run's
        judge_sig = self.llm.signature().replace("|", ";")
        # the declared domain decides which answers are settled locally: runs that differ in it score differently
        return make_signature("cascade", settle=self.settle_confidence, domain=self.domain or "none",
                              fallback=self.fallback,
                              local=self.local.signature().replace("|", ";"), llm=judge_sig)

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return self._collect(samples)

    def score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        """Answers settled locally are emitted at once, the LLM's as each of its verdicts comes back."""
        # the run's setting (set on the cascade when it was built), for both stages
        self.local.language = self.llm.language = self.language
        local = self.local.score(samples)
        to_llm = []
        held: dict[int, str] = {}  # answers sure enough to settle, but outside the calibrated domain: why not
        for i, result in enumerate(local):
            faith = result["faithfulness"]
            conf = faith.details.get("confidence") if faith.status == types.OK else None
            sure = conf is not None and conf >= self.settle_confidence
            if faith.status in _LOCAL_FINAL or (sure and self.in_domain):
                emit(i, self._tag(result, "local", conf, sent_to_llm=False))
            else:
                if sure:
                    held[i] = "sent to the LLM judge whatever the local confidence: " + self.calibrated.reason(
                        self.domain)
                to_llm.append(i)
        if not to_llm:
            return

        def judged(k: int, result: dict[str, MetricResult]) -> None:
            i = to_llm[k]
            faith = result["faithfulness"]
            local_faith = local[i]["faithfulness"]
            conf = local_faith.details.get("confidence") if local_faith.status == types.OK else None
            why = {"not_settled": held[i]} if i in held else {}
            if faith.status != types.OK and self.fallback == "local" and local_faith.status == types.OK:
                emit(i, self._tag(local[i], "local", conf, sent_to_llm=True, **why,
                                  fallback=f"LLM judge {faith.status}: {faith.reason}"))
            elif local_faith.status == types.UNSUPPORTED_LANGUAGE:
                emit(i, self._tag(result, "llm", conf, sent_to_llm=True, local_status=local_faith.status,
                                  local_reason=local_faith.reason))
            else:
                emit(i, self._tag(result, "llm", conf, sent_to_llm=True, **why))

        self.llm.score_each([samples[i] for i in to_llm], judged)

    @classmethod
    def card_note(cls) -> str:
        """For ``genevals metrics cascade``: where the local stage's confidence was calibrated, what it is worth
        out of that domain, and how the cascade acts on it."""
        calibrated = domains.packaged()
        return (f"{calibrated.describe()}. So answers are settled locally on confidence only with --set "
                f"cascade.domain={calibrated.domain}; every other answer the detector can read goes to the LLM judge")

    @property
    def calibrated(self) -> domains.Calibrated:
        if self._calibrated is None:
            self._calibrated = domains.packaged()
        return self._calibrated

    @property
    def in_domain(self) -> bool:
        """Whether the run declared its answers to be of the domain the detector's confidence was calibrated on."""
        return self.domain is not None and self.domain == self.calibrated.domain

    @property
    def warning(self) -> str | None:
        # shown by every run (terminal, summary.json, report): out of the calibrated domain the cascade is the LLM
        # judge with a local pre-check, and says so
        if self.in_domain:
            return None
        return "cascade settles no answer locally on confidence: " + self.calibrated.reason(self.domain)

    def _tag(self, result: Mapping[str, MetricResult], by: str, conf: float | None,
             **extra: Any) -> dict[str, MetricResult]:
        faith = result["faithfulness"]
        cascade = {"settled_by": by, "local_confidence": conf, "settle_confidence": self.settle_confidence,
                   "domain": self.domain, **extra}
        details = {**dict(faith.details or {}), "cascade": cascade}
        tagged = MetricResult(faith.name, faith.value, faith.status, faith.reason, details)
        # The cascade writes faithfulness's three outputs only (not the LLM judge's invented_claims count).
        return {**{k: v for k, v in result.items() if k in OUTPUTS}, "faithfulness": tagged}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """Whether the answer was settled locally or sent to the LLM, plus the LLM's usage."""
        faith = outputs.get("faithfulness")
        cascade = (faith.details.get("cascade") or {}) if faith is not None else {}
        if cascade.get("settled_by") is None:
            return None
        sent = bool(cascade.get("sent_to_llm"))
        return {"cascade_settled_local": int(not sent), "cascade_sent_to_llm": int(sent),
                **(usage_statistics(faith, "judge_") or {})}
