"""Numbers written on a command line or in a setting's text: plain ASCII decimals only.

Python's ``int()`` and ``float()`` also take ``1_000`` (a literal's digit grouping) and any Unicode decimal digit
(Arabic-Indic ``١٢٣``, full-width ``１２``, Devanagari ...). A user of a command-line tool expects neither: a
``--workers ٢`` pasted from a right-to-left document or a ``--seed 1_2`` typo should be named, not silently read
as 2 and 12. Every path that turns an option's or a setting's text into a number goes through :func:`whole_text`
or :func:`number_text`; what they accept is exactly the ASCII spellings ``int()``/``float()`` accepted before
(``-1``, ``+2``, ``0.50``, ``.5``, ``1e-3``, ``inf``, surrounding spaces), so no working command line changes.
"""
from __future__ import annotations

import re
import unicodedata

_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)
# float()'s own ASCII grammar, less the underscores: "inf"/"nan" stay words float() reads, so the checker that
# follows can say "expected a finite number" as before
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
                     re.ASCII | re.IGNORECASE)


class NotANumeral(ValueError):
    """Text that is not a plain ASCII number; ``advice`` is what to write instead, for the end of the caller's
    message (" (write 1000: no underscores)", " (write 12: ASCII digits)"), or "" when no number was meant (a
    word, "1.5" for a whole number)."""

    def __init__(self, text: str, grammar: re.Pattern) -> None:
        super().__init__(f"not a plain ASCII number: {text!r}")
        plain = "".join(str(unicodedata.decimal(c)) if unicodedata.decimal(c, None) is not None else c
                        for c in text.replace("_", ""))
        fixable = plain != text and grammar.fullmatch(plain) is not None
        shown = plain if len(plain) <= 40 else "it"  # 5,000 Arabic-Indic digits need no echo
        rule = " and ".join(r for r, broken in (("ASCII digits", not text.isascii()), ("no underscores", "_" in text))
                            if broken)
        self.advice = f" (write {shown}: {rule})" if fixable else ""


def whole_text(text: str) -> int:
    """``text`` (surrounding whitespace ignored) as an int when it is ASCII decimal digits with an optional sign;
    :class:`NotANumeral` otherwise (the caller names the option and the limits)."""
    word = text.strip()
    if not _WHOLE.fullmatch(word):
        raise NotANumeral(word, _WHOLE)
    try:
        return int(word)
    except ValueError:  # past int()'s 4,300-digit limit: the caller says which whole numbers it takes
        raise NotANumeral(word, _WHOLE) from None


#: the most digits :func:`small_whole` reads: past any count, turn or grade a file can mean, and far from int()'s
#: 4,300-digit limit (5,000 digits in a CSV cell raised ValueError there)
SMALL_DIGITS = 18
_SMALL = re.compile(rf"\+?[0-9]{{1,{SMALL_DIGITS}}}", re.ASCII)


def small_whole(text: str) -> int | None:
    """``text`` (surrounding whitespace ignored) as an int from 0 when it is at most :data:`SMALL_DIGITS` ASCII
    digits (an optional ``+``), else None: the one reader of a count, turn or grade written as text in a file or a
    judge's reply (``str.isdigit()`` also takes ``"²"`` and ``"١"``, which ``int()`` then refuses or reads)."""
    word = text.strip()
    return int(word) if _SMALL.fullmatch(word) else None


def number_text(text: str) -> float:
    """``text`` as a float when it is an ASCII decimal number (``-1``, ``.5``, ``1e-3``, ``inf``);
    :class:`NotANumeral` otherwise, as :func:`whole_text`."""
    word = text.strip()
    if not _NUMBER.fullmatch(word):
        raise NotANumeral(word, _NUMBER)
    return float(word)
