"""The gates in their fixed order, cheap deterministic rules before judge calls, stopping at the first rejection.

    type_mismatch -> ungrounded_reference -> not_self_contained -> wrong_language -> duplicate
      -> reference_not_supported -> unanswerable_from_source -> not_multihop -> accidentally_answerable
      -> answerable_without_context (a flag)

A gate that does not apply to the item's type is not run and not recorded (:data:`APPLIES`). With no judge the
judge gates that apply say ``not_checked``. The item comes back with ``gates`` (name -> status, in the order
run), ``gate_reasons`` (name -> why) and its evidence offsets filled; with a judge, ``provenance["gate_prompts"]``
is the hash of the gates' prompts.
"""
from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Awaitable, Callable, Sequence

from genevals.generate.gates import duplicates, grounding, judged, language, multihop, shape, solving, standalone
from genevals.generate.gates import supported
from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import Outcome, not_checked
from genevals.generate.items import Item

#: the types whose reference is an answer drawn from the chunks (not a refusal, not a known-item target)
ANSWERED = ("fact", "multi_hop", "summary", "reasoning", "distracting", "follow_up", "extractive")
#: the judge gates, in order, and the types each applies to
APPLIES = {
    supported.NAME: ANSWERED,
    solving.FROM_SOURCE: ANSWERED,
    multihop.NAME: ("multi_hop",),
    solving.ACCIDENTAL: ("unanswerable",),
    solving.CLOSED_BOOK: ANSWERED,
}
#: every gate's name, in the order run
ORDER = (shape.NAME, grounding.NAME, standalone.NAME, language.NAME, duplicates.NAME, *APPLIES)
NO_JUDGE = "no judge configured (offline): this judge gate was not run"


def _judge_gate(name: str, item: Item, ctx: GateContext, lang: str) -> Callable[[], Awaitable[Outcome]]:
    calls = {supported.NAME: lambda: supported.check(item, ctx),
             solving.FROM_SOURCE: lambda: solving.from_source(item, ctx, lang),
             multihop.NAME: lambda: multihop.check(item, ctx, lang),
             solving.ACCIDENTAL: lambda: solving.accidental(item, ctx),
             solving.CLOSED_BOOK: lambda: solving.closed_book(item, ctx, lang)}
    return calls[name]


async def run_gates_async(item: Item, ctx: GateContext, kept: Sequence[Item]) -> Item:
    """:func:`run_gates` for a caller already in an event loop (the judge client is async)."""
    gates: dict[str, str] = {}
    reasons: dict[str, str] = {}

    def record(name: str, outcome: Outcome) -> bool:
        gates[name], reasons[name] = outcome.status, outcome.reason
        return outcome.rejects

    lang = language.expected(item, ctx)
    if record(shape.NAME, shape.check(item, lang)):
        return _done(item, gates, reasons, ctx)
    outcome, evidence = grounding.check(item, ctx)
    item = replace(item, evidence=evidence)
    if record(grounding.NAME, outcome):
        return _done(item, gates, reasons, ctx)
    rules = ((standalone.NAME, lambda: standalone.check(item, lang)), (language.NAME, lambda: language.check(item, ctx)),
             (duplicates.NAME, lambda: duplicates.check(item, ctx, kept)))
    for name, rule in rules:
        if record(name, rule()):
            return _done(item, gates, reasons, ctx)
    for name, types in APPLIES.items():
        if item.type not in types:
            continue
        outcome = not_checked(NO_JUDGE) if ctx.judge is None else await _judge_gate(name, item, ctx, lang)()
        if record(name, outcome):
            break
    return _done(item, gates, reasons, ctx)


def _done(item: Item, gates: dict[str, str], reasons: dict[str, str], ctx: GateContext) -> Item:
    provenance = dict(item.provenance)
    if ctx.judge is not None:
        provenance["gate_prompts"] = judged.version()
    return replace(item, gates=gates, gate_reasons=reasons, provenance=provenance)


def run_gates(item: Item, ctx: GateContext, kept: Sequence[Item]) -> Item:
    """``item`` with its gates run against ``ctx`` and the items ``kept`` so far in this set (for duplicates).

    Runs its own event loop for the judge calls; a caller inside a loop awaits :func:`run_gates_async`."""
    return asyncio.run(run_gates_async(item, ctx, kept))
