"""A conversation's results line (:mod:`genevals.output.runfolder`): the earlier messages its turns carry as
history are written once, in ``messages``, and each turn's ``history`` is the slice of them it saw,
``{"from": I, "to": J}``. A turn's history window is a run of the conversation's messages, so a line grows with the
conversation, not with the conversation times its history budget (a 10,000-turn conversation wrote each window
again per turn: 188 MB in one line, 1.4 GB to write it). The readers give each turn its ``history`` as the list of
messages again (:func:`with_histories`), sharing the message objects between turns.
"""
from __future__ import annotations

from typing import Any, Sequence

from genevals.types import SampleResult

#: the key of a conversation line's messages, which its turns' histories are slices of
MESSAGES = "messages"


class _Messages:
    """A conversation line's message table, built turn by turn: each history is found as a run of it, starting
    where the previous one started or later (a window only drops its oldest messages and adds new ones), and
    what the table lacks is appended. Exact for any history (one that matches nothing is appended whole); total
    work linear in the histories' lengths plus the table's."""

    def __init__(self) -> None:
        self.table: list[tuple[str, str]] = []
        self.start = 0

    def span(self, history: Sequence[tuple[str, str]]) -> dict[str, int]:
        table, start = self.table, self.start
        while True:
            overlap = min(len(history), len(table) - start)
            if all(table[start + i] == history[i] for i in range(overlap)):
                break
            start += 1
        table.extend(history[overlap:])
        self.start = start
        return {"from": start, "to": start + len(history)}

    def to_list(self) -> list[dict[str, str]]:
        return [{"role": role, "content": content} for role, content in self.table]


def conversation_line(unit: Sequence[SampleResult], turns_key: str) -> dict[str, Any]:
    """A conversation's results line: its turns in turn order, their histories as slices of ``messages``."""
    first = unit[0].sample
    messages = _Messages()
    turns = []
    for result in sorted(unit, key=lambda t: t.sample.turn or 0):
        record = result.to_dict()
        if result.sample.history:
            record["history"] = messages.span(result.sample.history)
        turns.append(record)
    line: dict[str, Any] = {"conversation_id": first.conversation_id, "system": first.system}
    if messages.table:
        line[MESSAGES] = messages.to_list()
    line[turns_key] = turns
    return line


def with_histories(row: dict[str, Any], turns: list[dict[str, Any]]) -> str | None:
    """Each of ``turns``' ``history`` slices of ``row``'s messages made the list of those messages (a line of the
    format before the message table holds the lists already); what is wrong with the line, or None."""
    messages = row.get(MESSAGES, [])
    if not isinstance(messages, list):
        return f"whose {MESSAGES!r} is not a list of messages"
    for turn in turns:
        span = turn.get("history")
        if isinstance(span, dict):
            start, end = span.get("from"), span.get("to")
            if not (type(start) is int and type(end) is int and 0 <= start <= end <= len(messages)):
                return f"whose turn {turn.get('turn')!r} has a history outside its {MESSAGES!r}"
            turn["history"] = messages[start:end]
    return None
