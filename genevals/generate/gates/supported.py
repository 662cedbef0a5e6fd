"""``reference_not_supported``: a judge, shown the item's cited chunks and its reference, says whether every
statement of the reference follows from them (``prompts/gate_supported.md``, one call).

A "supported" verdict must come with the passage sentence that supports it, and that sentence must be found in
a cited chunk (:func:`genevals.claims.locate.locate`, fuzzy matching at its default 90): a judge that says
"supported" for a reason it cannot show (one talked into it by text planted in a passage, or one that did not
read) does not pass the item.
"""
from __future__ import annotations

from genevals.claims.locate import locate
from genevals.generate.gates import judged
from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import JUDGE_ERROR, Outcome, passed
from genevals.generate.items import Item
from genevals.quote import clip

NAME = "reference_not_supported"
SCHEMA = {"type": "object",
          "properties": {"verdict": {"type": "string", "enum": ["supported", "not_supported"]},
                         "quote": {"type": "string", "maxLength": 1000},
                         "reason": {"type": "string", "maxLength": 400}},
          "required": ["verdict", "quote", "reason"], "additionalProperties": False}


async def check(item: Item, ctx: GateContext) -> Outcome:
    chunks = [ctx.chunks[c] for c in item.chunks if c in ctx.chunks]
    passages, cut = judged.passages_json(chunks, ctx.settings.passage_chars)
    reply = await judged.ask(ctx, "gate_supported", "gate_supported", SCHEMA,
                             item=judged.item_json(item, with_reference=True), passages=passages)
    if reply.value is None:
        return Outcome(JUDGE_ERROR, reply.error or "no reply")
    verdict, quote = reply.value.get("verdict"), reply.value.get("quote")
    reason = clip(str(reply.value.get("reason", "")), 200)
    if verdict not in ("supported", "not_supported") or not isinstance(quote, str):
        return Outcome(JUDGE_ERROR, f"the judge's verdict {clip(str(verdict), 40)!r} is neither supported nor "
                                    "not_supported")
    note = " (a passage was cut to fit the prompt)" if cut else ""
    if verdict == "not_supported":
        return Outcome(NAME, f"the judge: not supported by the cited chunks: {reason}{note}")
    if not any(locate(quote, c.text) is not None for c in chunks):
        return Outcome(NAME, f"the judge said supported, but its supporting sentence {clip(quote, 80)!r} is in no "
                             f"cited chunk{note}")
    return passed(f"the judge: supported ({reason}){note}")
