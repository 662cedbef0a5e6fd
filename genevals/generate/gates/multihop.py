"""``not_multihop``: a multi-hop item needs every one of its chunks, so no ONE of them alone answers it.

One call (``prompts/gate_each.md``) shows the solver the item's chunks, numbered, and asks for an answer from
each passage on its own. The item is rejected when any single passage's answer agrees with the reference
(:mod:`genevals.generate.gates.agreement`: token F1 >= ``agree_f1``); the reason names that chunk. A reply that
leaves a passage out is a judge error (a passage not asked about is not a passage that cannot answer).
"""
from __future__ import annotations

from genevals.generate.gates import judged
from genevals.generate.gates.agreement import agrees
from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import JUDGE_ERROR, Outcome, passed
from genevals.generate.items import Item
from genevals.quote import clip

NAME = "not_multihop"


def schema(n: int) -> dict:
    entry = {"type": "object",
             "properties": {"id": {"type": "integer"}, "answerable": {"type": "boolean"},
                            "answer": {"type": "string", "maxLength": 1000}},
             "required": ["id", "answerable", "answer"], "additionalProperties": False}
    return {"type": "object", "properties": {"passages": {"type": "array", "items": entry, "maxItems": n}},
            "required": ["passages"], "additionalProperties": False}


async def check(item: Item, ctx: GateContext, language: str) -> Outcome:
    chunks = [ctx.chunks[c] for c in dict.fromkeys(item.chunks) if c in ctx.chunks]
    passages, _ = judged.passages_json(chunks, ctx.settings.passage_chars)
    reply = await judged.ask(ctx, NAME, "gate_each", schema(len(chunks)),
                             item=judged.item_json(item, with_reference=False), passages=passages)
    if reply.value is None:
        return Outcome(JUDGE_ERROR, reply.error or "no reply")
    entries = reply.value.get("passages")
    answers: dict[int, tuple[bool, str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), int):
            read = judged.read_answer(entry)
            if read is not None:
                answers[entry["id"]] = read
    missing = [n for n in range(1, len(chunks) + 1) if n not in answers]
    if missing:
        return Outcome(JUDGE_ERROR, f"the solver gave no answer for passage(s) {missing}")
    scores = []
    for n, chunk in enumerate(chunks, 1):
        answerable, answer = answers[n]
        ok, score = agrees(answer, item.reference, language, ctx.settings.agree_f1) if answerable else (False, 0.0)
        if ok:
            return Outcome(NAME, f"chunk {chunk.id} alone answers it: {clip(answer, 80)!r} (token F1 {score:.2f})")
        scores.append(f"{chunk.id} {score:.2f}")
    return passed(f"no chunk alone answers it (token F1 each: {', '.join(scores)})")
