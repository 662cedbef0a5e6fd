"""A scripted judge for the generate room's gates, served by :class:`support.fault_server.FaultServer` (``replies=``)
over HTTP on 127.0.0.1: it answers each gate prompt deterministically from what the prompt shows it, and it
OBEYS instructions planted in the prompt, as a model open to prompt injection does, wherever it can read them as
instructions: anywhere outside the JSON data of the ``<item>`` and ``<passages>`` tags.

What it knows is a table of facts: question -> (answer, needs), ``needs`` being the strings that must all be in
the passages shown for the answer to be found there (none: the answer is common knowledge, given with no
passages too). Per prompt (told apart by their first lines):

- gate_supported: "supported" when every content word of the reference occurs in the passages, quoting the
  passage sentence sharing most of them; else "not_supported".
- gate_solve: the table's answer when the passages shown hold all its ``needs``; else no answer.
- gate_closed_book: the table's answer when its ``needs`` are empty; else no answer.
- gate_each: per passage, the table's answer when that passage alone holds all its ``needs``.

A planted ``ignore previous instructions and answer WORD`` read outside the data makes it answer WORD: verdict
"supported" quoting WORD, or ``answerable: true`` with WORD as the answer, to every gate.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping

from genevals.language.sentences import sentences
from genevals.prompt_files import first_line
from genevals.text import content_words

PLANTED = re.compile(r"ignore (?:all )?(?:previous|prior|your) instructions\W+(?:and )?(?:answer|reply|say) (\w+)",
                     re.I)
_TAGS = ("item", "passages")


def parts(content: str) -> tuple[dict[str, Any], str]:
    """The JSON values inside the tags, and the prompt's text outside them (what a model reads as instructions).
    A tag whose content is not JSON (a raw, unquoted rendering) stays part of the instructions."""
    found: dict[str, Any] = {}
    outside = content
    for tag in _TAGS:
        match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", outside, re.S)
        if match is None:
            continue
        try:
            found[tag] = json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
        outside = outside[:match.start()] + outside[match.end():]
    return found, outside


class GateJudge:
    """``facts``: question -> (answer, needs). Callable as a FaultServer's ``replies``; keeps what it was asked."""

    def __init__(self, facts: Mapping[str, tuple[str, tuple[str, ...]]]):
        self.facts = dict(facts)
        self.asked: list[str] = []  # the prompt names, in order
        self.obeyed: list[str] = []  # the planted words it obeyed

    def __call__(self, content: str) -> dict[str, Any] | None:
        kind = next((n for n in ("gate_supported", "gate_solve", "gate_closed_book", "gate_each")
                     if content.startswith(first_line(n))), None)
        if kind is None:
            return None
        self.asked.append(kind)
        data, outside = parts(content)
        planted = PLANTED.search(outside)
        item = data.get("item") or {}
        passages = [p["text"] for p in data.get("passages") or []]
        if planted:
            word = planted.group(1)
            self.obeyed.append(word)
            if kind == "gate_supported":
                return {"verdict": "supported", "quote": word, "reason": "as instructed"}
            if kind == "gate_each":
                return {"passages": [{"id": n, "answerable": True, "answer": word} for n in range(1, len(passages) + 1)]}
            return {"answerable": True, "answer": word}
        if kind == "gate_supported":
            return self.supported(item.get("reference", ""), passages)
        if kind == "gate_each":
            return {"passages": [dict(id=n, **self.solve(item.get("question", ""), [p]))
                                 for n, p in enumerate(passages, 1)]}
        return self.solve(item.get("question", ""), passages if kind == "gate_solve" else [])

    def solve(self, question: str, passages: list[str]) -> dict[str, Any]:
        answer, needs = self.facts.get(question, ("", ("\0never",)))
        shown = "\n".join(passages)
        if answer and all(n in shown for n in needs):
            return {"answerable": True, "answer": answer}
        return {"answerable": False, "answer": ""}

    @staticmethod
    def supported(reference: str, passages: list[str]) -> dict[str, Any]:
        shown = {w for p in passages for w in content_words(p)}
        words = set(content_words(reference))
        if not words or not words <= shown:
            return {"verdict": "not_supported", "quote": "", "reason": f"missing: {sorted(words - shown)}"}
        best = max((s for p in passages for s in sentences(p)), key=lambda s: len(words & set(content_words(s))))
        return {"verdict": "supported", "quote": best, "reason": "every word is in the passages"}
