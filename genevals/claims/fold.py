"""How a judge's quote compares with the text it quotes: the folding both go through, with a map back to the
original characters, and the grapheme clusters a span must not cut.

A judge copies a passage through a tokenizer and a decoder: what comes back can differ from the passage in ways
that do not change a word. :func:`fold_with_map` folds both sides the same way, character by character:

1. curly quotes and dashes become ASCII, a no-break space a space (as before: what English judges change);
2. format characters (Unicode category Cf: zero-width space and joiners, soft hyphen, byte-order and direction
   marks) are dropped, and so is the Arabic tatweel (U+0640, a stretching stroke, not a letter);
3. each character is decomposed by NFKD, so NFC and NFD spellings, full-width and half-width forms (``１２３``,
   ``，``, ``Ａ``), ligatures and compatibility characters compare equal; marks are put back in canonical order;
4. Arabic diacritics (tashkeel: harakat, tanween, shadda, sukun, hamza and madda above/below, superscript alef,
   Quranic marks) are dropped, so a quote with or without vowel marks, or with a bare alef for a hamzated one,
   compares equal;
5. a decimal digit of any script becomes its ASCII digit (``١٩٠٣``, ``१९०३`` and ``1903`` compare equal);
   letters are lowercased; the ideographic full stop and comma become ``.`` and ``,``;
6. whitespace runs become one space, dropped at both ends and next to a letter of a script written without
   spaces (Han, kana, Thai...: :data:`genevals.language.scripts.UNSPACED`) or CJK punctuation, where a space
   (often a line break from a PDF) carries nothing.

Every folded character keeps the index of the original character it came from, so a match in the folded text
gives a span of the ORIGINAL text. A span is only kept when it neither cuts a grapheme cluster of the original
(UAX #29 extended grapheme clusters, from the ``regex`` module's ``\\X``: a base letter with its combining marks,
a Devanagari conjunct, an emoji joined by ZWJ) nor starts or ends inside a character that folding expanded
(``ﬁ`` is ``fi``: a quote of ``i`` is not in it). An ASCII text is folded and bounded without these tables (every
position but the middle of ``\\r\\n`` is a boundary), exactly as before.
"""
from __future__ import annotations

import functools
import unicodedata
from typing import Iterator

import regex

from genevals.language.scripts import UNSPACED, script_of

_TRANSLATE = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
              "\u00a0": " ", "\u3002": ".", "\u3001": ","}
_TRANSLATE_ASCII = str.maketrans({k: v for k, v in _TRANSLATE.items() if k not in "\u3002\u3001"})
TATWEEL = "\u0640"
#: Arabic marks dropped by folding (tashkeel and Quranic annotation marks)
ARABIC_MARKS = frozenset(
    [chr(c) for c in range(0x0610, 0x061B)] + [chr(c) for c in range(0x064B, 0x0660)] + ["\u0670"]
    + [chr(c) for c in range(0x06D6, 0x06DD)] + [chr(c) for c in range(0x06DF, 0x06E5)] + ["\u06e7", "\u06e8"]
    + [chr(c) for c in range(0x06EA, 0x06EE)])
_GRAPHEME = regex.compile(r"\X", regex.V1)
#: a run of letters with their marks, in any script
LETTERS = regex.compile(r"[\p{L}\p{M}]+")
_CACHE = 64  # texts folded and bounded at once: a sample's contexts, each quoted by several verdicts


def _unspaced(ch: str) -> bool:
    """Whether ``ch`` belongs to writing without spaces between words (a letter of such a script, or CJK
    punctuation), so that a space beside it carries nothing."""
    return script_of(ch) in UNSPACED or 0x3000 <= ord(ch) <= 0x303F or 0xFF00 <= ord(ch) <= 0xFF65


def _folded_chars(text: str) -> Iterator[tuple[str, int]]:
    """(folded character, index of its original character), before whitespace is collapsed; marks are put in
    canonical order across the original characters they came from."""
    marks: list[tuple[int, str, int]] = []  # (combining class, mark, index) waiting for the run to end
    for i, ch in enumerate(text):
        ch = _TRANSLATE.get(ch, ch)
        if ch == TATWEEL or unicodedata.category(ch) == "Cf":
            continue
        for c in unicodedata.normalize("NFKD", ch):
            if c in ARABIC_MARKS:
                continue
            ccc = unicodedata.combining(c)
            if ccc:
                marks.append((ccc, c, i))
                continue
            if marks:
                yield from ((m, j) for _, m, j in sorted(marks, key=lambda x: x[0]))  # stable: equal classes keep order
                marks.clear()
            digit = unicodedata.decimal(c, None)
            if digit is not None:
                yield str(digit), i
            else:
                yield from ((low, i) for low in c.lower())
    yield from ((m, j) for _, m, j in sorted(marks, key=lambda x: x[0]))


@functools.lru_cache(maxsize=_CACHE)
def fold_with_map(text: str) -> tuple[str, tuple[int, ...]]:
    """The folded text and, for each of its characters, the index of the original character it came from."""
    out: list[str] = []
    index: list[int] = []
    if text.isascii():
        pending = None
        for i, ch in enumerate(text.translate(_TRANSLATE_ASCII)):
            if ch.isspace():
                pending = i if out else None
                continue
            if pending is not None:
                out.append(" ")
                index.append(pending)
                pending = None
            out.append(ch.lower())
            index.append(i)
        return "".join(out), tuple(index)
    pending = None
    for ch, i in _folded_chars(text):
        if ch.isspace():
            pending = i if out else None
            continue
        if pending is not None:
            if not (_unspaced(out[-1]) or _unspaced(ch)):
                out.append(" ")
                index.append(pending)
            pending = None
        out.append(ch)
        index.append(i)
    return "".join(out), tuple(index)


def fold(text: str) -> str:
    return fold_with_map(text)[0]


@functools.lru_cache(maxsize=_CACHE)
def _boundaries(text: str) -> bytes:
    """1 at every grapheme-cluster boundary of ``text`` (positions 0..len), else 0."""
    marks = bytearray(len(text) + 1)
    if text.isascii():
        marks[:] = b"\x01" * (len(text) + 1)
        at = text.find("\r\n")
        while at >= 0:
            marks[at + 1] = 0
            at = text.find("\r\n", at + 2)
        return bytes(marks)
    for m in _GRAPHEME.finditer(text):
        marks[m.start()] = 1
    marks[len(text)] = 1
    return bytes(marks)


def is_boundary(text: str, at: int) -> bool:
    """Whether position ``at`` of ``text`` falls between two grapheme clusters (or at either end)."""
    return 0 <= at <= len(text) and bool(_boundaries(text)[at])


def whole(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a run of whole grapheme clusters."""
    return start < end and is_boundary(text, start) and is_boundary(text, end)


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """``start`` moved back and ``end`` moved on to the nearest grapheme-cluster boundaries."""
    bounds = _boundaries(text)
    while start > 0 and not bounds[start]:
        start -= 1
    while end < len(text) and not bounds[end]:
        end += 1
    return start, end


def original_span(text: str, folded: str, index: tuple[int, ...], at: int, end: int) -> tuple[int, int] | None:
    """The span of ``text`` that the folded match ``folded[at:end]`` covers, or None when it cuts a character
    that folding expanded or a grapheme cluster of ``text``. The span takes in the marks folding dropped
    right after its last character (an Arabic letter's vowel marks belong to the letter)."""
    if at > 0 and index[at - 1] == index[at]:
        return None  # starts inside an expanded character
    if end < len(folded) and index[end] == index[end - 1]:
        return None  # ends inside one ("cafe" in a composed "café")
    start, stop = index[at], index[end - 1] + 1
    limit = index[end] if end < len(folded) else len(text)
    while stop < limit and text[stop] in ARABIC_MARKS and not is_boundary(text, stop):
        stop += 1
    if not whole(text, start, stop):
        return None
    return start, stop
