"""``not_self_contained``: a question (or reference) that points at its source ("according to the passage",
"this document", "the author says") cannot be asked of a system that was never shown that source.

The phrases are data, one table per language (``standalone.json`` beside this module: 27 languages, each phrase
a deictic or source-citing noun phrase, never a bare noun that a real question uses: "the passage of the bill",
"who is the author of" are questions). Every table is applied to every item, whatever its language (a model
asked for Spanish may still write "according to the text"). Both sides are folded the same way: NFKC,
case-folded, right single quotes made apostrophes, whitespace runs one space. A phrase then matches as:

- ``word``: whole words (no letter, mark or digit just before or after it);
- ``prefix``: the start of a word (languages that glue particles or endings on: Korean 이 글에서, Turkish
  metinde, Russian в тексте);
- ``substring``: anywhere (scripts written without spaces: Chinese, Japanese, Thai).

An item in a language with no table (a language genevals detects but the table does not cover: Georgian, Tamil
...) is still checked against the other tables, and its reason says its own language had none.
"""
from __future__ import annotations

import functools
import json
import unicodedata
from pathlib import Path

import regex

from genevals.generate.gates.outcome import Outcome, passed
from genevals.generate.items import Item

NAME = "not_self_contained"
TABLE = Path(__file__).with_name("standalone.json")
_SPACE = regex.compile(r"\s+")
_BEFORE = r"(?<![\p{L}\p{M}\p{N}])"
_AFTER = r"(?![\p{L}\p{M}\p{N}])"


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'").replace("\u02bc", "'")
    return _SPACE.sub(" ", text).strip()


@functools.lru_cache(maxsize=1)
def patterns() -> dict[str, regex.Pattern]:
    """One alternation per language of the table."""
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    out = {}
    for lang, entry in table.items():
        if lang.startswith("_"):
            continue
        before, after = {"word": (_BEFORE, _AFTER), "prefix": (_BEFORE, ""), "substring": ("", "")}[entry["match"]]
        alternatives = "|".join(regex.escape(fold(p)) for p in sorted(entry["phrases"], key=len, reverse=True))
        out[lang] = regex.compile(f"{before}(?:{alternatives}){after}")
    return out


def find(text: str) -> tuple[str, str] | None:
    """(language, phrase) of the first table whose phrase occurs in ``text``, or None."""
    folded = fold(text)
    for lang, pattern in patterns().items():
        match = pattern.search(folded)
        if match:
            return lang, match.group(0)
    return None


def check(item: Item, language: str) -> Outcome:
    """``language``: the item's language (only said in the reason when no table covers it)."""
    # an unanswerable item's reference is a refusal, which may well say "the documents do not mention it"
    texts = [("question", item.question)] + ([] if item.type == "unanswerable" else [("reference", item.reference)])
    texts += [(f"turn {n}", t.get("content", "")) for n, t in enumerate(item.turns, 1) if t.get("role") == "user"]
    for field, text in texts:
        found = find(text)
        if found is not None:
            return Outcome(NAME, f"the {field} points at its source: {found[1]!r} ({found[0]} phrase table)")
    covered = "" if language in patterns() else f"; no phrase table for {language}, the other tables applied"
    return passed(f"no phrase of the {len(patterns())} languages' tables{covered}")
