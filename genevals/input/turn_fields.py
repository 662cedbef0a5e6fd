"""A row's conversation fields, checked: ``conversation_id``, ``turn`` and ``history`` (the earlier turns, as
the conversation readers build them or as the row gives them: a list of ``{"role", "content"}`` messages),
trimmed to the run's history budget. :class:`~genevals.input.rows.RowValidator` calls :func:`conversation_fields`
for every row; a row without them gets none.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any, Callable

from genevals.conversations.flat import conversation_id, turn_number
from genevals.conversations.history import History, trimmed
from genevals.conversations.model import TurnError, role
from genevals.input.mapping import is_missing
from genevals.settings.numerals import small_whole


def conversation_fields(data: Mapping[str, Any], decode: Callable[[Any, str], Any], budget: int,
                        err: Callable[[str | None, str], Exception]) -> dict[str, Any]:
    """The :class:`~genevals.types.Sample` keyword arguments of the row's conversation fields (none when it has
    none); ``decode`` reads a CSV cell's JSON, ``err(field, message)`` makes the located error."""
    if "conversation_id" not in data and "turn" not in data and "history" not in data:
        return _NONE  # most rows: no conversation
    out: dict[str, Any] = {}
    try:
        if not is_missing(data.get("conversation_id")):
            out["conversation_id"] = conversation_id(data["conversation_id"])
        if not is_missing(data.get("turn")):
            out["turn"] = turn_number(data["turn"])
        history = data.get("history")
        if isinstance(history, History):  # built by a conversation reader: checked and trimmed there
            out["history"], out["history_dropped"] = history.messages, history.dropped
        elif not is_missing(history) and history != "":
            given = _messages(decode(history, "history"))
            kept = trimmed(given, budget)
            earlier = _dropped(data.get("history_dropped"))
            out["history"], out["history_dropped"] = kept.messages, kept.dropped + earlier
    except TurnError as exc:
        raise err(exc.field, exc.message) from None
    return out


_NONE: dict[str, Any] = {}


def _messages(value: Any) -> list[tuple[str, str]]:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, list):
        raise TurnError("history", f"expected a list of messages {{\"role\": ..., \"content\": ...}}, got "
                                   f"{type(value).__name__}")
    out = []
    for index, item in enumerate(value):
        where = f"history[{index}]"
        if not isinstance(item, Mapping):
            raise TurnError(where, f"expected a message {{\"role\": ..., \"content\": ...}}, got {type(item).__name__}")
        content = item.get("content")
        if not isinstance(content, str):
            raise TurnError(f"{where}.content", f"expected a string, got {type(content).__name__}")
        out.append((role(item.get("role"), f"{where}.role"), content))
    return out


def _dropped(value: Any) -> int:
    if is_missing(value):
        return 0
    if isinstance(value, str) and small_whole(value) is not None:  # a CSV cell
        value = small_whole(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        shown = repr(value[:40]) + ("..." if len(value) > 40 else "") if isinstance(value, str) else repr(value)
        raise TurnError("history_dropped", f"expected a count from 0 (in ASCII digits), got {shown}")
    return int(value)
