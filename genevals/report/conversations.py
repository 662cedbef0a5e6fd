"""The conversation view's data: which of the page's samples are turns of which conversation, in turn order,
and what was said before each turn that no earlier turn of the page shows.

A conversation's turns are results rows like any other (one per assistant turn, id ``CONVERSATION:TURN``), each
with its ``conversation_id``, ``turn`` and bounded ``history``. The transcript is put together from the turns
themselves (each turn's question and answer); of a turn's history only its **tail** is embedded: the messages
after the last assistant message in it (a system message, or user messages the turn's question does not hold),
so a conversation of n turns costs its texts once, not n times. Every field is read as hostile input
(:mod:`genevals.report.clean`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Sequence

from genevals.report.clean import text, whole

ROLES = ("user", "assistant", "system")
#: the conversation metric whose failures the view filters on (a conversation's value sits on its last turn)
RETENTION = "knowledge_retention"
#: characters of one history message the page shows (a pasted document in a system prompt stays readable)
MESSAGE_CHARS = 4000


def turn_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """A results row's conversation fields for the page (``cv``: conversation id, ``tn``: turn, ``pre``: the
    history's tail as ``[role, content]``, left out when empty, ``hd``: turns the history budget dropped); {} for a row that is no
    conversation's turn."""
    conversation, turn = row.get("conversation_id"), whole(row.get("turn"))
    if conversation is None or turn is None:
        return {}
    messages = []
    for m in row.get("history") if isinstance(row.get("history"), list) else []:
        if isinstance(m, Mapping) and m.get("role") in ROLES:
            messages.append([m["role"], text(m.get("content"))[:MESSAGE_CHARS]])
    last = max((i for i, m in enumerate(messages) if m[0] == "assistant"), default=-1)
    out: dict[str, Any] = {"cv": text(conversation), "tn": turn}
    if messages[last + 1:]:
        out["pre"] = messages[last + 1:]
    dropped = whole(row.get("history_dropped"))
    if dropped is not None and dropped > 0:
        out["hd"] = dropped
    failures = retention_failures(row)
    if failures:
        out["kr"] = failures
    return out


def retention_failures(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The assistant turns ``knowledge_retention`` counted as contradicting or ignoring what the user said (its
    details' ``failures``: ``turn``, ``quote``, ``fact``, ``fact_turn``, ``kind``, ``counted``), as ``{"turn",
    "text"}``; a failure the metric did not count (its quote not found, or no earlier fact) is left out."""
    metrics = row.get("metrics")
    metric = metrics.get(RETENTION) if isinstance(metrics, Mapping) else None
    details = metric.get("details") if isinstance(metric, Mapping) else None
    failures = details.get("failures") if isinstance(details, Mapping) else None
    out = []
    for item in failures if isinstance(failures, list) else ():
        if not isinstance(item, Mapping) or whole(item.get("turn")) is None or item.get("counted") is False:
            continue
        fact_turn = whole(item.get("fact_turn"))
        said = " ".join(part for part in (
            text(item.get("kind")) + ":" if item.get("kind") else "",
            f"\u201c{text(item.get('quote'))}\u201d" if item.get("quote") else "",
            f"against the user's \u201c{text(item.get('fact'))}\u201d" if item.get("fact") else "",
            f"(turn {fact_turn})" if fact_turn is not None else "") if part)
        out.append({"turn": item["turn"], "text": said[:MESSAGE_CHARS]})
    return out


def attach_turns(samples: Sequence[dict[str, Any]], embedded: Sequence[int], turns: Mapping[int, Mapping[str, Any]],
                 texts: Mapping[int, Any]) -> None:
    """Add each embedded turn's fields (:func:`turn_fields` of its row, ``turns[k]``) to its page sample
    (``samples[i]`` is sample ``embedded[i]``); a sample embedded without its texts gets no history texts."""
    for sample, k in zip(samples, embedded):
        if k in turns:
            sample.update({key: v for key, v in turns[k].items() if k in texts or key not in ("pre", "hd")})


def page_conversations(samples: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each (system, conversation) the page's samples hold turns of: ``{"id", "sys", "turns": [sample index,
    ...]}`` in turn order, conversations in the order their first turn is listed; [] for a run without
    conversations (the page then draws no conversation view)."""
    found: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for i, sample in enumerate(samples):
        if "cv" in sample:
            found.setdefault((sample["sys"], sample["cv"]), []).append((sample["tn"], i))
    return [{"id": conversation, "sys": system, "turns": [i for _, i in sorted(turns)]}
            for (system, conversation), turns in found.items()]
