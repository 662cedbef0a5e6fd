"""A simple honest judge for the RAG judges' prompts (answer/context relevance, context recall, answer
correctness, pairwise), for the fault server's ``replies`` hook and the ScriptedProvider: sentences are facts,
a fact is "in" a text when it occurs there verbatim, a passage is relevant when it shares a word of five or
more letters with the question, and the longer answer wins a pairwise comparison.
"""
from __future__ import annotations

import re

FAMILIES = ["answer_relevance", "context_relevance", "context_recall", "answer_correctness"]
FIRST_LINES = {f: open_line for f, open_line in (
    ("answer_relevance", "You judge whether an answer addresses"), ("context_relevance", "You judge which retrieved"),
    ("context_recall", "You check which facts of a reference"), ("answer_correctness", "You compare an answer with"),
    ("pairwise", "You compare two answers"))}
_SENT = re.compile(r"(?<=[.!?])\s+")


def prompt_kind(content: str) -> str | None:
    return next((f for f, line in FIRST_LINES.items() if content.startswith(line)), None)


def block(content: str, start: str, end: str) -> str:
    return content.split(start, 1)[1].split(end, 1)[0]


def honest_judge(content: str) -> object:
    """Replies of a simple honest judge: sentences are facts, a fact is 'in' a text when it occurs verbatim."""
    kind = prompt_kind(content)
    if kind is None:
        return None
    passages = re.findall(r"\[(\d+)\] (.*)", content.split("Passages:", 1)[1]) if "Passages:" in content else []
    if kind == "pairwise":  # the longer answer wins, whatever the order
        a, b = block(content, 'Answer A: """', '"""'), block(content, 'Answer B: """', '"""')
        return {"reason": "longer", "winner": "A" if len(a) > len(b) else "B" if len(b) > len(a) else "tie"}
    if kind == "answer_relevance":
        return {"parts": [{"part": "the question", "answered": True}], "off_topic": [], "reason": "on topic"}
    if kind == "context_relevance":
        words = {w for w in re.findall(r"[a-z]+", block(content, "Question: ", "\n").lower()) if len(w) > 4}
        return {"passages": [{"id": int(i), "verdict": "relevant" if words & set(re.findall(r"[a-z]+", text.lower()))
                              else "not_relevant", "sentence": "", "reason": "word match"} for i, text in passages]}
    if kind == "context_recall":
        reference = block(content, 'Reference answer: """', '"""')
        claims = []
        for s in _SENT.split(reference.strip()):
            found = next((int(i) for i, text in passages if s.rstrip(".") in text), 0)
            claims.append({"claim": s, "source": s, "passage": found, "reason": "verbatim"})
        return {"claims": claims}
    reference, answer = block(content, 'Reference answer: """', '"""'), block(content, 'Answer: """', '"""')
    return {"answer_claims": [{"claim": s, "source": s, "in_reference": s in reference}
                              for s in _SENT.split(answer.strip())],
            "reference_claims": [{"claim": s, "source": s, "in_answer": s in answer}
                                 for s in _SENT.split(reference.strip())]}


def scripted_reply(messages) -> object:
    """``honest_judge`` for a :class:`~genevals.judge.backends.scripted.ScriptedProvider` script."""
    return honest_judge(messages[0]["content"])
