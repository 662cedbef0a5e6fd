"""Answer normalisation and word tokens per language: the one place these rules live (token F1, exact match,
ROUGE; BLEU may read :func:`tokens` too).

**Answer normalisation** (:func:`normalize`, :func:`answer_tokens`; token F1 and exact match):

- ``en``: SQuAD v1.1's ``normalize_answer`` by default (``english="squad"``: lower-case; delete the characters
  of ``string.punctuation``, ASCII only; replace the words a/an/the by a space; split on whitespace), or MLQA's
  ``en`` rule (``english="mlqa"``: the same, but every Unicode punctuation character is deleted too, so
  ``‘often damaging’`` and ``–`` / ``—`` are not words). The two differ only on text with non-ASCII
  punctuation: 3 of MLQA's 632 English vector pairs need ``mlqa``; the SQuAD goldens need ``squad``.
- ``es de ar hi vi zh``: MLQA's official ``normalize_answer`` (facebookresearch/MLQA ``mlqa_evaluation_v1.py``),
  in its order: ``str.lower``; delete every character of Unicode category P and of ``string.punctuation``;
  replace articles with a space using the script's own regexes (Python's Unicode ``\\b``): es
  ``\\b(un|una|unos|unas|el|la|los|las)\\b``, de ``\\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|
  des)\\b``, vi ``\\b(của|là|cái|chiếc|những)\\b``, ar ``\\sال^|ال`` (which replaces *every* "ال", inside
  words too, as the script does), hi and zh none; then whitespace tokens, except zh: "mixed segmentation",
  each character in U+4E00..U+9FA5 its own token and the runs between them split on whitespace.
- any other language ("unicode"): NFKC; ``str.lower``; delete Unicode category P and ``string.punctuation``
  (no article list: none is official); then words: ja, ko and th through their segmenter
  (:mod:`genevals.language.segment`: MeCab + IPADIC, MeCab + mecab-ko-dic morphemes, PyThaiNLP newmm;
  segmented before the punctuation is deleted, so a removed comma does not glue two words), every other
  language on whitespace, where each character of a script written without spaces (Han, kana, Thai, Lao,
  Myanmar, Khmer) is its own token together with the combining marks that follow it.

**Word tokens** (:func:`tokens`; ROUGE): NFKC; ``str.lower``; every character that is not a letter, a mark or a
number (Unicode L, M, N) becomes a space; then the same segmentation as above (zh: each Han character a
token, as MLQA segments it). On ASCII text this is exactly rouge-score's default tokenizer (``[^a-z0-9]+`` to
space), so English values do not move; unlike it, ``é``, ``ß``, Devanagari vowel signs and Arabic letters are
kept inside their words instead of becoming spaces.

A language whose segmenter is not installed raises :class:`~genevals.language.segment.SegmenterMissing`.
"""
from __future__ import annotations

import functools
import re
import string
import sys
import unicodedata

from genevals.language import scripts
from genevals.language.segment import SEGMENTERS, SegmenterMissing, needs_segmenter, segmenter

__all__ = ["ENGLISH_RULES", "MLQA_LANGUAGES", "SegmenterMissing", "answer_tokens", "normalize", "rule_name",
           "segmenter_name", "tokens"]

#: English answer normalisations: SQuAD v1.1's (default) or MLQA's
ENGLISH_RULES = ("squad", "mlqa")
#: the languages MLQA's evaluation script defines
MLQA_LANGUAGES = frozenset({"en", "es", "de", "ar", "hi", "vi", "zh"})

_ASCII_PUNCT = str.maketrans("", "", string.punctuation)
_SQUAD_ARTICLES = re.compile(r"\b(a|an|the)\b")
# The script's patterns, verbatim (its Arabic one is a plain string where "\s" is a regex escape).
_MLQA_ARTICLES = {
    "en": re.compile(r"\b(a|an|the)\b"),
    "es": re.compile(r"\b(un|una|unos|unas|el|la|los|las)\b"),
    "vi": re.compile(r"\b(của|là|cái|chiếc|những)\b"),
    "de": re.compile(r"\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b"),
    "ar": re.compile(r"\sال^|ال"),
}
_ASCII_NON_WORD = re.compile(r"[^a-z0-9]+")  # rouge-score's NON_ALPHANUM_PATTERN


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[int, None], re.Pattern[str]]:
    """(a str.translate table deleting MLQA's PUNCT, a pattern of the runs of non-word characters), built
    once from the Unicode database this Python has (as the script builds its PUNCT set)."""
    punct = {i for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P")}
    punct.update(map(ord, string.punctuation))
    ranges: list[str] = []
    start = None
    for i in range(sys.maxunicode + 1):
        word = unicodedata.category(chr(i))[0] in "LMN"
        if word and start is None:
            start = i
        elif not word and start is not None:
            ranges.append(_range(start, i - 1))
            start = None
    if start is not None:
        ranges.append(_range(start, sys.maxunicode))
    return dict.fromkeys(punct), re.compile("[^" + "".join(ranges) + "]+")


def _range(first: int, last: int) -> str:
    return re.escape(chr(first)) + ("" if first == last else "-" + re.escape(chr(last)))


def _delete_punct(text: str) -> str:
    if text.isascii():  # every ASCII punctuation character is in string.punctuation
        return text.translate(_ASCII_PUNCT)
    return text.translate(_tables()[0])


def _mixed_segmentation(text: str) -> list[str]:
    """MLQA's ``mixed_segmentation``: each character in U+4E00..U+9FA5 (or punctuation, already deleted by
    then) one token, the runs between them whitespace-split."""
    out: list[str] = []
    run: list[str] = []
    for char in text:
        if "\u4e00" <= char <= "\u9fa5":
            if run:
                out.extend("".join(run).split())
                run = []
            out.append(char)
        else:
            run.append(char)
    if run:
        out.extend("".join(run).split())
    return out


def _unspaced(char: str) -> bool:
    return ord(char) >= 0x0E00 and scripts.script_of(char) in scripts.UNSPACED


def _split_unspaced(text: str) -> list[str]:
    """Whitespace tokens, except that each character of an unspaced script is its own token, with the
    combining marks that follow it (Thai, Lao, Myanmar and Khmer vowel signs are marks)."""
    if all(ord(c) < 0x0E00 for c in text):
        return text.split()
    out: list[str] = []
    run: list[str] = []
    glued = False  # the last token is an unspaced character that following marks attach to
    for char in text:
        if _unspaced(char):
            if run:
                out.extend("".join(run).split())
                run = []
            out.append(char)
            glued = True
        elif glued and unicodedata.category(char).startswith("M"):
            out[-1] += char
        else:
            run.append(char)
            glued = False
    if run:
        out.extend("".join(run).split())
    return out


def _segmented(text: str, lang: str, clean) -> list[str]:
    """``lang``'s segmenter over ``text``, each word cleaned by ``clean`` (which may split it), empties dropped."""
    return [piece for word in segmenter(lang)(text) for piece in clean(word).split()]


def normalize(text: str, lang: str, english: str = "squad") -> str:
    """``text`` normalised as an answer in ``lang``: its tokens joined by single spaces (see the module doc).
    SegmenterMissing when ``lang`` needs a segmenter that is not installed."""
    if lang == "en" and english == "squad":
        return " ".join(_SQUAD_ARTICLES.sub(" ", text.lower().translate(_ASCII_PUNCT)).split())
    if lang in MLQA_LANGUAGES:
        text = _delete_punct(text.lower())
        pattern = _MLQA_ARTICLES.get(lang)
        if pattern is not None:
            text = pattern.sub(" ", text)
        words = _mixed_segmentation(text) if lang == "zh" else text.split()
        return " ".join(words)
    text = unicodedata.normalize("NFKC", text).lower()
    if needs_segmenter(lang):
        return " ".join(_segmented(text, lang, _delete_punct))
    return " ".join(_split_unspaced(_delete_punct(text)))


def answer_tokens(text: str, lang: str, english: str = "squad") -> list[str]:
    """The tokens token F1 compares: ``normalize(text, lang, english).split()``."""
    return normalize(text, lang, english).split()


def _words_of(text: str) -> str:
    if text.isascii():
        return _ASCII_NON_WORD.sub(" ", text)
    return _tables()[1].sub(" ", text)


def tokens(text: str, lang: str) -> list[str]:
    """The word tokens of ``text`` in ``lang`` (ROUGE's): lower-cased letters, marks and numbers, segmented
    by language (see the module doc). SegmenterMissing when ``lang``'s segmenter is not installed."""
    if text.isascii() and not needs_segmenter(lang):  # rouge-score's tokenizer exactly (NFKC keeps ASCII)
        return _ASCII_NON_WORD.sub(" ", text.lower()).split()
    text = unicodedata.normalize("NFKC", text).lower()
    if needs_segmenter(lang):
        return _segmented(text, lang, _words_of)
    return _split_unspaced(_words_of(text))


def segmenter_name(lang: str) -> str:
    """How ``lang``'s text is cut into words: ``mecab-ipadic``, ``mecab-ko-dic``, ``pythainlp-newmm``,
    or ``whitespace+char`` (whitespace, each character of an unspaced script its own token)."""
    if lang in SEGMENTERS:
        return SEGMENTERS[lang][0]
    return "whitespace+char"


def rule_name(lang: str, english: str = "squad") -> str:
    """The answer normalisation used for ``lang``: ``squad-v1.1``, ``mlqa-v1`` or ``unicode+<segmenter>``."""
    if lang == "en" and english == "squad":
        return "squad-v1.1"
    if lang in MLQA_LANGUAGES:
        return "mlqa-v1"
    return f"unicode-nfkc+{segmenter_name(lang)}"
