"""``ungrounded_reference``: every evidence quote is found in the chunk it cites, and gets its offsets.

A quote is located with the project's quote locator (:func:`genevals.claims.locate.locate`) with fuzzy matching
OFF: verbatim, or verbatim after folding both sides (case, whitespace runs, curly quotes and dashes,
NFKC-equivalent forms, NFC against NFD; :mod:`genevals.claims.fold`), so a quote that a generator re-typed
with other quote marks or line breaks is found, and a paraphrase is not. Offsets are ``[start, end)`` into the
chunk's ORIGINAL text. A quote citing a chunk the item is not built on, or one the corpus does not have, is
ungrounded too; an item of a type that answers from its chunks (every type but ``unanswerable`` and
``known_item``) needs at least one quote.
"""
from __future__ import annotations

from dataclasses import replace

from genevals.claims.locate import locate
from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import Outcome, passed
from genevals.generate.items import Evidence, Item
from genevals.quote import clip

NAME = "ungrounded_reference"
#: types whose reference need not be quoted from a chunk
UNQUOTED = ("unanswerable", "known_item")


def check(item: Item, ctx: GateContext) -> tuple[Outcome, tuple[Evidence, ...]]:
    """The outcome and the item's evidence with offsets filled (None where a quote was not found)."""
    located: list[Evidence] = []
    problems: list[str] = []
    methods: set[str] = set()
    for n, ev in enumerate(item.evidence, 1):
        chunk = ctx.chunks.get(ev.chunk_id)
        if ev.chunk_id not in item.chunks or chunk is None:
            where = "the corpus has no such chunk" if chunk is None else "the item is not built on it"
            problems.append(f"quote {n} cites chunk {ev.chunk_id!r}: {where}")
            located.append(replace(ev, start=None, end=None))
            continue
        match = locate(ev.quote, chunk.text, fuzzy=False)
        if match is None:
            problems.append(f"quote {n} {clip(ev.quote, 80)!r} is not in chunk {ev.chunk_id}")
            located.append(replace(ev, start=None, end=None))
            continue
        methods.add(match.method)
        located.append(replace(ev, start=match.start, end=match.end))
    if problems:
        return Outcome(NAME, "; ".join(problems)), tuple(located)
    if not item.evidence:
        if item.type in UNQUOTED:
            return passed(f"a {item.type} item quotes nothing"), ()
        return Outcome(NAME, f"a {item.type} item with no evidence quote"), ()
    how = "verbatim" if methods == {"exact"} else "verbatim after folding case, whitespace and quote marks"
    return passed(f"{len(located)} quote(s) located {how}"), tuple(located)
