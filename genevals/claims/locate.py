"""Find judge-quoted text in the text it claims to come from, and return character spans.

``locate(excerpt, text)`` tries, in order: an exact match; a match after folding both sides
(:mod:`genevals.claims.fold`: case, curly quotes and dashes, whitespace runs, NFKC-equivalent forms such as
full-width digits and punctuation, NFC against NFD, Arabic diacritics and tatweel, digits of any script, spaces
in text written without them); and, when ``fuzzy`` is on, the best ``rapidfuzz.fuzz.partial_ratio_alignment`` on
the folded texts if it reaches ``threshold`` (0-100). Spans are ``(start, end)`` character offsets into the
ORIGINAL ``text``, so ``text[start:end]`` is what the report highlights; an exact or folded match never cuts a
grapheme cluster (a letter and its marks, a Devanagari conjunct: the next occurrence is tried instead), and a
fuzzy one is widened to whole clusters.
"""
from __future__ import annotations

import re
from typing import Iterator, NamedTuple

from rapidfuzz import fuzz

from genevals.claims import fold
from genevals.text import WORD, content_words

FUZZY_THRESHOLD = 90.0
MIN_FUZZY_CHARS = 12  # shorter excerpts must match exactly or after normalising
# the whitespace before "..." is matched only from the start of its run (not from every character of a long run)
_ELLIPSIS = re.compile(r"(?:(?<!\s)\s+)?(?:\.\.\.|\u2026)\s*")
#: quote marks a judge may put around an excerpt (either end, any of them)
_QUOTES = '"\u201c\u201d\'`'
#: bracket pairs a judge may put around an excerpt (removed only as a pair)
_PAIRS = {"\u300c": "\u300d", "\u300e": "\u300f", "\u00ab": "\u00bb", "\u201e": "\u201c"}
#: a sentence end a quote may add or leave out (after folding: "." stands for "。" and "．" too)
_FINAL = ".\u0964\u0965\u06d4"


class Match(NamedTuple):
    start: int
    end: int
    method: str  # "exact", "normalized" or "fuzzy"
    score: float


def normalize_with_map(text: str) -> tuple[str, tuple[int, ...]]:
    """The folded text (:func:`genevals.claims.fold.fold_with_map`) and, for each of its characters, the index of
    the original character."""
    return fold.fold_with_map(text)


def normalize(text: str) -> str:
    return fold.fold(text)


def _strip_excerpt(excerpt: str) -> str:
    excerpt = excerpt.strip().strip(_QUOTES).strip()
    while len(excerpt) > 1 and _PAIRS.get(excerpt[0]) == excerpt[-1]:
        excerpt = excerpt[1:-1].strip()
    return excerpt


def _occurrences(text: str, part: str) -> Iterator[int]:
    at = text.find(part)
    while at >= 0:
        yield at
        at = text.find(part, at + 1)


def locate(excerpt: str, text: str, *, fuzzy: bool = True, threshold: float = FUZZY_THRESHOLD) -> Match | None:
    excerpt = _strip_excerpt(excerpt)
    if not excerpt or not text:
        return None
    for at in _occurrences(text, excerpt):
        if fold.whole(text, at, at + len(excerpt)):
            return Match(at, at + len(excerpt), "exact", 100.0)
    norm_text, index = normalize_with_map(text)
    norm_ex = normalize(excerpt).rstrip(_FINAL)
    if not norm_ex:
        return None
    for at in _occurrences(norm_text, norm_ex):
        span = fold.original_span(text, norm_text, index, at, at + len(norm_ex))
        if span is not None:
            return Match(*span, "normalized", 100.0)
    if not fuzzy or len(norm_ex) < MIN_FUZZY_CHARS or len(norm_ex) > len(norm_text):
        return None
    aligned = fuzz.partial_ratio_alignment(norm_ex, norm_text, score_cutoff=threshold)
    if aligned is None or aligned.dest_end <= aligned.dest_start:
        return None
    start, end = fold.widen(text, index[aligned.dest_start], index[aligned.dest_end - 1] + 1)
    return Match(start, end, "fuzzy", float(aligned.score))


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
    """Share of the claim's content units that occur in any of ``sources``; 1.0 if it has none.

    Units are the claim's content words (:func:`genevals.text.content_words`: letters and digits of the Latin
    alphabet, compared without an apostrophe ending, "Anna's" is "Anna", and by their first five letters,
    "company" is "companies") and its words in other scripts (:func:`script_units`), each found when it occurs
    in a folded source (:mod:`genevals.claims.fold`), anywhere: Arabic writes "and", "the" and "in" onto the
    word, and Chinese writes no spaces."""
    words = {_base(w) for w in content_words(claim)}
    units = script_units(claim)
    if not words and not units:
        return 1.0
    pool = {_base(w.lower()) for s in sources for w in WORD.findall(s)}
    stems = {w[:5] for w in pool}
    hits = sum(1 for w in words if w in pool or w[:5] in stems)
    folded = "\x00".join(fold.fold(s) for s in sources)
    hits += sum(1 for u in units if u in folded)
    return hits / (len(words) + len(units))


def script_units(text: str) -> set[str]:
    """The folded content units of ``text`` outside the Latin alphabet: in a script written without spaces
    (Han, kana, Thai...) every two neighbouring letters (a letter alone when it stands alone), in any other
    script (Arabic, Devanagari, Cyrillic...) every word of three letters or more."""
    units: set[str] = set()
    for run in fold.LETTERS.findall(fold.fold(text)):
        for script, word in _by_script(run):
            if script in fold.UNSPACED:
                units.update(word[i:i + 2] for i in range(max(1, len(word) - 1)))
            elif script != "Latin" and sum(1 for ch in word if ch.isalpha()) >= 3:
                units.add(word)
    return units


def _by_script(run: str) -> Iterator[tuple[str | None, str]]:
    """(script, part) for the parts of a run of letters that are in one script each (a mark stays with its
    letter)."""
    script, start = None, 0
    for i, ch in enumerate(run):
        mine = fold.script_of(ch)
        if mine is None or mine == script:
            continue
        if i > start:
            yield script, run[start:i]
        script, start = mine, i
    if run:
        yield script, run[start:]


def _base(word: str) -> str:
    return word.split("'", 1)[0]
