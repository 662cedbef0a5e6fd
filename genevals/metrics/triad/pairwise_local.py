"""Offline pairwise preference (no LLM): the two answers compared on an offline score, chosen like ``pairwise``'s
LLM judge when no judge is configured.

Each answer's score is its offline ``answer_correctness`` F1 against the pair's reference (the first non-empty
one of either sample) when there is one, else its offline ``answer_relevance``
(:mod:`genevals.metrics.triad.local_relevance`). The higher score wins when the two differ by more than ``margin``,
else the pair is a tie; the comparison is symmetric, so there is no order to swap. Outputs, per-pair rates and
the paired CI are those of :mod:`genevals.metrics.triad.preference`. Unscored: ``no_pair``, ``empty_answer``, and the
status of an answer the offline score cannot score (``refusal``, ``no_claims``, ...), with its reason. English
only, as the offline scores it compares are: a pair with an answer in another language gets
``unsupported_language``, naming the language and the LLM judge to use instead.
"""
from __future__ import annotations

from typing import Any, Sequence

from genevals import types
from genevals import grounding as checker_needs
from genevals.metrics.base import MODEL, Metric, register
from genevals.metrics.triad.local_relevance import AnswerCorrectnessLocal, AnswerRelevanceLocal
from genevals.metrics.triad.preference import PAIRWISE_OUTPUTS, SCORE, PairwiseStats
from genevals.metrics.triad.rag_formulas import NO_PAIR
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample
from genevals.settings import Setting


@register
class PairwiseLocal(PairwiseStats, Metric):
    """Offline pairwise: offline answer_correctness (or answer_relevance without a reference), higher wins.

    Args:
        margin: score difference at or below which the pair is a tie.
    """
    reads_language = True  # scores in the sample's language: the run counts its majority
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("margin", float, 0.1, "score difference under which the pair is a tie", minimum=0),
    )

    family = "pairwise_local"
    writes_for = "pairwise"
    outputs = PAIRWISE_OUTPUTS
    kind = MODEL
    order = 81
    extra, requires = checker_needs.EXTRA, checker_needs.REQUIRES  # the local judges' MiniLM
    languages = checker_needs.LANGUAGES

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self._by_id: dict[str, dict[str, Sample]] = {}
        self._correctness = AnswerCorrectnessLocal()
        self._relevance = AnswerRelevanceLocal()

    def signature(self) -> str:
        from genevals.grounding.checker import MODEL_NAME

        return make_signature("pairwise", variant="offline", model=MODEL_NAME,
                              score="answer_correctness,else:answer_relevance", margin=f"{self.margin:g}",
                              lang=str(self.language), languages=",".join(sorted(self.languages or ())), st=package_version("sentence-transformers"))

    def describe(self) -> dict[str, str]:
        return {"pairwise": "Offline (no LLM): higher offline answer_correctness (else answer_relevance) wins; "
                            f"within {self.margin:g} a tie"}

    def _score_of(self, sample: Sample, reference: str | None) -> tuple[float | None, str, str]:
        """(score or None, status, reason) of one answer."""
        if reference:
            probe = Sample(sample.id, sample.answer, sample.question, sample.contexts, (reference,))
            result = self._correctness.score([probe])[0]["answer_correctness"]
        else:
            result = self._relevance.score([sample])[0]["answer_relevance"]
        return result.value, result.status, result.reason or ""

    def _duel(self, sample: Sample, other: Sample) -> dict[str, Any]:
        reference = next((r for s in (sample, other) for r in s.references if r.strip()), None)
        basis = "answer_correctness" if reference else "answer_relevance"
        scores = {}
        for s in (sample, other):
            if not s.answer.strip():
                return {"opponent": other.system, "status": types.EMPTY_ANSWER,
                        "reason": f"system {s.system}'s answer is empty"}
            value, status, reason = self._score_of(s, reference)
            if value is None:
                return {"opponent": other.system, "status": status,
                        "reason": f"system {s.system}'s {basis} is unscored: {reason}"}
            scores[s.system] = value
        mine, theirs = scores[sample.system], scores[other.system]
        outcome = "tie" if abs(mine - theirs) <= self.margin else ("win" if mine > theirs else "loss")
        return {"opponent": other.system, "outcome": outcome, "basis": basis, "score": round(mine, 6),
                "opponent_score": round(theirs, 6)}

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        out = []
        # the offline scores judge each opponent's answer in the run's language setting too
        self._correctness.language = self._relevance.language = self.language
        for sample in samples:
            others = self.opponents(sample)
            info = {"judge": {"backend": "local", "variant": "offline", "margin": self.margin},
                    "usage": {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}}
            skip = self.unsupported(sample, "pairwise", checker_needs.instead("pairwise"))
            if skip is not None:
                out.append({"pairwise": MetricResult.unscored("pairwise", skip.status, skip.reason or "",
                                                              **info, **skip.details)})
                continue
            info.update(self.language_details(sample))
            if not others:
                out.append({"pairwise": MetricResult.unscored("pairwise", NO_PAIR, f"no other system answered "
                                                              f"question '{sample.id}'; nothing to compare with",
                                                              **info)})
                continue
            duels = [self._duel(sample, self._by_id[sample.id][t]) for t in others]
            failed = [d for d in duels if d.get("status")]
            if failed:
                d = failed[0]
                out.append({"pairwise": MetricResult.unscored("pairwise", d["status"], f"against {d['opponent']}: "
                                                              f"{d['reason']}", duels=duels, **info)})
                continue
            value = sum(SCORE[d["outcome"]] for d in duels) / len(duels)
            out.append({"pairwise": MetricResult("pairwise", value, details={**info, "duels": duels})})
        return out
