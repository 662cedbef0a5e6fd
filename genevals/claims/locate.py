"""Find judge-quoted text in the text it claims to come from, and return character spans.

``locate(excerpt, text)`` tries, in order: an exact match; a match after normalising both sides
(lowercase, curly quotes and dashes to ASCII, whitespace runs to one space); and, when ``fuzzy`` is on, the best
``rapidfuzz.fuzz.partial_ratio_alignment`` on the normalised texts if it reaches ``threshold`` (0-100).
Spans are ``(start, end)`` character offsets into the ORIGINAL ``text``, so ``text[start:end]`` is what the
report highlights.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from rapidfuzz import fuzz

from genevals.text import WORD, content_words

FUZZY_THRESHOLD = 90.0
MIN_FUZZY_CHARS = 12  # shorter excerpts must match exactly or after normalising
_TRANSLATE = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                            "\u2014": "-", "\u00a0": " "})
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|\u2026)\s*")


class Match(NamedTuple):
    start: int
    end: int
    method: str  # "exact", "normalized" or "fuzzy"
    score: float


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index of the original character."""
    out: list[str] = []
    index: list[int] = []
    pending_space = False
    for i, ch in enumerate(text.translate(_TRANSLATE)):
        if ch.isspace():
            pending_space = bool(out)
            continue
        if pending_space:
            out.append(" ")
            index.append(i - 1)
            pending_space = False
        out.append(ch.lower())
        index.append(i)
    return "".join(out), index


def normalize(text: str) -> str:
    return normalize_with_map(text)[0]


def _strip_excerpt(excerpt: str) -> str:
    return excerpt.strip().strip('"\u201c\u201d\'`').strip()


def locate(excerpt: str, text: str, *, fuzzy: bool = True, threshold: float = FUZZY_THRESHOLD) -> Match | None:
    excerpt = _strip_excerpt(excerpt)
    if not excerpt or not text:
        return None
    at = text.find(excerpt)
    if at >= 0:
        return Match(at, at + len(excerpt), "exact", 100.0)
    norm_text, index = normalize_with_map(text)
    norm_ex = normalize(excerpt).rstrip(".")
    if not norm_ex:
        return None
    at = norm_text.find(norm_ex)
    if at >= 0:
        return Match(index[at], index[at + len(norm_ex) - 1] + 1, "normalized", 100.0)
    if not fuzzy or len(norm_ex) < MIN_FUZZY_CHARS or len(norm_ex) > len(norm_text):
        return None
    aligned = fuzz.partial_ratio_alignment(norm_ex, norm_text, score_cutoff=threshold)
    if aligned is None or aligned.dest_end <= aligned.dest_start:
        return None
    return Match(index[aligned.dest_start], index[aligned.dest_end - 1] + 1, "fuzzy", float(aligned.score))


def locate_parts(source: str, text: str, *, fuzzy: bool = True,
                 threshold: float = FUZZY_THRESHOLD) -> list[Match] | None:
    """Locate a source excerpt that may join several places with "..."; None unless every part is found."""
    parts = [p for p in _ELLIPSIS.split(source) if _strip_excerpt(p)]
    if not parts:
        return None
    found = []
    for part in parts:
        match = locate(part, text, fuzzy=fuzzy, threshold=threshold)
        if match is None:
            return None
        found.append(match)
    return sorted(found)


def grounded_fraction(claim: str, *sources: str) -> float:
    """Share of the claim's content words (:func:`genevals.text.content_words`) that occur in any of ``sources``;
    1.0 if none. Words compare without an apostrophe ending ("Anna's" is "Anna") and by their first five
    letters ("company" is "companies")."""
    words = {_base(w) for w in content_words(claim)}
    if not words:
        return 1.0
    pool = {_base(w.lower()) for s in sources for w in WORD.findall(s)}
    stems = {w[:5] for w in pool}
    hits = sum(1 for w in words if w in pool or w[:5] in stems)
    return hits / len(words)


def _base(word: str) -> str:
    return word.split("'", 1)[0]
