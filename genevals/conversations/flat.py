"""Flat rows: one row per exchange (the user's question and the assistant's answer, with any mapped columns),
tied into conversations by ``conversation_id`` and ordered by ``turn``.

Rows are read as they come: each conversation keeps only its history window (:class:`~.history.Window`), so a
log of a million exchanges is never held whole. That needs a conversation's rows in turn order (they may be
interleaved with other conversations' rows); a turn that comes after a later one is refused, naming both lines.
"""
from __future__ import annotations

import numbers
from typing import Any

from genevals.conversations.history import History, Window
from genevals.conversations.model import TurnError
from genevals.settings.numerals import small_whole

#: the most digits a turn number may have (ids are built from it)
MAX_TURN = 10**9
#: the most digits of an integer conversation id (a longer one is a number gone wrong, not an id)
MAX_ID_DIGITS = 100


def conversation_id(value: Any, field: str = "conversation_id") -> str:
    """A conversation id: text, or an integer written as text."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if abs(int(value)) < 10**MAX_ID_DIGITS:
            return str(int(value))
        raise TurnError(field, f"expected a conversation id of at most {MAX_ID_DIGITS} digits (or text), got an "
                               f"integer of {len(str(abs(int(value))))} digits")
    shown = repr(value) if isinstance(value, str) else type(value).__name__
    raise TurnError(field, f"expected a conversation id (text or an integer), got {shown}")


def turn_number(value: Any, field: str = "turn") -> int:
    """A turn number: an integer from 0 (a CSV cell's text too)."""
    if isinstance(value, str) and small_whole(value) is not None:
        value = small_whole(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)  # pandas reads an integer column with gaps as floats
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        shown = repr(value[:40]) + ("..." if len(value) > 40 else "") if isinstance(value, str) else type(value).__name__
        raise TurnError(field, f"expected a turn number (an integer from 0, in ASCII digits), got {shown}")
    if not 0 <= int(value) <= MAX_TURN:
        raise TurnError(field, f"expected a turn number from 0 to {MAX_TURN:,}, got {int(value)}")
    return int(value)


class Grouper:
    """The history of each flat row, from the rows of its conversation read before it."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        #: (system, conversation id) -> (window, last turn, its "file:line")
        self.open: dict[tuple[str, str], tuple[Window, int, str]] = {}

    def history(self, system: str, conversation: str, turn: int, question: str, answer: str,
                origin: str, turn_field: str = "turn") -> History:
        """The history before this exchange; then the exchange joins its conversation's window."""
        key = (system, conversation)
        window, last, last_origin = self.open.get(key) or (Window(self.budget), -1, "")
        if turn <= last:
            same = "repeats" if turn == last else "comes after"
            raise TurnError(turn_field, f"turn {turn} of conversation '{conversation}' {same} turn {last} "
                                        f"(at {last_origin}); a conversation's rows must be in turn order")
        history = window.history()
        if question:
            window.add("user", question)
        window.add("assistant", answer)
        self.open[key] = (window, turn, origin)
        return history
