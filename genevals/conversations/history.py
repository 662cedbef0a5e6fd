"""The earlier turns a per-turn sample carries, bounded by a token budget: the oldest turns are dropped first,
whole, and the sample says how many were dropped.

Tokens are counted as words and punctuation marks (``\\w+|[^\\w\\s]``): no tokenizer ships offline, and the budget
only has to keep prompts bounded, not match one model's count exactly.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from genevals.settings import Setting

ROLES = ("user", "assistant", "system")
#: the most a history budget may be: a million tokens is past any judge's context window (the largest are about
#: 1M), so a larger budget can only be a typo (an extra digit, a pasted id) that would silently mean "unbounded"
MAX_HISTORY_TOKENS = 1_000_000
#: the run's history budget; 0 keeps no history at all
HISTORY_TOKENS = Setting("history_tokens", int, 2000,
                         "tokens of earlier turns a conversation turn's judges see (oldest turns dropped first; "
                         "at most 1,000,000, past any judge's context window)", minimum=0,
                         maximum=MAX_HISTORY_TOKENS)
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> int:
    """The words and punctuation marks of ``text``."""
    return sum(1 for _ in _TOKEN.finditer(text))


@dataclass(frozen=True)
class History:
    """Earlier turns as (role, content) pairs, oldest first, already within the budget; ``dropped`` turns that
    did not fit were left out before them. Built only by :class:`Window`: a row's own ``history`` field is
    checked by the input reader and trimmed by :func:`trimmed`."""

    messages: tuple[tuple[str, str], ...] = ()
    dropped: int = 0


class Window:
    """A conversation's turns so far, kept within ``budget`` tokens as turns are added (so a long conversation
    read row by row holds at most the budget, not every turn)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        #: ((role, content), tokens): each message's pair made once, so every turn's history shares it
        self.kept: deque[tuple[tuple[str, str], int]] = deque()
        self.size = 0
        self.dropped = 0

    def add(self, role: str, content: str) -> None:
        """Keep a message (dropping the oldest past the budget); one of whitespace only has no token, says
        nothing to a judge and is not kept (kept, it cost no budget and was never dropped: 100,000 blank turns
        made every later turn carry them all)."""
        n = tokens(content)
        if not n:
            return
        self.kept.append(((role, content), n))
        self.size += n
        while self.kept and self.size > self.budget:
            self.size -= self.kept.popleft()[1]
            self.dropped += 1

    def history(self) -> History:
        return History(tuple(pair for pair, _ in self.kept), self.dropped)


def trimmed(messages: list[tuple[str, str]], budget: int) -> History:
    """``messages`` (oldest first) within ``budget`` tokens."""
    window = Window(budget)
    for role, content in messages:
        window.add(role, content)
    return window.history()
