"""SQuAD v1.1 exact match and token F1, as computed by the official ``evaluate-v1.1.py`` script.

Normalisation (``normalize_answer``): lowercase, delete every character of ``string.punctuation``
(ASCII only: curly quotes survive, ``state-of-the-art`` becomes ``stateoftheart``), replace the
whole words a/an/the by a space, then collapse whitespace. Tokens are the whitespace-split pieces.
"""
from __future__ import annotations

import re
import string
from collections import Counter
from typing import Sequence

from genevals import types
from genevals.metrics.base import Metric, Output, register
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample

# str.translate gives the same result as the script's per-character set test, several times faster.
_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
# Same pattern as the official script, so Unicode word boundaries behave identically.
_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")
_NO_REFERENCE = "sample has no reference answer"


def normalize_answer(text: str) -> str:
    """The official SQuAD v1.1 ``normalize_answer``."""
    return " ".join(_ARTICLES_RE.sub(" ", text.lower().translate(_PUNCT_TABLE)).split())


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


@register
class ExactMatch(Metric):
    """SQuAD v1.1 exact match: 1 if normalize_answer(answer) == normalize_answer(ref) for some reference, else 0.

    EM = max_r [norm(answer) == norm(r)]. Two texts that both normalise to "" (e.g. "the" vs "a")
    match, exactly as in the v1.1 script.
    """

    family = "exact_match"
    outputs = (Output("exact_match", "SQuAD v1.1 exact match: 1 if the normalised answer equals a normalised "
                                     "reference, else 0"),)
    presets = ("default", "all")
    order = 10

    def signature(self) -> str:
        return make_signature("exact_match", norm="squad-v1.1", refs="max")

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        out: list[dict[str, MetricResult]] = []
        for sample in samples:
            refs = _references(sample)
            if not refs:
                out.append({"exact_match": MetricResult.unscored("exact_match", types.EMPTY_REFERENCE, _NO_REFERENCE)})
                continue
            pred = normalize_answer(sample.answer)
            winner = next((i for i, r in enumerate(refs) if normalize_answer(r) == pred), None)
            details: dict[str, object] = {"reference_index": winner if winner is not None else 0}
            if not pred:
                details["empty_answer"] = True
            value = 1.0 if winner is not None else 0.0
            out.append({"exact_match": MetricResult("exact_match", value, details=details)})
        return out


@register
class TokenF1(Metric):
    """SQuAD v1.1 token F1 with MULTISET overlap, best over references.

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
        return make_signature("token_f1", norm="squad-v1.1", overlap="multiset", empty="zero", refs="max")

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        out: list[dict[str, MetricResult]] = []
        for sample in samples:
            refs = _references(sample)
            if not refs:
                out.append({"token_f1": MetricResult.unscored("token_f1", types.EMPTY_REFERENCE, _NO_REFERENCE)})
                continue
            pred = normalize_answer(sample.answer).split()
            pred_counts = Counter(pred)
            best = (-1.0, 0.0, 0.0)
            best_index = 0
            for i, ref in enumerate(refs):
                scored = _overlap_f1(pred, normalize_answer(ref).split(), pred_counts)
                if scored[0] > best[0]:  # strict: the first of tied references wins, like max()
                    best, best_index = scored, i
            f1, precision, recall = best
            details: dict[str, object] = {"precision": precision, "recall": recall, "reference_index": best_index}
            if not pred:
                details["empty_answer"] = True
            out.append({"token_f1": MetricResult("token_f1", f1, details=details)})
        return out
