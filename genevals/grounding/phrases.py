"""Phrase-level support: which of a claim's content tokens (numbers, dates, names, negations, other content
words) the contexts support, each with its exact character span in the answer.

A token is *supported globally* when it (or its 5-letter stem, or a normal form of its number) occurs anywhere
in the contexts or the question, and *supported locally* when it occurs in the evidence units the claim is
aligned to. A number present somewhere in the contexts but not in the aligned evidence usually belongs to
another fact ("four sailings" where the aligned sentence says six and a "4" is elsewhere); a name absent from
the aligned evidence but present elsewhere usually belongs to another person ("Buzz Aldrin stayed in lunar
orbit" against "Michael Collins remained in lunar orbit").
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from genevals.grounding import entities as ent
from genevals.text import STOPWORDS, WORD

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DATE_WORDS = frozenset(WEEKDAYS) | frozenset(ent.MONTHS) - {"may"}  # "may" is mostly the verb
_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_ORDINALS = {"third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
# number words too common as pronouns or idioms to count as a claim's number ("one of", "the first", "once")
_WEAK_NUMBER_WORDS = {"one", "zero"}
_SPELLED = re.compile(r"\b(?:(" + "|".join(_TENS) + r")(?:[-\s](" + "|".join(k for k in _UNITS if _UNITS[k] < 10)
                      + r"))?|(" + "|".join(_UNITS) + r")|(" + "|".join(_ORDINALS) + r"))\b", re.I)
_MONTH = re.compile(r"\b(" + "|".join(m.capitalize() for m in ent.MONTHS) + r")\b")
_WEEKDAY = re.compile(r"\b(" + "|".join(d.capitalize() for d in WEEKDAYS) + r")s?\b")
# a number right after "May" ("May 5"); the whitespace is taken atomically (a lookahead and its group), so a long
# run of it is read once, not once per character
_NUMBER_AFTER = re.compile(r"(?=(\s*))\1\d")
# a capital word after the first word ("John Smith"): matched at the first word's end, never on a slice
_NEXT_NAME = re.compile(r"\s+[A-Z][a-z]")
_ORDINAL_SUFFIXES = ("st", "nd", "rd", "th")


_FRACTION = re.compile(r"-(halves|half|thirds?|quarters?|fifths?|tenths?)\b", re.I)
_DENOMINATOR = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10}


def spelled_numbers(text: str) -> list[tuple[str, int, int]]:
    """Spelled-out numbers ("Thirty-one", "fifteen", "fourth") as (digits, start, end); a fraction
    ("seven-tenths", "three-quarters") as its whole percentage ("70", "75"), or nothing when it has none."""
    out = []
    for m in _SPELLED.finditer(text):
        fraction = _FRACTION.match(text, m.end())
        if fraction and (m.group(1) or m.group(3)):
            whole = _TENS[m.group(1).lower()] + (_UNITS[m.group(2).lower()] if m.group(2) else 0) if m.group(1) \
                else _UNITS[m.group(3).lower()]
            percent = 100 * whole / _DENOMINATOR[fraction.group(1).lower().rstrip("s")]
            if percent == int(percent):
                out.append((str(int(percent)), m.start(), fraction.end()))
            continue
        if m.group(1):
            value = _TENS[m.group(1).lower()] + (_UNITS[m.group(2).lower()] if m.group(2) else 0)
        elif m.group(3):
            if m.group(3).lower() in _WEAK_NUMBER_WORDS:
                continue
            value = _UNITS[m.group(3).lower()]
        else:
            value = _ORDINALS[m.group(4).lower()]
        out.append((str(value), m.start(), m.end()))
    return out


def number_forms(text: str) -> set[str]:
    """Every normal form of the numbers in ``text`` (digits, number words, compounds, 12-hour times)."""
    return ent.number_forms(text) | {n for n, _, _ in spelled_numbers(text)}


def _space_before(text: str, end: int) -> int:
    """Where the run of whitespace that ends at ``end`` starts."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


def _number_before(text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends in a day number: ``5``, ``5th``, ``5 of``, ``5th of `` (what the regular
    expression ``\\d\\s*(?:st|nd|rd|th)?\\s*(?:of\\s+)?$`` says), read backwards from ``end``: each character once,
    where the regular expression searched the whole text before every "May" and backtracked over whitespace."""
    at = _space_before(text, end)
    if at < end and text.endswith("of", 0, at):
        at = _space_before(text, at - 2)
    if text[max(at - 2, 0):at] in _ORDINAL_SUFFIXES:
        at = _space_before(text, at - 2)
    return at > 0 and text[at - 1].isdecimal()


def dates_in(text: str) -> list[tuple[str, int, int]]:
    """Month and weekday names as (lowercase singular, start, end); "May" only next to a number."""
    out = []
    for m in _MONTH.finditer(text):
        if m.group(1) == "May" and not (_number_before(text, m.start()) or _NUMBER_AFTER.match(text, m.end())):
            continue
        out.append((m.group(1).lower(), m.start(), m.end()))
    out += [(m.group(1).lower(), m.start(), m.end()) for m in _WEEKDAY.finditer(text)]
    return out


# a clause ends at ; : ( ) and sentence ends, and at a comma or "and"/"but"/... that opens a new phrase ("on Mondays
# in Port Ansel and on Tuesdays elsewhere"), not at one inside a list ("Wednesdays, Saturdays and Sundays")
# (a colon inside a time, "11:00", is not a break)
_CLAUSE = re.compile(r"[;()]|:(?!\d)|(?<=[.!?])\s+|(?:,|\s(?:and|but|while|whereas|or))\s+"
                     r"(?=(?:on|in|at|for|from|to|the|a|an|"
                     r"with|by|during|until|after|before|while|when|it|they|he|she|which|who)\b)", re.I)


@dataclass(frozen=True)
class Token:
    text: str
    start: int          # in the claim's own text
    end: int
    kind: str           # number / date / name / negation / word
    in_context: bool    # anywhere in the contexts or the question
    in_aligned: bool    # in the aligned evidence units


class Evidence:
    """The vocabulary of a set of texts, for membership tests of claim tokens."""

    def __init__(self, texts: Iterable[str]):
        texts = list(texts)
        joined = " ".join(ent.expand_abbreviations(t) for t in texts)
        self.tokens = ent.token_set(joined)
        self.stems = {ent.stem(w) for w in self.tokens}
        # the words inside a structured record's keys ("RestaurantsReservations": false says something about
        # reservations): present for the absent rule (holds), not for the detector's features, which its weights
        # were trained on
        self.key_tokens = ent.token_set(" ".join(map(ent.key_words, texts)))
        self.key_stems = {ent.stem(w) for w in self.key_tokens}
        self.compact = ent.compact(joined)
        self.numbers: set[str] = set()
        for t in texts:
            self.numbers |= number_forms(t)
        self.negated = any(w in ent.NEGATIONS or w.endswith("n't") for w in self.tokens)
        # clauses, for binding: "on Mondays in Port Ansel and on Tuesdays in the rest" binds Tuesdays to "rest"
        # each with its words' 4-letter prefixes, against which a claim's words are matched
        self.clauses = [(words, number_forms(part), {w[:4] for w in words if len(w) >= 4})
                        for t in texts for part in _CLAUSE.split(t) if part and part.strip()
                        for words in (ent.token_set(part),)]
        self.date_clauses = [(words, sentence, {w[:4] for w in words}, {w[:4] for w in sentence})
                             for t, sentence in ((t, ent.token_set(t)) for t in texts)
                             for part in _CLAUSE.split(t) if part and part.strip()
                             for words in (ent.token_set(part),)]

    def bound(self, token: "Token", others: Sequence["Token"]) -> bool:
        """Whether ``token`` occurs in one clause together with another of the claim's words (or, for a claim
        with no other word, anywhere here)."""
        return self.bound_among(token, Mates(others))

    def bound_among(self, token: "Token", mates: "Mates") -> bool:
        """:meth:`bound`, with the claim's words counted once (:class:`Mates`): each clause's words are looked up
        among them, so the cost is the evidence's, whatever the claim's length."""
        if not mates.besides(token):
            return token.in_aligned
        key = token.text.lower()
        for words, numbers, prefixes in self.clauses:
            here = key in numbers if token.kind == "number" else (
                key in words or key.rstrip("s") in words or key + "s" in words)
            if here and (mates.any_prefix(prefixes, token) or mates.any_word(words, token)):
                return True
        return False

    def date_bound(self, token: "Token", others: Sequence["Token"]) -> bool:
        """Whether the evidence binds the weekday or month ``token`` to the claim at least as well as any other
        date: the clause holding it shares at least as many of the claim's words as the best clause holding a
        rival date (ties broken by the whole sentence). "Collected on Tuesdays in Port Ansel" against "collected
        every week, on Mondays in Port Ansel and on Tuesdays in the rest" is not bound; a date with no rival
        ("October's final Saturday" for "the last Saturday of October") is a paraphrase, and bound."""
        return self.date_bound_among(token, Mates(others))

    def date_bound_among(self, token: "Token", mates: "Mates") -> bool:
        """:meth:`date_bound`, with the claim's words counted once (:class:`Mates`)."""
        if not mates.besides(token):
            return token.in_aligned
        key = token.text.lower()

        def shared(prefixes: set[str]) -> int:
            return sum(1 for p in prefixes if mates.has_prefix(p, token))

        own, rival = None, None
        for words, sentence, prefixes, sentence_prefixes in self.date_clauses:
            score = (shared(prefixes), shared(sentence_prefixes))
            dates = {w.rstrip("s") for w in words if w.rstrip("s") in _DATE_WORDS}
            if (key in words or key + "s" in words) and (own is None or score > own):
                own = score
            if dates - {key} and (rival is None or score > rival):
                rival = score
        if rival is None or rival == (0, 0):
            return own is not None
        return own is not None and own >= rival

    def has_word(self, word: str) -> bool:
        w = word.lower()
        return w in self.tokens or ent.stem(w) in self.stems or w.rstrip("s") in self.tokens

    def holds(self, word: str) -> bool:
        """:meth:`has_word`, or the word is inside a record's key (split at CamelCase, snake_case ...)."""
        if self.has_word(word):
            return True
        w = word.lower()
        return w in self.key_tokens or ent.stem(w) in self.key_stems or w.rstrip("s") in self.key_tokens

    def has_name(self, word: str) -> bool:
        return ent.present(word, self.tokens, self.stems, self.compact)


@lru_cache(maxsize=256)
def evidence_of(texts: tuple[str, ...]) -> Evidence:
    """The Evidence of ``texts``, kept for contexts shared by several answers (built once per batch, not per
    answer)."""
    return Evidence(texts)


def claim_tokens(claim: str, everywhere: Evidence, aligned: Evidence) -> list[Token]:
    """The claim's checkable tokens, each with global and local support.

    Linear in the claim's length: the characters already taken are marked once (an overlap is a look at the
    token's own characters, not at every token before it), and binding is decided once per distinct token
    (:class:`_Binding`), not once per occurrence against every other occurrence (a 200 KB claim took minutes)."""
    out: list[Token] = []
    taken = bytearray(len(claim) + 1)

    def add(text: str, s: int, e: int, kind: str, glob: bool, loc: bool) -> None:
        if any(taken[s:e]):
            return
        taken[s:e] = b"\x01" * (e - s)
        out.append(Token(text, s, e, kind, glob, loc))

    for n, s, e in ent.numbers_in(claim) + spelled_numbers(claim):
        add(n, s, e, "number", n in everywhere.numbers, n in aligned.numbers)
    for d, s, e in dates_in(claim):
        add(d, s, e, "date", everywhere.has_word(d), aligned.has_word(d))
    lead = len(claim) - len(claim.lstrip(" \t\"'\u201c*-"))
    for m in WORD.finditer(claim):
        w = m.group(0)
        low = w.lower()
        if low in ent.NEGATIONS or low.endswith("n't"):
            add(low, m.start(), m.end(), "negation", everywhere.negated, aligned.negated)
            continue
        first = m.start() <= lead  # a capital that only starts the sentence
        plain_start = first and w[1:].islower() and not _NEXT_NAME.match(claim, m.end())
        is_name = (w[0].isupper() and not plain_start and low not in ent._NOT_NAMES
                   and low not in STOPWORDS and len(w) > 1)
        if is_name:
            add(w, m.start(), m.end(), "name", everywhere.has_name(w), aligned.has_name(w))
        elif (len(low) > 3 or low.isdigit()) and low not in STOPWORDS:
            add(w if first else low, m.start(), m.end(), "word", everywhere.has_word(low), aligned.has_word(low))
    out.sort(key=lambda t: t.start)
    # a number or name is bound when it shares a clause with another claim word; a date, unless the evidence
    # binds another date more closely to the claim's words
    binding = _Binding(out, aligned)
    return [Token(t.text, t.start, t.end, t.kind, t.in_context, binding(t))
            if t.kind in ("number", "date", "name") and t.in_aligned else t for t in out]


class Mates:
    """The words and names of a claim, counted once, that bind its numbers, dates and names: their 4-letter
    prefixes and lower-case forms. A token is never its own mate: for a name, the counts less its own."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        words = [t for t in tokens if t.kind in ("word", "name")]
        self.n = len(words)
        self.prefixes = Counter(t.text.lower()[:4] for t in words)
        self.words = Counter(t.text.lower() for t in words)

    def besides(self, token: Token) -> int:
        """How many mates ``token`` has."""
        return self.n - (token.kind in ("word", "name"))

    def _count(self, counts: Counter, key: str, own: str, token: Token) -> int:
        return counts.get(key, 0) - (token.kind in ("word", "name") and key == own)

    def has_prefix(self, prefix: str, token: Token) -> bool:
        return self._count(self.prefixes, prefix, token.text.lower()[:4], token) > 0

    def any_prefix(self, prefixes: set[str], token: Token) -> bool:
        return any(self.has_prefix(p, token) for p in prefixes)

    def any_word(self, words: set[str], token: Token) -> bool:
        own = token.text.lower()
        return any(self._count(self.words, w, own, token) > 0 for w in words)


class _Binding:
    """Whether each of a claim's numbers, dates and names is bound (:meth:`Evidence.bound_among`,
    :meth:`Evidence.date_bound_among`), decided once per distinct (kind, text): every occurrence of a token has
    the same mates, so the same answer."""

    def __init__(self, tokens: Sequence[Token], aligned: Evidence) -> None:
        self.mates, self.aligned = Mates(tokens), aligned
        self.known: dict[tuple[str, str], bool] = {}

    def __call__(self, token: Token) -> bool:
        key = (token.kind, token.text)
        if key not in self.known:
            self.known[key] = (self.aligned.date_bound_among(token, self.mates) if token.kind == "date"
                               else self.aligned.bound_among(token, self.mates))
        return self.known[key]


def unsupported_phrase(claim: str, tokens: Sequence[Token]) -> tuple[int, int] | None:
    """The smallest span of the claim covering its unsupported tokens: critical ones (numbers, dates, names)
    missing from the aligned evidence first, else any content word missing from every context; widened to
    whole words. None when every token is supported."""
    critical = [t for t in tokens if t.kind in ("number", "date", "name") and not t.in_aligned]
    chosen = critical or [t for t in tokens if not t.in_context]
    if not chosen:
        return None
    s, e = min(t.start for t in chosen), max(t.end for t in chosen)
    while s > 0 and not claim[s - 1].isspace():
        s -= 1
    while e < len(claim) and (claim[e].isalnum() or claim[e] in "-%'"):
        e += 1
    return s, e


# where a clause of an answer sentence starts (after the match) and ends (at the match)
_CLAUSE_START = re.compile(r"[,;(]\s|:\s|\s(?:and|but|while|which|who|where|with)\s")
_CLAUSE_END = re.compile(r"[,;:)](?!\d)")
SPAN_MODES = ("phrase", "clause", "sentence")


def answer_span(claim: str, phrase: tuple[int, int] | None, mode: str) -> tuple[int, int] | None:
    """The span of ``claim`` to report as hallucinated: the unsupported ``phrase``; the clause around it
    (from the previous comma, colon, semicolon or clause-opening "and/but/which/who/where/with" to the next
    comma, colon or semicolon); or the whole sentence. None (the sentence) when no phrase was found."""
    if mode == "sentence" or phrase is None:
        return (0, len(claim)) if mode == "sentence" else None
    s, e = phrase
    if mode == "clause":
        starts = [m.end() for m in _CLAUSE_START.finditer(claim, 0, s)]
        s = starts[-1] if starts else 0
        m = _CLAUSE_END.search(claim, e)
        e = m.end() if m else len(claim)
    return s, e
