"""Exact match and token F1 over per-language normalised answers: MLQA's official ``mlqa_evaluation_v1.py`` for
en, es, de, ar, hi, vi and zh, SQuAD v1.1's official ``evaluate-v1.1.py`` for English on request, a Unicode rule
with a word segmenter where needed for the rest (every rule: :mod:`genevals.language.tokens`).

English normalisation, the default ``norm="mlqa"``: MLQA's ``en`` rule, which is SQuAD v1.1's (lowercase, delete
punctuation, replace the whole words a/an/the by a space, collapse whitespace; tokens are the whitespace-split
pieces) with every Unicode punctuation character deleted too, not only ``string.punctuation``.
``norm="squad"`` (``--token-norm squad``) is SQuAD v1.1's script bit for bit: ASCII punctuation only, so curly
quotes and dashes survive and ``state-of-the-art`` becomes ``stateoftheart``. The two differ only on text with
non-ASCII punctuation (3 of MLQA's 632 English pairs); MLQA's is the default so that one rule covers every
language and the MLQA vectors pass with ``--language en``.

Each sample is scored in its language (its row's, the run's ``--language``, or detected); its details record
the language and the normalisation. A language whose segmenter is not installed (ja, ko, th without
``genevals[languages]``) gets status ``unsupported_language`` with the install command, never a number.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from genevals import types
from genevals.language import tokens as lang_tokens
from genevals.language.segment import SEGMENTERS, SegmenterMissing
from genevals.metrics.base import Metric, Output, register
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

_NO_REFERENCE = "sample has no reference answer"


def normalize_answer(text: str) -> str:
    """The official SQuAD v1.1 ``normalize_answer``."""
    return lang_tokens.normalize(text, "en", "squad")


def _overlap_f1(pred: Sequence[str], gold: Sequence[str], pred_counts: Counter[str]) -> tuple[float, float, float]:
    """(f1, precision, recall) with SQuAD's multiset overlap; 0 when nothing is shared (even both empty)."""
    num_same = sum((pred_counts & Counter(gold)).values())
    if num_same == 0:
        return 0.0, 0.0, 0.0
    precision = 1.0 * num_same / len(pred)
    recall = 1.0 * num_same / len(gold)
    # Same operation order as the official script, so values are bit-identical to it.
    return (2 * precision * recall) / (precision + recall), precision, recall


def _references(sample: Sample) -> list[str]:
    # A blank string is not a reference; a punctuation-only one is (it scores like the script scores it).
    return [r for r in sample.references if r.strip()]


class _Normalised(Metric):
    """What exact match and token F1 share: the English rule setting, the signature parts and the per-sample
    normalisation in the sample's language."""
    reads_language = True  # scores in the sample's language: the run counts its majority
    scores_empty_answer = True  # 0, as the reference script scores a blank prediction
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("norm", str, "mlqa",
                "English normalisation: mlqa (also deletes Unicode punctuation) or squad (SQuAD v1.1, ASCII only)",
                choices=("mlqa", "squad")),
    )

    def _signature_parts(self) -> dict[str, str]:
        # English's rule first: squad-v1.1 (then MLQA's for its other languages), or MLQA's for all of them
        norm = "squad-v1.1+mlqa-v1+unicode-nfkc" if self.norm == "squad" else "mlqa-v1+unicode-nfkc"
        segmenters = ",".join(f"{lang}={label}" for lang, (label, _) in SEGMENTERS.items())
        return {"norm": norm, "seg": f"zh=mlqa-mixed,{segmenters}",
                "lang": str(self.language)}

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        out: list[dict[str, MetricResult]] = []
        for sample in samples:
            out.append({self.family: self._score_one(sample)})
        return out

    def _score_one(self, sample: Sample) -> MetricResult:
        """The sample's result: unscored without a reference or without its language's segmenter, else
        :meth:`_value` of the normalised answer against the normalised references, with the details."""
        refs = _references(sample)
        if not refs:
            return MetricResult.unscored(self.family, types.EMPTY_REFERENCE, _NO_REFERENCE)
        normalised = self._normalised(sample, refs)
        if isinstance(normalised, MetricResult):
            return normalised
        details, pred, gold = normalised
        value = self._value(pred, gold, details)
        if not pred:
            details["empty_answer"] = True
        return MetricResult(self.family, value, details=details)

    def _value(self, pred: str, gold: list[str], details: dict[str, object]) -> float:
        """The value of the normalised answer ``pred`` against the normalised references, adding to
        ``details`` which reference it was measured on."""
        raise NotImplementedError

    def _normalised(self, sample: Sample, refs: list[str]) -> tuple[dict[str, object], str, list[str]] | MetricResult:
        """(details naming the language and rule, the normalised answer, the normalised references), or an
        ``unsupported_language`` result when the language's segmenter is missing."""
        lang = self.language_of(sample)
        try:
            pred = lang_tokens.normalize(sample.answer, lang.code, self.norm)
            gold = [lang_tokens.normalize(r, lang.code, self.norm) for r in refs]
        except SegmenterMissing as missing:
            return MetricResult.unscored(self.family, types.UNSUPPORTED_LANGUAGE, missing.reason, **lang.details())
        return {**lang.details(), "normalization": lang_tokens.rule_name(lang.code, self.norm)}, pred, gold


@register
class ExactMatch(_Normalised):
    """Exact match: 1 if norm(answer) == norm(ref) for some reference, else 0, with norm the sample language's
    normalisation (SQuAD v1.1 for English, MLQA's for its languages: :mod:`genevals.language.tokens`).

    EM = max_r [norm(answer) == norm(r)]. Two texts that both normalise to "" (e.g. "the" vs "a")
    match, exactly as in the v1.1 and MLQA scripts.
    """

    family = "exact_match"
    outputs = (Output("exact_match", "SQuAD v1.1 exact match: 1 if the normalised answer equals a normalised "
                                     "reference, else 0"),)
    presets = ("default", "all")
    order = 10

    def signature(self) -> str:
        return make_signature("exact_match", **self._signature_parts(), refs="max")

    def _value(self, pred: str, gold: list[str], details: dict[str, object]) -> float:
        winner = next((i for i, r in enumerate(gold) if r == pred), None)
        details["reference_index"] = winner if winner is not None else 0
        return 1.0 if winner is not None else 0.0


@register
class TokenF1(_Normalised):
    """SQuAD v1.1 / MLQA token F1 with MULTISET overlap, best over references, over the sample language's
    normalised tokens (:mod:`genevals.language.tokens`; Chinese: one token per Han character).

    With P = normalised answer tokens and G = normalised reference tokens (as multisets / Counters),
    common = |P ∩ G| = sum over tokens of min(count_P, count_G) (``Counter(P) & Counter(G)``),
    precision = common / |P|, recall = common / |G|, F1 = 2·precision·recall / (precision + recall),
    and the value is the max over references. Repeated tokens count as often as they occur on both
    sides ("cat cat cat" vs "cat" gives 0.5), unlike the SET overlap of some metric guides.
    As in SQuAD v1.1 (not v2.0), F1 is 0 when nothing is shared, including when both sides normalise
    to the empty string. Blank (whitespace-only) references are ignored.
    """

    family = "token_f1"
    outputs = (Output("token_f1", "SQuAD v1.1 token F1 with multiset overlap, best over references"),)
    presets = ("default", "all")
    order = 20

    def signature(self) -> str:
        return make_signature("token_f1", **self._signature_parts(), overlap="multiset", empty="zero", refs="max")

    def _value(self, answer: str, gold: list[str], details: dict[str, object]) -> float:
        pred = answer.split()
        pred_counts = Counter(pred)
        best = (-1.0, 0.0, 0.0)
        best_index = 0
        for i, ref in enumerate(gold):
            scored = _overlap_f1(pred, ref.split(), pred_counts)
            if scored[0] > best[0]:  # strict: the first of tied references wins, like max()
                best, best_index = scored, i
        f1, precision, recall = best
        details.update(precision=precision, recall=recall, reference_index=best_index)
        return f1
