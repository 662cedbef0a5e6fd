"""A conversation as genevals scores it: messages in order, each assistant message one sample.

Every input form (:mod:`.native`, :mod:`.ragas`, :mod:`.flat`) reads its own shape into :class:`Message` s;
:func:`per_turn` turns them into one row per assistant message: the user message(s) since the previous
assistant message are its question, everything before them its history (:mod:`.history`), and the turn is the
assistant message's number in the conversation, from 1. The rows are then read and checked as any row is, by
:mod:`genevals.input.rows`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from genevals.conversations.history import ROLES, History, Window
from genevals.suggest import did_you_mean

#: the turn-level keys an assistant message may carry, by the name the row reader reads them as
TURN_FIELDS = {"contexts": ("contexts", "retrieval_context", "retrieved_contexts"),
               "references": ("references", "reference", "expected_output"),
               "citations": ("citations",), "relevant": ("relevant",)}


class TurnError(ValueError):
    """A conversation that cannot be read; ``field`` names the turn and key (``turns[2].role``). The input
    reader adds the file and line."""

    def __init__(self, field: str | None, message: str) -> None:
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}" if field else message)


@dataclass(frozen=True)
class Message:
    role: str
    content: str
    #: where the message is in the row (``turns[3]``), for errors about its turn
    where: str
    #: an assistant message's turn-level fields (contexts, references, ...) as given: the row reader checks them
    fields: dict[str, Any] = field(default_factory=dict)


def text(value: Any, where: str) -> str:
    """A message's content: text, or an error naming where it is."""
    if not isinstance(value, str):
        got = "nothing" if value is None else type(value).__name__
        raise TurnError(where, f"expected the message's text (a string), got {got}")
    return value


def role(value: Any, where: str, aliases: dict[str, str] | None = None) -> str:
    """``value`` as one of :data:`~genevals.conversations.history.ROLES` (through ``aliases``)."""
    known = {**{r: r for r in ROLES}, **(aliases or {})}
    if isinstance(value, str) and value.strip().lower() in known:
        return known[value.strip().lower()]
    shown = repr(value) if isinstance(value, str) else "nothing" if value is None else type(value).__name__
    raise TurnError(where, f"expected one of {', '.join(known)}, got {shown}{did_you_mean(str(value), known)}")


def turn_fields(item: Any, where: str, message_role: str) -> dict[str, Any]:
    """The turn-level fields of one message (by the row reader's names); only an assistant message has them."""
    found: dict[str, Any] = {}
    for name, keys in TURN_FIELDS.items():
        for key in keys:
            if key in item and item[key] is not None:
                if message_role != "assistant":
                    raise TurnError(f"{where}.{key}", f"a {message_role} turn has no {name}: they belong to the "
                                                      "assistant turn that used them")
                found.setdefault(name, item[key])
    return found


def per_turn(conversation_id: str, messages: list[Message], budget: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, row) per assistant message: the row holds ``id`` (``CONVERSATION:TURN``), ``conversation_id``,
    ``turn``, ``question``, ``answer``, ``history`` (a :class:`History`) and the message's own fields."""
    window = Window(budget)
    asked: list[str] = []  # the user's messages since the last answer: the next answer's question
    turn = 0
    for message in messages:
        if message.role == "user":
            asked.append(message.content)
        elif message.role == "system":
            window.add("system", message.content)
        else:
            turn += 1
            history: History = window.history()
            yield message.where, {"id": f"{conversation_id}:{turn}", "conversation_id": conversation_id,
                                  "turn": turn, "question": "\n".join(asked), "answer": message.content,
                                  "history": history, **message.fields}
            for content in asked:
                window.add("user", content)
            window.add("assistant", message.content)
            asked = []
