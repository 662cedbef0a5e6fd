"""The features of the calibrated offline triad judges: a few numbers per (question, text) from MiniLM cosines,
word overlaps, lengths and answer types, shared by the metrics and by ``benchmarks/bench_triad.py`` (which fits
the weights on them), so training and scoring compute the same thing.

Words are :func:`genevals.text.content_words` matched on 5-letter stems (as the grounding checker does);
cosines are of unit-normalised all-MiniLM-L6-v2 embeddings (:func:`genevals.grounding.checker.embed`).
"""
from __future__ import annotations

import difflib
import math
import re
import unicodedata
from collections import Counter
from typing import Sequence

from genevals.grounding import entities as ent
from genevals.metrics.lexical.squad import normalize_answer
from genevals.text import WORD, content_words

#: chunk i: the cosine of its first :data:`HEAD_PIECES` word pieces to the question, whether it is a passage
#: (more than :data:`PASSAGE_WORDS` words) rather than a sentence, and that cosine again for passages only
#: (sentences and passages get their own slope and base rate, so one threshold suits both)
CONTEXT_FEATURES = ("cosine", "passage", "passage_x_cosine")
PASSAGE_WORDS = 60
#: word pieces of a chunk embedded (96 tokens with [CLS] and [SEP]): out-of-fold AUC of the fitted model, WikiQA /
#: Cranfield, was 0.809 / 0.715 at 30 pieces, 0.825 / 0.719 at 62, 0.825 / 0.722 at 94 and 0.824 / 0.709 at 254
#: (the model's limit); CPU ms per question (one thread) 115 / 142 at 62 pieces, 114 / 189 at 94. Since issue 39
#: bench_triad.py chooses it (of 94, 62, 30) inside each fold with the feature set, and stops unless the
#: selection on all rows picks this value
HEAD_PIECES = 94
#: an answer: its cosine to the question (whole, and its best sentence), the share of the question's words it
#: repeats, the share of its own words that are new, log(1 + words), and whether it holds what the question
#: asks for (a year for "when", a number for "how many", a name for "who"/"where": +1 yes, -1 no, 0 untyped)
ANSWER_FEATURES = ("answer_cosine", "best_sentence_cosine", "question_word_overlap", "new_word_share",
                   "log_words", "expected_type")
#: an answer against its references (the best over references for each): SQuAD token F1, the share of the
#: reference's tokens in the answer, the reference inside the answer (or the answer inside the reference, 0.5),
#: number agreement (+1 every reference number found, -1 none though the answer gives numbers, 0 no numbers),
#: MiniLM cosine, log(1 + answer tokens), the share of the reference's content words that are not in the
#: question found in the answer, and the longest common substring of the normalised texts over the reference's
#: length (catches "2.45" in "around 2.45 billion" and spelling variants)
CORRECTNESS_FEATURES = ("token_f1", "reference_recall", "containment", "number_agreement", "cosine",
                        "log_answer_words", "new_word_recall", "longest_common_share")

_ASKS = (
    ("time", re.compile(r"^\s*(?:when|what (?:year|date|day|month|century|decade)|which (?:year|century))\b", re.I)),
    ("number", re.compile(r"^\s*(?:how (?:many|much|old|long|far|tall|big|large|high|deep|fast|often|heavy)"
                          r"|what (?:percentage|percent|number|amount|age|size|population))\b", re.I)),
    ("name", re.compile(r"^\s*(?:who|whom|whose|where|which (?:city|country|state|team|company|person))\b", re.I)),
)
_MONTHS = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
                     r"december|century|centuries|\d{3,4}s?)\b", re.I)


def stems(text: str) -> set[str]:
    return {ent.stem(w) for w in content_words(text)}


def word_overlap(question: str, text: str) -> float:
    """Share of the question's content words (5-letter stems) found in ``text``; 0 for a question without any."""
    q = stems(question)
    return len(q & stems(text)) / len(q) if q else 0.0


def asked_type(question: str) -> str | None:
    """What the question asks for: "time", "number", "name", or None."""
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    return None


def holds_type(kind: str, question: str, text: str) -> bool:
    if kind == "time":
        return bool(_MONTHS.search(text))
    if kind == "number":
        return bool(ent.number_forms(text))
    asked = {w.lower() for w in WORD.findall(question)}
    return any(w.lower() not in asked for w, _, _ in ent.entities_in(text))


def context_features(chunks: Sequence[str], cosines: Sequence[float]) -> list[list[float]]:
    """One row of :data:`CONTEXT_FEATURES` per chunk."""
    rows = []
    for text, c in zip(chunks, cosines):
        passage = 1.0 if len(WORD.findall(text)) > PASSAGE_WORDS else 0.0
        rows.append([float(c), passage, passage * float(c)])
    return rows


# the whitespace before the stop is matched only from the start of its run (not from every character of a long run)
_LOOSE_SENTENCE = re.compile(r"(?:(?<!\s)\s+)?\.(?:\s+|$)")


def chunk_sentences(text: str, units: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``units`` (the checker's segments of ``text``), with those longer than :data:`PASSAGE_WORDS` words cut
    again at every full stop followed by a space, whatever the case (lower-cased or tokenised text, " . ", is
    not cut by the checker); pieces under 3 words stay with none."""
    out = []
    for s, e in units:
        if len(WORD.findall(text[s:e])) <= PASSAGE_WORDS:
            out.append((s, e))
            continue
        pieces, start = [], s
        for m in _LOOSE_SENTENCE.finditer(text, s, e):
            pieces.append((start, m.start()))
            start = m.end()
        pieces.append((start, e))
        kept = [(a, b) for a, b in pieces if len(text[a:b].split()) >= 3]
        out.extend(kept or [(s, e)])
    return out


def answer_features(question: str, answer: str, answer_cosine: float, best_sentence: float) -> list[float]:
    """:data:`ANSWER_FEATURES` of one answer."""
    own = stems(answer)
    new = len(own - stems(question)) / len(own) if own else 0.0
    kind = asked_type(question)
    typed = 0.0 if kind is None else (1.0 if holds_type(kind, question, answer) else -1.0)
    return [float(answer_cosine), float(best_sentence), word_overlap(question, answer), new,
            math.log1p(len(WORD.findall(answer))), typed]


def clean(text: str) -> str:
    """NFKC (no-break spaces become spaces), with the UTF-8-read-as-Latin-1 "Â" before them dropped."""
    return unicodedata.normalize("NFKC", text.replace("\u00c2\u00a0", " "))


def _tokens(text: str) -> list[str]:
    return normalize_answer(clean(text)).split()


def _f1_recall(answer: list[str], reference: list[str]) -> tuple[float, float]:
    same = sum((Counter(answer) & Counter(reference)).values())
    if not same:
        return 0.0, 0.0
    p, r = same / len(answer), same / len(reference)
    return 2 * p * r / (p + r), r


def _containment(answer: list[str], reference: list[str]) -> float:
    a, r = f" {' '.join(answer)} ", f" {' '.join(reference)} "
    if reference and r in a:
        return 1.0
    return 0.5 if answer and a in r else 0.0


def _numbers(answer: str, reference: str) -> float:
    want, got = ent.number_forms(clean(reference)), ent.number_forms(clean(answer))
    if not want or not got:
        return 0.0
    return 1.0 if want <= got else (0.0 if want & got else -1.0)


def _new_words(question: str, answer: str, reference: str) -> float:
    wanted = stems(reference) - stems(question)
    return len(wanted & stems(answer)) / len(wanted) if wanted else 0.0


def _common_share(answer: list[str], reference: list[str]) -> float:
    a, r = " ".join(answer), " ".join(reference)
    if not a or not r:
        return 0.0
    return difflib.SequenceMatcher(None, a, r, autojunk=False).find_longest_match(0, len(a), 0, len(r)).size / len(r)


def correctness_features(question: str, answer: str, references: Sequence[str],
                         cosines: Sequence[float]) -> list[float]:
    """:data:`CORRECTNESS_FEATURES` of one answer against its non-empty references (``cosines``: the answer's
    cosine to each)."""
    a = _tokens(answer)
    refs = [_tokens(r) for r in references]
    pairs = [_f1_recall(a, r) for r in refs]
    return [max(p[0] for p in pairs), max(p[1] for p in pairs), max(_containment(a, r) for r in refs),
            max(_numbers(answer, r) for r in references), float(max(cosines)), math.log1p(len(a)),
            max(_new_words(question, answer, r) for r in references), max(_common_share(a, r) for r in refs)]
