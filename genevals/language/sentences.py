"""Sentence boundaries in every script: the one place that says where a sentence ends.

Every caller that cuts text into sentences uses this module: the grounding checker's claims and evidence units
(:func:`segment`), the citation metrics' sentences, the judge's context windows and the refusal detector's
parts (:data:`LOOSE`). A span is a [start, end) slice of the text as given, never of a normalised copy.

:func:`segment`, the rules, in order (English keeps the rules it had: only the scripts' own marks are new):

1. A run of newlines ends a sentence.
2. ``.``, ``!``, ``?`` followed by closing quotes or brackets (kept with the sentence), whitespace, and a
   character that can open a sentence: an uppercase letter, a digit, an opening quote, bracket or bullet, or a
   letter of a script without case (Arabic, Devanagari, Han, Thai...). Not after an abbreviation ("Dr.",
   "U.S.", "J."). "the U.S. economy" stays one sentence; "He left. Then" is two.
3. The Devanagari danda ``।`` and double danda ``॥``, the Arabic question mark ``؟`` and the Urdu full stop
   ``۔``, followed by closers and whitespace, end a sentence whatever comes next (those scripts have no case).
4. The ideographic full stop ``。`` (and half-width ``｡``), the full-width ``！``, ``？`` and ``．`` end a
   sentence right after them and after the closing quotes or brackets that follow (``」』）】〕〉》”’``), with no
   space needed: Chinese and Japanese put none. A run ("？！") is one end; ``．`` between digits ("３．５")
   is a decimal point.
5. Thai has no sentence punctuation: in a span mostly in Thai letters, a space between Thai text ends a sentence, or, with
   ``pip install 'genevals[languages]'`` (PyThaiNLP with python-crfsuite), PyThaiNLP's CRF sentence
   segmenter (``crfcut``, trained on the TED and Orchid corpora) decides which spaces end one ("แต่" after a
   space goes on the sentence). :func:`name` says which one this install uses: signatures carry it.

Leading list marks ("1. ", "- ", "• ") and surrounding whitespace are trimmed from each span; a span without a
letter or digit is dropped.

Why rules, not a library, for every script but Thai: sentencex 1.0.32 (Wikimedia) splits the Hindi, Arabic and
Urdu goldens of tests/language/test_sentences.py as these rules do, but cuts "３．５" at its decimal point and
starts the next Japanese sentence with the closing 』 of the last; it needs each text's language before it can
split (the checker splits contexts whose language nobody gave); and it splits 1,487 of 10,000 English texts
differently from the English rules that tests pin (a lowercase word after a period, list items). The script's
own marks need no language: "。" ends a sentence in any text.
"""
from __future__ import annotations

import functools
import re

from genevals.language.scripts import dominant

#: closing quotes and brackets that stay with the sentence they close
CLOSERS = "\"')]\u201d\u2019\u300d\u300f\uff09\u3011\u3015\u3009\u300b"
#: rule 2's sentence ends (Latin and every script that borrows them)
LATIN_ENDS = ".!?"
#: rule 3's: danda, double danda, Arabic question mark, Urdu full stop
SCRIPT_ENDS = "\u0964\u0965\u061f\u06d4"
#: rule 4's: ideographic full stop, half-width ideographic full stop, full-width ! ? .
FULL_WIDTH_ENDS = "\u3002\uff61\uff01\uff1f\uff0e"
_C = re.escape(CLOSERS)
_F = re.escape(FULL_WIDTH_ENDS)
_S = re.escape(SCRIPT_ENDS)

# each end mark is matched itself (not looked behind for at every position: twice as fast); the span ends after
# the closers, the next starts after the whitespace; the leading look at the end marks lets the scan skip the
# other characters (half the time)
_BREAK = re.compile(
    rf"(?=[\n.!?{_S}{_F}])(?:\n+"
    rf"|[.!?](?P<latin>[{_C}]*)\s+(?=[\"'(*\-\u2022\u201c\u2018A-Z0-9]|[^\x00-\x7f])"
    rf"|[{_S}](?P<script>[{_C}]*)(?:\s+|\Z)"
    rf"|[{_F}][{_F}!?]*(?P<full>[{_C}]*)\s*)")
# a sentence end right after one of these is not one ("Capt. Smith", "U.S. troops", "J. Smith")
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|Capt|Col|Gen|Lt|Sgt|Cpl|Maj|Adm|Cmdr|Gov|Sen|Rep|Rev|St|Mt|"
                           r"Jr|Sr|Inc|Ltd|Co|Corp|No|Nos|vs|etc|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|"
                           r"Dec|e\.g|i\.e|U\.S|U\.K|a\.m|p\.m)|\b[A-Z])\.$")
_OPENERS = "\"'(*-\u2022\u201c\u2018"
_RECORD_BREAK = re.compile(rf"\n+|\\n|(?<=[.!?{_S}])\s+|(?<=[{_F}])\s*|,\s*(?=\")|[{{}}\[\]]")
_LIST_NUMBER = re.compile(r"(?:[*\-\u2022]\s+|\d{1,2}[.)]\s+|#+\s+)")  # used with .match(text, pos)
_THAI = re.compile(r"[\u0e01-\u0e5b]")
_THAI_SPACE = re.compile(r"(?<=[\u0e01-\u0e5b])\s+(?=[\u0e01-\u0e5b])")

#: where a text may be cut between sentences, as a regular expression for re.split / finditer: an end mark of
#: rules 2-3 followed by whitespace, or rule 4's marks (with their closers) followed by optional whitespace. Looser
#: than :func:`segment` (no look at the next word, no abbreviations): for cutting points, not claims.
LOOSE = (rf"(?<=[.!?{_S}])\s+"
         rf"|(?:(?<=[{_F}])|(?<=[{_F}][{_C}]))(?![{_F}{_C}!?])\s*")


_END = re.compile(rf"[.!?{_S}](?:\s|$)|[{_F}]+")


def count_ends(text: str) -> int:
    """How many sentence ends ``text`` has, for estimates (a dry run's claim count): an end mark of rules 2-3
    followed by whitespace or the end, or a run of rule 4's marks."""
    return len(_END.findall(text))


def _opens(c: str) -> bool:
    """Whether ``c`` can be the first character of a sentence after ". " (rule 2)."""
    return c in _OPENERS or c.isdecimal() or c.isupper() or (c.isalpha() and not c.islower())


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    m = _LIST_NUMBER.match(text, start, end)
    if m:
        start = m.end()
    return start, end


@functools.lru_cache(maxsize=1)
def _crfcut():
    """PyThaiNLP's CRF sentence segmenter, or None when it (or python-crfsuite) is not installed."""
    try:
        import pycrfsuite  # noqa: F401  (crfcut needs it; without it sent_tokenize raises at the first call)
        from pythainlp.tokenize import sent_tokenize
    except ImportError:
        return None
    return functools.partial(sent_tokenize, engine="crfcut")


def name() -> str:
    """The sentence rules as a signature names them: ``rules2`` plus Thai's segmenter (``th-crfcut`` with
    PyThaiNLP installed, ``th-space`` without)."""
    return f"rules2+th-{'crfcut' if _crfcut() is not None else 'space'}"


def _thai(text: str, start: int, end: int, crf) -> list[tuple[int, int]]:
    """Rule 5: the Thai sentences of ``text[start:end]`` as spans in ``text``."""
    if crf is None:
        cuts = [(m.start(), m.end()) for m in _THAI_SPACE.finditer(text, start, end)]
    else:
        pieces = crf(text[start:end])
        if "".join(pieces) != text[start:end]:  # spans must be exact: a segmenter that drops a character is not used
            return _thai(text, start, end, None)
        cuts, at = [], start
        for piece in pieces[:-1]:  # the pieces are the slice, in order, spaces included
            at += len(piece)
            gap = at
            while gap < end and text[gap].isspace():
                gap += 1
            cuts.append((at, gap))
    out, at = [], start
    for s, e in cuts:
        out.append((at, s))
        at = e
    out.append((at, end))
    return out


def segment(text: str, record: bool = False, thai: str | None = None) -> list[tuple[int, int]]:
    """Sentence-like units of ``text`` as trimmed (start, end) spans, by the rules of the module's docstring;
    ``record`` also cuts JSON at its fields (``{ } [ ]`` and ``, "``) and at every end mark followed by a space.
    ``thai``: "space" or "crfcut" to force rule 5's segmenter (default: crfcut when installed)."""
    spans, start = [], 0
    for m in (_RECORD_BREAK if record else _BREAK).finditer(text):
        group = None if record else m.lastgroup  # None: a newline (or a record's break)
        end = m.start() if group is None else m.end(group)
        if group is not None:
            if group == "latin" and "\n" not in m.group(0):  # a newline in the gap is rule 1's end
                mark = m.start("latin")  # just after the "."
                after = text[m.end()]
                if (not after.isascii() and not _opens(after)) or (end == mark and _ABBREVIATION.search(
                        text, max(start, mark - 16), mark)):
                    # the 16 characters before the break are enough for an abbreviation: searching the sentence
                    # so far made a run of "Dr. Dr. ..." quadratic
                    continue
            elif group == "full" and text[mark := m.start("full") - 1] == "\uff0e" and m.end() < len(text) \
                    and text[m.end()].isdecimal() and mark >= 1 and text[mark - 1].isdecimal():
                continue  # a full-width decimal point
        spans.append((start, end))
        start = m.end()
    spans.append((start, len(text)))
    crf = None if thai == "space" else _crfcut()
    if thai == "crfcut" and crf is None:
        raise RuntimeError("Thai sentence segmentation with crfcut needs pip install 'genevals[languages]'")
    out = []
    for s, e in spans:
        s, e = _trim(text, s, e)
        if e <= s or not re.search(r"\w", text[s:e]):
            continue
        if not record and _THAI.search(text, s, e) and dominant(text[s:e])[0] == "Thai":
            for ts, te in _thai(text, s, e, crf):
                ts, te = _trim(text, ts, te)
                if te > ts and re.search(r"\w", text[ts:te]):
                    out.append((ts, te))
        else:
            out.append((s, e))
    return out


def sentences(text: str, **kwargs) -> list[str]:
    """The sentences of :func:`segment` as strings."""
    return [text[s:e] for s, e in segment(text, **kwargs)]
