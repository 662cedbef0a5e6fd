"""Which writing system a text is in, from its letters' code points (no model: a script is a fact of Unicode).

Used for the fallback language of a text too short to detect, for segmentation (scripts written without spaces)
and by the text rules that must know a letter when they see one in any script.
"""
from __future__ import annotations

import functools
import unicodedata
from collections import Counter

# (first, last, script): the blocks genevals distinguishes; the rest of the letters count by unicodedata's name
_RANGES = (
    (0x0041, 0x024F, "Latin"), (0x1E00, 0x1EFF, "Latin"), (0x0370, 0x03FF, "Greek"), (0x1F00, 0x1FFF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"), (0x0590, 0x05FF, "Hebrew"), (0x0600, 0x06FF, "Arabic"),
    (0x0750, 0x077F, "Arabic"), (0x08A0, 0x08FF, "Arabic"), (0xFB50, 0xFDFF, "Arabic"), (0xFE70, 0xFEFF, "Arabic"),
    (0x0900, 0x097F, "Devanagari"), (0x0980, 0x09FF, "Bengali"), (0x0E00, 0x0E7F, "Thai"), (0x0E80, 0x0EFF, "Lao"),
    (0x1000, 0x109F, "Myanmar"), (0x1780, 0x17FF, "Khmer"), (0x10A0, 0x10FF, "Georgian"), (0x0530, 0x058F, "Armenian"),
    (0x3040, 0x309F, "Kana"), (0x30A0, 0x30FF, "Kana"), (0x31F0, 0x31FF, "Kana"), (0xFF66, 0xFF9F, "Kana"),
    (0x1100, 0x11FF, "Hangul"), (0x3130, 0x318F, "Hangul"), (0xAC00, 0xD7AF, "Hangul"),
    (0x3400, 0x4DBF, "Han"), (0x4E00, 0x9FFF, "Han"), (0xF900, 0xFAFF, "Han"), (0x20000, 0x323AF, "Han"),
)

#: scripts written without spaces between words: a segmenter (or one token per character) is needed
UNSPACED = frozenset({"Han", "Kana", "Thai", "Lao", "Myanmar", "Khmer"})

#: the language a text in this script most likely is when it is too short to detect
FALLBACK = {"Latin": "en", "Han": "zh", "Kana": "ja", "Hangul": "ko", "Arabic": "ar", "Devanagari": "hi",
            "Cyrillic": "ru", "Greek": "el", "Hebrew": "he", "Thai": "th", "Bengali": "bn", "Georgian": "ka",
            "Armenian": "hy", "Lao": "lo", "Myanmar": "my", "Khmer": "km"}

#: a script used by one language only: a text in it is that language, however short
SINGLE = {"Kana": "ja", "Hangul": "ko", "Thai": "th", "Greek": "el", "Hebrew": "he", "Georgian": "ka",
          "Armenian": "hy", "Lao": "lo", "Myanmar": "my", "Khmer": "km"}


@functools.lru_cache(maxsize=65536)
def script_of(char: str) -> str | None:
    """The script of one letter (None for a digit, punctuation, a space, a mark or a symbol)."""
    if not char.isalpha():
        return None
    point = ord(char)
    for first, last, script in _RANGES:
        if first <= point <= last:
            return script
    label = unicodedata.name(char, "")
    return label.split(" ", 1)[0].title() if label else "Other"


def scripts(text: str) -> Counter[str]:
    """How many letters of ``text`` each script has, in the order of each script's first letter. The characters
    are counted first (in C), then each distinct one's script added in: the same counts in the same order as a
    step per character, in half the time (0.018 ms against 0.036 ms for a detection's 600 characters)."""
    counts: Counter[str] = Counter()
    for char, n in Counter(text).items():  # in the order of first occurrence, as the scripts' first letters
        script = script_of(char)
        if script is not None:
            counts[script] += n
    return counts


def dominant(text: str) -> tuple[str | None, int]:
    """(the script most of ``text``'s letters are in, how many letters the text has). Kana beside Han is
    Japanese writing, so any kana makes it "Kana"."""
    counts = scripts(text)
    letters = sum(counts.values())
    if not letters:
        return None, 0
    if counts.get("Kana"):
        return "Kana", letters
    return counts.most_common(1)[0][0], letters
