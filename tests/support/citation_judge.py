"""A simple honest judge for ``prompts/citations.md`` (the fault server's ``replies`` hook): a sentence's parts
are cut at "; ", and a set of passages supports the sentence when each part occurs in one of them (ignoring case)."""
from __future__ import annotations

import re

FIRST_LINE = "You check the citations of an answer"
_SENTENCE = re.compile(r"^S(\d+): (.*) \(cites: ([\d, ]*)\)$", re.MULTILINE)


def _parts(sentence: str) -> list[str]:
    return [p.strip().rstrip(".").lower() for p in sentence.split("; ") if p.strip()]


def citation_judge(content: str) -> object:
    if not content.startswith(FIRST_LINE):
        return None
    block = content.split("Passages:", 1)[1].split("Sentences:")[0]
    passages = {int(i): t.lower() for i, t in re.findall(r"^\[(\d+)\] (.*)$", block, re.MULTILINE)}
    out = []
    for sid, text, cites in _SENTENCE.findall(content.split("Sentences:", 1)[1]):
        cited = [int(c) for c in cites.split(",") if c.strip()]
        parts = _parts(text)

        def supports(ids, parts=parts) -> bool:
            return all(any(p in passages.get(i, "") for i in ids) for p in parts)

        out.append({"id": int(sid), "supported": supports(cited),
                    "cited": [{"passage": c, "alone": supports([c]),
                               "quote": parts[0] if parts[0] in passages.get(c, "") else ""} for c in cited],
                    "supported_by": [i for i in passages if supports([i])], "reason": "verbatim"})
    return {"sentences": out}
