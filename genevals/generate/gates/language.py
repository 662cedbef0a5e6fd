"""``wrong_language``: the question (and the reference) are in the language asked, else in the documents'.

The language expected is ``--language`` when given, else the language detected in the item's first cited
chunk (:func:`genevals.language.detect`). Each of the question and the reference (when it has one) is detected
with the same function, and rejected when:

- the detection is sure (:attr:`genevals.language.Language.sure`: 12 letters or more and p >= 0.9) and names
  another language; or
- the detection is unsure but the text's letters are in a script the expected language is not written in (a
  Latin-letter question for Japanese documents): the script is certain where the model is not.

An unsure detection in a script the expected language uses is NOT a rejection (a short question, "Who is Ada
Berg?", names more than it says); its reason says it was unsure. Text with no letters (a number) is not judged.
"""
from __future__ import annotations

from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import Outcome, passed
from genevals.generate.items import Item
from genevals.language import detect
from genevals.language.detect import LANGUAGE_SCRIPTS
from genevals.language.scripts import SINGLE

NAME = "wrong_language"
_LATIN = frozenset({"Latin"})


def expected(item: Item, ctx: GateContext) -> str:
    """The language the item must be in: the one asked, else its first cited chunk's (English if none)."""
    if ctx.language:
        return ctx.language
    chunk = next((ctx.chunks[c] for c in item.chunks if isinstance(c, str) and c in ctx.chunks), None)
    return detect(chunk.text).code if chunk is not None else "en"


def _scripts_of(code: str) -> frozenset[str]:
    owned = frozenset(script for script, lang in SINGLE.items() if lang == code)
    return LANGUAGE_SCRIPTS.get(code, owned or _LATIN)


def _verdict(field: str, text: str, want: str) -> tuple[str | None, str]:
    """(problem or None, note) for one field."""
    found = detect(text)
    if found.script is None:
        return None, f"{field}: no letters, not judged"
    if found.sure:
        if found.code != want:
            return f"the {field} is in {found.code} (p={found.probability}), not {want}", ""
        return None, f"{field}: {want}"
    if found.script not in _scripts_of(want):
        return f"the {field} is written in {found.script} script, which {want} is not written in", ""
    return None, f"{field}: unsure ({found.why}), in a script {want} uses, not a rejection"


def check(item: Item, ctx: GateContext) -> Outcome:
    want = expected(item, ctx)
    fields = [("question", item.question)] + ([("reference", item.reference)] if item.reference.strip() else [])
    notes = []
    for field, text in fields:
        problem, note = _verdict(field, text, want)
        if problem is not None:
            return Outcome(NAME, problem)
        notes.append(note)
    source = "asked" if ctx.language else "the documents'"
    return passed(f"{want} ({source}): " + "; ".join(notes))
