"""What ties a judge's claim to the answer it was drawn from: its numbers and its names (issue 52).

A judge that decomposes "Adults pay 18 crowns" into "Adults pay 20 crowns", "... 30 crowns", ... has invented
those claims, though most of their words are the answer's: a claim is the answer's only when

- every number it states is a number of the answer (:func:`numbers`: digits of any script, after folding by
  :mod:`genevals.claims.fold`, ``1,000`` and ``1000``, ``4.0`` and ``4`` alike; English number words,
  "eighteen" for ``18``, and 12-hour times through :func:`genevals.grounding.phrases.number_forms`), and
- every name it states (:func:`names`: a capitalised word that does not begin a sentence, or begins one
  before another capitalised word, in a script with case; not in German or Luxembourgish, which capitalise every
  noun) is a word of the answer, the question or an earlier turn (a self-contained claim names who "she" is: the
  question may say it).

Words in scripts without case (Han, kana, Thai, Arabic, Devanagari...) have no names to check; their numbers
are checked, and their content is checked by :func:`genevals.claims.locate.grounded_fraction`.
"""
from __future__ import annotations

import re
from typing import Iterable

from genevals.claims import fold
from genevals.grounding import phrases
from genevals.language.sentences import LOOSE
from genevals.text import STOPWORDS

#: languages that capitalise every noun: a capital letter there says nothing of a name
NOUN_CAPITALS = frozenset({"de", "lb"})
_NUMBER = re.compile(r"[0-9]+(?:[.,\u00a0\u202f' ][0-9]+)*")
_THOUSANDS = re.compile(r"[0-9]{1,3}(?:([.,\u00a0\u202f' ])[0-9]{3})(?:\1[0-9]{3})*")
_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")
_SENTENCE = re.compile(LOOSE)


def _numbers(group: str) -> list[str]:
    """The normal forms of one run of digits: ``1,000``, ``1.000`` and ``1 000`` are ``1000``; otherwise a
    comma is a decimal point, leading and trailing zeros go (``4.0`` is ``4``), and a space parts numbers."""
    if _THOUSANDS.fullmatch(group):
        return [re.sub(r"[^0-9]", "", group).lstrip("0") or "0"]
    out = []
    for part in re.split(r"[\u00a0\u202f' ]", group.replace(",", ".")):
        whole, _, frac = part.partition(".")
        frac = frac.replace(".", "").rstrip("0")
        out.append((whole.lstrip("0") or "0") + (f".{frac}" if frac else ""))
    return out


def numbers(text: str) -> set[str]:
    """The normal forms of the numbers ``text`` states: digit groups (any script) and English number words."""
    folded = fold.fold(text)
    found: set[str] = set()
    for m in _NUMBER.finditer(folded):
        found.update(_numbers(m.group()))
    found.update(n for n, _, _ in phrases.spelled_numbers(folded))
    return found


def number_forms(text: str) -> set[str]:
    """Every form a number of ``text`` may take in a claim drawn from it (the numbers, and their other forms)."""
    return numbers(text) | phrases.number_forms(fold.fold(text))


def names(text: str, language: str | None = None) -> set[str]:
    """The names ``text`` states, folded: capitalised words that do not begin a sentence (a quote or a bracket
    before a word begins it too), without a possessive ending; none in :data:`NOUN_CAPITALS` languages."""
    if (language or "").split("-")[0].lower() in NOUN_CAPITALS:
        return set()
    found = set()
    for sentence in _SENTENCE.split(text):
        words = _WORD.findall(sentence)
        for i, word in enumerate(words):
            if not word[0].isupper() or len(word) < 2:
                continue
            # a sentence's first word is a name when a capitalised word follows it and it is no common word
            # ("Pierre Curie was...", not "The Varnholt Bridge...")
            if i == 0 and not (len(words) > 1 and words[1][0].isupper() and len(word) > 3
                               and word.lower() not in STOPWORDS):
                continue
            found.add(_base(fold.fold(word)))
    return found


def missing(claim: str, answer: str, others: Iterable[str], language: str | None = None) -> str | None:
    """Why ``claim`` is not the answer's, or None: its numbers not in ``answer``, or its names in none of
    ``answer`` and ``others`` (the question, the earlier turns)."""
    absent = sorted(numbers(claim) - number_forms(answer), key=lambda n: (len(n), n))
    if absent:
        return "number(s) not in the answer: " + ", ".join(absent[:5])
    texts = [answer, *others]
    pool = {_base(w) for t in texts for w in _WORD.findall(fold.fold(t))}
    stems = {w[:5] for w in pool if len(w) >= 5}
    unknown = sorted(n for n in names(claim, language) if n not in pool and not (len(n) >= 5 and n[:5] in stems))
    if unknown:
        return "name(s) not in the answer: " + ", ".join(unknown[:5])
    return None


def _base(word: str) -> str:
    for end in ("'s", "\u2019s", "'", "\u2019"):
        if word.endswith(end) and len(word) > len(end):
            return word[: -len(end)]
    return word
