r"""Whether a solver's answer agrees with the item's reference: token F1 at or above a threshold.

    P = |A \cap R| / |A|,  R_ = |A \cap R| / |R|,  F1 = 2 P R_ / (P + R_)   (multiset overlap; 0 if nothing shared)

over the answer's and the reference's tokens normalised as MLQA's evaluation normalises answers in the item's
language (:func:`genevals.language.tokens.answer_tokens`, English by MLQA's rule: lower case, punctuation and
a/an/the removed). A language whose word segmenter is not installed (ja, ko, th without
``genevals[languages]``) is tokenised by the language-neutral rule (each character of an unspaced script a
token), and the reason says so. An answer that is a refusal (:func:`genevals.text.detect_refusal`) or empty
never agrees.
"""
from __future__ import annotations

from collections import Counter

from genevals.language.segment import SegmenterMissing
from genevals.language.tokens import answer_tokens
from genevals.text import detect_refusal


def f1(answer: str, reference: str, language: str) -> float:
    try:
        a, r = answer_tokens(answer, language, "mlqa"), answer_tokens(reference, language, "mlqa")
    except SegmenterMissing:
        a, r = answer_tokens(answer, "und", "mlqa"), answer_tokens(reference, "und", "mlqa")
    same = sum((Counter(a) & Counter(r)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(a), same / len(r)
    return 2 * precision * recall / (precision + recall)


def agrees(answer: str, reference: str, language: str, threshold: float) -> tuple[bool, float]:
    """(agrees, F1): False with F1 0 for an empty or refusing answer."""
    if not answer.strip() or detect_refusal(answer) is not None:
        return False, 0.0
    score = f1(answer, reference, language)
    return score >= threshold, score
