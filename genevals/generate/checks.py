"""The gates the driver runs, behind one adapter: the gates package (``genevals.generate.gates``:
``GateContext.build`` and ``run_gates``) when it is there, else the deterministic checks below, which are
enough for the offline items. Which one ran is recorded on the card (:attr:`Gatekeeper.name`).

The deterministic checks, in order, stopping at the first rejection (cheap before dear, as the gates do):

1. ``generation``: an empty question or reference is ``generation_failed``.
2. ``type``: ``multi_hop`` needs two chunks or more; any other type one chunk or more (``type_mismatch``).
3. ``evidence``: each quote must be its chunk's text at its ``[start, end)``, or found in the chunk (then
   located); else ``ungrounded_reference``.
4. ``language``: with a language asked, the item's must be it (``wrong_language``).
5. ``duplicate``: a question equal, after case folding and whitespace collapsing, to a kept item's or an earlier
   set's is ``duplicate``.
6. ``judge``: the checks that need a judge (support, answerability, self-containment) are ``not_checked``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from genevals.generate.items import PASSED, Chunk, Evidence, Item

NOT_CHECKED = "not_checked"
LOCAL = "deterministic checks (genevals.generate.checks)"


def _key(question: str) -> str:
    return " ".join(question.casefold().split())


@dataclass(frozen=True)
class LocalContext:
    chunks: Mapping[str, Chunk]
    language: str | None
    earlier: frozenset[str]


def _evidence(item: Item, chunks: Mapping[str, Chunk]) -> tuple[str, tuple[Evidence, ...]]:
    located = []
    for ev in item.evidence:
        chunk = chunks.get(ev.chunk_id)
        if chunk is None or not ev.quote:
            return "ungrounded_reference", item.evidence
        if ev.start is not None and chunk.text[ev.start:ev.end] == ev.quote:
            located.append(ev)
            continue
        at = chunk.text.find(ev.quote)
        if at < 0:
            return "ungrounded_reference", item.evidence
        located.append(Evidence(ev.chunk_id, ev.quote, at, at + len(ev.quote)))
    return (PASSED if located else "ungrounded_reference"), tuple(located)


def local_gates(item: Item, ctx: LocalContext, kept: Sequence[Item]) -> Item:
    """The deterministic checks of the module's docstring, filled into ``item.gates``."""
    gates: dict[str, str] = {}

    def done(**changes: Any) -> Item:
        return replace(item, gates=gates, **changes)

    gates["generation"] = PASSED if item.question.strip() and item.reference.strip() else "generation_failed"
    if gates["generation"] != PASSED:
        return done()
    enough = len(item.chunks) >= (2 if item.type == "multi_hop" else 1)
    gates["type"] = PASSED if enough else "type_mismatch"
    if not enough:
        return done()
    gates["evidence"], evidence = _evidence(item, ctx.chunks)
    if gates["evidence"] != PASSED:
        return done()
    if ctx.language:
        gates["language"] = PASSED if item.language == ctx.language else "wrong_language"
        if gates["language"] != PASSED:
            return done(evidence=evidence)
    seen = ctx.earlier | {_key(k.question) for k in kept}
    gates["duplicate"] = "duplicate" if _key(item.question) in seen else PASSED
    if gates["duplicate"] == PASSED:
        gates["judge"] = NOT_CHECKED
    return done(evidence=evidence)


class Gatekeeper:
    """``run(item, kept)`` with the gates package's ``run_gates`` when installed, else :func:`local_gates`."""

    def __init__(self, chunks: Mapping[str, Chunk], judge: Any = None, language: str | None = None,
                 earlier: Sequence[Item] = ()) -> None:
        try:
            from genevals.generate import gates  # type: ignore[attr-defined]
        except ImportError:
            gates = None
        if gates is not None:
            self.name = "genevals.generate.gates"
            self._ctx: Any = gates.GateContext.build(chunks, judge=judge, language=language, earlier=earlier)
            self._run = gates.run_gates
        else:
            self.name = LOCAL
            self._ctx = LocalContext(chunks, language, frozenset(_key(i.question) for i in earlier))
            self._run = local_gates

    def run(self, item: Item, kept: Sequence[Item]) -> Item:
        return self._run(item, self._ctx, kept)
