"""A run's samples and claims as the review sees them: texts, claim spans, the judge's labels and digests.

Decisions are checked against these when they are made (the claim must exist, a marked span must lie in the
answer) and when they are read back: a decision whose digest no longer matches the claim's text (the run was
scored again and the claim changed) is stale, never applied to the new claim.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genevals.output import runfolder
from genevals.report.clean import CLAIMS_METRIC, claims_of, page_contexts, text, whole
from genevals.review.citations import ReviewSentence, sentences_of
from genevals.types import FROM_HISTORY, SUPPORTED, UNVERIFIABLE


def digest(claim_text: str) -> str:
    """The SHA-256 (hex) of a claim's or marked text, as UTF-8."""
    return hashlib.sha256(claim_text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ReviewClaim:
    index: int
    text: str
    #: code point offsets into the answer, only those inside it
    spans: tuple[tuple[int, int], ...]
    #: the judge's label (the first verdict for the claim; none is unverifiable)
    label: str

    @property
    def flagged(self) -> bool:
        # from_history repeats the user (a conversation's turn): not supported by the contexts, yet no hallucination
        return self.label not in (SUPPORTED, FROM_HISTORY)


@dataclass(frozen=True)
class ReviewSample:
    system: str
    id: str
    line: int
    question: str
    answer: str
    contexts: tuple[str, ...]
    claims: tuple[ReviewClaim, ...] = field(default=())
    #: the answer's sentences with their checked citations (:mod:`genevals.review.citations`)
    sentences: tuple[ReviewSentence, ...] = field(default=())
    #: a conversation's turn: its conversation, its number, the earlier turns it was judged with ((role,
    #: content), oldest first) and how many the history budget left out; None, None, (), 0 for a single answer
    conversation_id: str | None = None
    turn: int | None = None
    history: tuple[tuple[str, str], ...] = ()
    history_dropped: int = 0

    def claim(self, index: Any) -> ReviewClaim | None:
        if isinstance(index, bool) or not isinstance(index, int):
            return None
        return next((c for c in self.claims if c.index == index), None)


def _claims(row: Mapping[str, Any], answer: str) -> tuple[ReviewClaim, ...]:
    metrics = row.get("metrics")
    metric = metrics.get(CLAIMS_METRIC) if isinstance(metrics, Mapping) else None
    details = metric.get("details") if isinstance(metric, Mapping) else None
    parsed = claims_of(details) if isinstance(details, Mapping) else None
    if parsed is None:
        return ()
    claims, verdicts = parsed
    labels: dict[int, str] = {}
    for verdict in verdicts:
        labels.setdefault(verdict.claim_index, verdict.label)
    return tuple(ReviewClaim(c.index, c.text, tuple(s for s in c.spans if 0 <= s[0] < s[1] <= len(answer)),
                             labels.get(c.index, UNVERIFIABLE)) for c in claims)


def load_samples(run_dir: str | Path) -> dict[tuple[str, str], ReviewSample]:
    """(system, sample id) -> the sample, for every row of the run's results.jsonl (the first row wins when an id
    repeats within a system)."""
    out: dict[tuple[str, str], ReviewSample] = {}
    for number, row in runfolder.iter_rows(run_dir):
        key = (text(row.get("system", "default")), text(row.get("id")))
        if key in out:
            continue
        answer = text(row.get("answer"))
        contexts = tuple(c["text"] for c in page_contexts(row.get("contexts")))
        out[key] = ReviewSample(system=key[0], id=key[1], line=number, question=text(row.get("question")),
                                answer=answer, contexts=contexts, claims=_claims(row, answer),
                                sentences=sentences_of(row.get("metrics"), len(contexts)), **turn_of(row))
    return out


def turn_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """A results row's conversation fields, as :class:`ReviewSample` holds them (hostile input: a malformed
    field is left out)."""
    conversation, history, dropped = row.get("conversation_id"), row.get("history"), whole(row.get("history_dropped"))
    return {"conversation_id": None if conversation is None else text(conversation), "turn": whole(row.get("turn")),
            "history": tuple((m["role"], text(m.get("content"))) for m in (history if isinstance(history, list) else ())
                             if isinstance(m, Mapping) and m.get("role") in ("user", "assistant", "system")),
            "history_dropped": dropped if dropped and dropped > 0 else 0}


def utf16_to_code_points(content: str) -> Callable[[int], int | None]:
    """A function mapping JavaScript (UTF-16) offsets in ``content`` to Python offsets (None: inside a pair)."""
    table: dict[int, int] = {}
    position = 0
    for i, ch in enumerate(content):
        table[position] = i
        position += 2 if ord(ch) >= 0x10000 else 1
    table[position] = len(content)
    return table.get
