"""Script builders for the packaged :class:`~genevals.judge.backends.scripted.ScriptedProvider`, for tests whose
judge must answer per sample (the cascade, validation, the engine): the real Faithfulness metric then runs on
top, with its prompts, client, parsing and arithmetic.

    ScriptedProvider({"decompose": one_claim_per_answer(), "verify": label_claims("supported")})

``one_claim_per_answer`` makes each answer a single claim, quoted whole (so it is always located);
``label_claims`` gives every claim of a verify prompt a label, fixed or chosen from the claim's text.
"""
from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

Messages = Sequence[Mapping[str, str]]
_CLAIM_LINE = re.compile(r"(\d+)\. (.*)")


def answer_of(messages: Messages) -> str:
    """The answer a decompose prompt asks about."""
    return messages[0]["content"].rsplit('Answer: """', 1)[1].rsplit('"""', 1)[0]


def claims_of(messages: Messages) -> dict[int, str]:
    """The numbered claims a verify prompt lists, by id."""
    block = messages[0]["content"].split("\nClaims:\n", 1)[1].split("\nReply:", 1)[0]
    return {int(m.group(1)): m.group(2) for m in map(_CLAIM_LINE.fullmatch, block.strip().splitlines()) if m}


def one_claim_per_answer(fail: Mapping[str, BaseException] | None = None) -> Callable[[Messages], object]:
    """A decompose reply: the whole answer as its one claim; ``fail[answer]`` is raised instead, when given."""
    fail = dict(fail or {})

    def reply(messages: Messages) -> object:
        answer = answer_of(messages)
        if answer in fail:
            return fail[answer]
        return {"claims": [{"claim": answer.strip(), "source": answer.strip()}]}

    return reply


def label_claims(label: str | Callable[[str], str]) -> Callable[[Messages], object]:
    """A verify reply: one verdict per listed claim, labelled ``label`` (or ``label(claim text)``)."""
    choose = label if callable(label) else (lambda claim: label)

    def reply(messages: Messages) -> object:
        return {"verdicts": [{"id": cid, "context": 1, "quote": "", "label": choose(text), "reason": "scripted"}
                             for cid, text in claims_of(messages).items()]}

    return reply
