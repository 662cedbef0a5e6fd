"""One judge call of a gate: the prompt rendered with the item and its passages as JSON data, the reply read
against its JSON schema.

Everything a generator wrote or a document holds (question, reference, earlier turns, passages) enters a prompt
only as a JSON string inside ``<item>`` / ``<passages>`` tags, with every ``<`` written ``\\u003c``: a
document cannot close the tag it is quoted in, and its text reaches the judge as data under an instruction to
read, never follow, it (the test server of ``tests/support/gate_judge.py`` obeys instructions it finds outside
the data and proves it). A failed call or an unreadable reply is :data:`~.outcome.JUDGE_ERROR` with the
error, never a pass.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from genevals.generate.gates.context import GateContext
from genevals.generate.items import Chunk, Item
from genevals.prompt_render import prompt_version, render, user

#: the gates' prompts, in the order their hash is taken
PROMPTS = ("gate_supported", "gate_solve", "gate_closed_book", "gate_each")


def version() -> str:
    """The hash of the gates' prompts (the item's provenance records it)."""
    return prompt_version(*PROMPTS)


def data(value: Any) -> str:
    """``value`` as JSON that no tag can be closed from: every ``<`` escaped (still the same JSON value)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def item_json(item: Item, with_reference: bool) -> str:
    value: dict[str, Any] = {"question": item.question}
    if item.turns:
        value["conversation_so_far"] = [dict(t) for t in item.turns]
    if with_reference:
        value["reference"] = item.reference
    return data(value)


def passages_json(chunks: Sequence[Chunk], limit: int) -> tuple[str, bool]:
    """The passages numbered from 1, each cut to ``limit`` characters; and whether any was cut."""
    cut = any(len(c.text) > limit for c in chunks)
    return data([{"id": n, "text": c.text[:limit]} for n, c in enumerate(chunks, 1)]), cut


@dataclass(frozen=True)
class Reply:
    """A judge reply read as JSON (``value``), or why there is none (``error``)."""

    value: Mapping[str, Any] | None
    error: str | None = None


def _client_and_params(judge: Any, ctx: GateContext) -> tuple[Any, dict[str, Any]]:
    """A JudgeRuntime gives its client and its params; a bare JudgeClient gets the settings' ones."""
    s = ctx.settings
    if callable(getattr(judge, "client", None)) and callable(getattr(judge, "params", None)):
        return judge.client(), judge.params(s.max_tokens)
    return judge, {"temperature": s.temperature, "seed": s.seed, "max_tokens": s.max_tokens}


async def ask(ctx: GateContext, stage: str, prompt: str, schema: Mapping[str, Any], **values: str) -> Reply:
    """One call of ``prompt`` (a file of ``prompts/``) with ``values``; the reply's JSON object or the error."""
    from genevals.metrics.judging.parse import ParseError, extract_json

    client, params = _client_and_params(ctx.judge, ctx)
    call = await client.complete(stage, user(render(prompt, **values)), schema, params)
    if ctx.usage is not None:
        ctx.usage.add(call)
    if not call.ok:
        return Reply(None, f"the judge call failed: {call.error}")
    try:
        value, _ = extract_json(call.completion.text)
    except ParseError as exc:
        return Reply(None, f"unreadable judge reply: {exc}")
    if not isinstance(value, dict):
        return Reply(None, "the judge's reply is not a JSON object")
    return Reply(value)


def answer_schema() -> dict[str, Any]:
    return {"type": "object",
            "properties": {"answerable": {"type": "boolean"}, "answer": {"type": "string", "maxLength": 1000}},
            "required": ["answerable", "answer"], "additionalProperties": False}


def read_answer(value: Mapping[str, Any]) -> tuple[bool, str] | None:
    """(answerable, answer) from a solve reply, or None when it does not say both."""
    answerable, answer = value.get("answerable"), value.get("answer")
    if not isinstance(answerable, bool) or not isinstance(answer, str):
        return None
    return answerable, answer.strip()
