"""The gates that hand the question to a solver (the judge, asked to answer it) and compare what it answers with
the reference (:mod:`genevals.generate.gates.agreement`: token F1 >= ``agree_f1``). One call each.

- ``unanswerable_from_source`` (every answerable type): given only the item's cited chunks
  (``prompts/gate_solve.md``), the solver answers, and its answer agrees with the reference; else rejected
  (the chunks do not hold the answer, or hold another one).
- ``accidentally_answerable`` (``unanswerable`` items): given the corpus's top ``top_k`` chunks for the question
  by BM25 over all chunks (:mod:`genevals.generate.gates.retrieval`), the solver must still find no answer;
  an ``answerable: true`` with an answer of one word or more that is not a refusal rejects the item (its reason
  names the chunks shown).
- ``answerable_without_context`` (every answerable type; a flag, the item is kept): given nothing
  (``prompts/gate_closed_book.md``), the solver's answer agrees with the reference: the item tests the model's
  memory, not retrieval.
"""
from __future__ import annotations

from genevals.generate.gates import judged
from genevals.generate.gates.agreement import agrees
from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import JUDGE_ERROR, Outcome, passed
from genevals.generate.gates.retrieval import words
from genevals.generate.items import Item
from genevals.quote import clip
from genevals.text import detect_refusal

FROM_SOURCE = "unanswerable_from_source"
ACCIDENTAL = "accidentally_answerable"
CLOSED_BOOK = "answerable_without_context"


async def _solve(item: Item, ctx: GateContext, stage: str, chunk_ids: list[str]) -> tuple[bool, str] | Outcome:
    if chunk_ids:
        chunks = [ctx.chunks[c] for c in chunk_ids]
        passages, _ = judged.passages_json(chunks, ctx.settings.passage_chars)
        reply = await judged.ask(ctx, stage, "gate_solve", judged.answer_schema(),
                                 item=judged.item_json(item, with_reference=False), passages=passages)
    else:
        reply = await judged.ask(ctx, stage, "gate_closed_book", judged.answer_schema(),
                                 item=judged.item_json(item, with_reference=False))
    if reply.value is None:
        return Outcome(JUDGE_ERROR, reply.error or "no reply")
    read = judged.read_answer(reply.value)
    if read is None:
        return Outcome(JUDGE_ERROR, "the solver's reply lacks a boolean 'answerable' and a text 'answer'")
    return read


async def from_source(item: Item, ctx: GateContext, language: str) -> Outcome:
    got = await _solve(item, ctx, FROM_SOURCE, [c for c in item.chunks if c in ctx.chunks])
    if isinstance(got, Outcome):
        return got
    answerable, answer = got
    ok, score = agrees(answer, item.reference, language, ctx.settings.agree_f1) if answerable else (False, 0.0)
    if not answerable:
        return Outcome(FROM_SOURCE, "the solver found no answer in the cited chunks")
    if not ok:
        return Outcome(FROM_SOURCE, f"the solver's answer {clip(answer, 80)!r} disagrees with the reference "
                                    f"(token F1 {score:.2f} < {ctx.settings.agree_f1:g})")
    return passed(f"the solver answered from the cited chunks (token F1 {score:.2f})")


async def accidental(item: Item, ctx: GateContext) -> Outcome:
    top = ctx.index.top(item.question, ctx.settings.top_k) if ctx.index is not None else []
    if not top:
        return passed("no chunk of the corpus shares a word with the question")
    ids = [c for c, _ in top]
    got = await _solve(item, ctx, ACCIDENTAL, ids)
    if isinstance(got, Outcome):
        return got
    answerable, answer = got
    # an answer: a word at least (a tiny model copies the prompt's "..."), and not a refusal
    if answerable and words(answer) and detect_refusal(answer) is None:
        return Outcome(ACCIDENTAL, f"the solver answered {clip(answer, 80)!r} from the corpus's top {len(ids)} "
                                   f"BM25 chunks ({', '.join(ids)})")
    said = "no answer" if not answerable else f"no answer with a word or that is not a refusal ({clip(answer, 40)!r})"
    return passed(f"the solver found {said} in the corpus's top {len(ids)} BM25 chunks ({', '.join(ids)})")


async def closed_book(item: Item, ctx: GateContext, language: str) -> Outcome:
    got = await _solve(item, ctx, CLOSED_BOOK, [])
    if isinstance(got, Outcome):
        return got
    answerable, answer = got
    ok, score = agrees(answer, item.reference, language, ctx.settings.agree_f1) if answerable else (False, 0.0)
    if ok:
        return Outcome(CLOSED_BOOK, f"answered with no context: {clip(answer, 80)!r} (token F1 {score:.2f})")
    return passed(f"not answered with no context (token F1 {score:.2f})")
