r"""A conversation turn's faithfulness by word overlap (no model): the offline default for conversation turns.

.. math::
    o(a, X) = \frac{|\{w \in W(a) : w \in V(X)\}|}{|W(a)|}

with :math:`W(a)` the turn's content words (lower-cased ``\w+`` tokens, English function words left out,
:func:`overlap`) and :math:`V(X)` every word of its contexts; :math:`o = 1` for a
turn with no content word. The turn is *not attributable* when :math:`o < t`. The threshold :math:`t` maximises
balanced accuracy on BEGIN's development split (people's attribution labels of knowledge-grounded dialogue
responses); ``benchmarks/bench_turn_overlap.py`` chooses it on all rows and measures the card out of fold (the cut
chosen inside each training fold, 5 folds grouped by knowledge snippet), beside the local grounding detector on
the same rows. Where the card says the detector is worse than this rule on those labels, this rule, not the
detector, scores conversation turns when ``faithfulness`` runs with no judge (:data:`DEFAULT_FOR_TURNS`); the
detector stays available as ``grounding``.

Outputs: ``faithfulness`` = 1 when :math:`o \ge t`, else 0 (the turn is one claim); ``unverifiable_rate`` =
1 - faithfulness; ``contradiction_rate`` has status ``unsupported`` (word overlap cannot tell a contradiction from
a paraphrase). English only, as the function words are.
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any, Sequence

from genevals import types
from genevals import grounding as checker_needs
from genevals.metrics.base import Metric, register
from genevals.metrics.faithfulness.verdicts import restate, unscored_outputs
from genevals.signature import make_signature
from genevals.text import detect_refusal
from genevals.types import Claim, MetricResult, Sample, Verdict

_WORD = re.compile(r"\w+")
#: function words left out of the overlap (else every response overlaps every snippet by "the" and "is")
_STOP = frozenset("a an the and or but of to in on at for with by from is are was were be been being it its this "
                  "that these those i you he she we they me him her us them my your his our their what which who "
                  "do does did have has had not no so as if then than there here very just also too can will "
                  "would could should about into out up down all any some more most s t".split())
#: an offline variant's status: the metric needs an LLM judge (as the conversation metrics' offline variants)
UNSUPPORTED = "unsupported"

PATH = Path(__file__).with_name("turn_overlap.json")
BACKEND = "word-overlap"


@functools.lru_cache(maxsize=None)
def document() -> dict[str, Any]:
    """``turn_overlap.json``: the shipped threshold and the card (written by benchmarks/bench_turn_overlap.py)."""
    return json.loads(PATH.read_text(encoding="utf-8"))


def beats_detector() -> bool:
    """Whether the card says the detector is worse than this rule on people's labels of dialogue turns (the
    paired CI of the detector's balanced accuracy minus this rule's lies below 0)."""
    return document()["card"]["evaluations"][0]["versus_model"]["verdict"] == "beats"


#: the offline default for conversation turns: this rule where it beats the detector on BEGIN (a test checks
#: that this matches the shipped card), else the detector
DEFAULT_FOR_TURNS = "overlap"


def sentence() -> str:
    """One sentence for the offline default's note: what scores conversation turns, and the measurement why."""
    e = document()["card"]["evaluations"][0]
    m = e["versus_model"]
    if DEFAULT_FOR_TURNS != "overlap":
        return ""
    return (f"Conversation turns are scored by word overlap (turn_overlap) instead: on {e['data']} (n={e['n']}, "
            f"{e['groups']} knowledge snippets) it has balanced accuracy {e['balanced_accuracy']['value']:.3f} "
            f"[{e['balanced_accuracy']['ci'][0]:.3f}, {e['balanced_accuracy']['ci'][1]:.3f}] against "
            f"{m['value']:.3f} [{m['ci'][0]:.3f}, {m['ci'][1]:.3f}] for the detector, which is worse than it "
            f"(word overlap minus the detector {m['difference']['value']:+.3f}, 95% CI [{m['difference']['ci'][0]:+.3f}, "
            f"{m['difference']['ci'][1]:+.3f}]; always the majority label: 0.500); "
            "-m grounding runs the detector on them")


def overlap(response: str, knowledge: str) -> float:
    """The share of the response's content words (lower-cased, function words left out) found in the knowledge;
    1.0 for a response with none (nothing in it is unsupported)."""
    words = [w for w in _WORD.findall(response.lower()) if w not in _STOP]
    if not words:
        return 1.0
    known = set(_WORD.findall(knowledge.lower()))
    return sum(w in known for w in words) / len(words)


def turn_overlap(answer: str, contexts: Sequence[str]) -> float:
    """:math:`o(a, X)` of the module docstring."""
    return overlap(answer, "\n".join(contexts))


@register
class TurnOverlap(Metric):
    """Word overlap of a turn with its contexts, cut at a threshold fit on BEGIN's people's labels.

    faithfulness = 1 when the share of the turn's content words found in its contexts reaches the threshold,
    else 0; unverifiable_rate = 1 - faithfulness; contradiction_rate: status ``unsupported``.
    """

    family = "turn_overlap"
    outputs = restate("Word overlap (no model): 1 when the share of the turn's content words found in its "
                      "contexts reaches the threshold fit on BEGIN's dialogue labels, else 0",
                      "Word overlap: not measured (status unsupported: overlap cannot tell a contradiction)",
                      "Word overlap: 1 - faithfulness")
    writes_for = "faithfulness"
    order = 82
    languages = checker_needs.LANGUAGES

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.threshold = float(document()["threshold"])

    @classmethod
    def card(cls) -> dict[str, Any] | None:
        """Measured on BEGIN's development split (benchmarks/bench_turn_overlap.py)."""
        return document()["card"]

    def signature(self) -> str:
        return make_signature("faithfulness", variant="turn_overlap", threshold=f"{self.threshold:g}",
                              lang=str(self.language), languages=",".join(sorted(self.languages or ())))

    def judge_info(self) -> dict[str, Any]:
        return {"backend": BACKEND, "family": self.family, "threshold": self.threshold,
                "fit_on": document()["card"]["evaluations"][0]["data"]}

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return [self.score_one(s) for s in samples]

    def score_one(self, sample: Sample) -> dict[str, MetricResult]:
        details = {"judge": self.judge_info()}
        if not sample.answer.strip():
            return unscored_outputs(types.EMPTY_ANSWER, "the answer is empty", details)
        skip = self.unsupported(sample, instead=checker_needs.instead("faithfulness"))
        if skip is not None:
            return unscored_outputs(skip.status, skip.reason or "", {**details, **skip.details})
        refusal = detect_refusal(sample.answer)
        if refusal:
            return unscored_outputs(types.REFUSAL, f"the answer abstains ('{refusal}'); nothing to check", details)
        texts = [c.text for c in sample.contexts if c.text.strip()]
        if not texts:
            return unscored_outputs(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no context text to check the turn against"), details)
        share = turn_overlap(sample.answer, texts)
        ok = share >= self.threshold
        reason = (f"{share:.0%} of its content words are in the contexts "
                  f"({'>=' if ok else '<'} the threshold {self.threshold:.0%} fit on BEGIN's dialogue labels)")
        claim = Claim(0, sample.answer, ((0, len(sample.answer)),), located=True)
        verdict = Verdict(claim_index=0, label=types.SUPPORTED if ok else types.UNVERIFIABLE, context_index=None,
                          quote="", quote_found=False, quote_span=None, reason=reason, missing=False,
                          scores={"word_overlap": round(share, 4)})
        details.update({"claims": [claim.to_dict()], "verdicts": [verdict.to_dict()], "word_overlap": round(share, 4),
                        **self.language_details(sample)})
        value = 1.0 if ok else 0.0
        why = "word overlap cannot tell a contradiction from a paraphrase; use an LLM judge (--judge-base-url)"
        return {"faithfulness": MetricResult("faithfulness", value, details=details),
                "contradiction_rate": MetricResult.unscored("contradiction_rate", UNSUPPORTED, why),
                "unverifiable_rate": MetricResult("unverifiable_rate", 1.0 - value)}
