"""Where a conversation metric's one value per conversation goes, and the transcript it is judged on.

Samples are a conversation's assistant turns, but a conversation metric has one value per conversation. It is
put on the conversation's **last** assistant turn, whose sample carries the whole conversation: its history
(the earlier turns, within the run's ``history_tokens`` budget) and its own question and answer. Every other
turn gets status ``not_last_turn`` with a reason naming the turn that carries the value, so the metric's mean
and coverage count conversations, not turns. Which turn is a conversation's last, the run's planning pass has
counted once for the engine and every conversation metric (:class:`~genevals.conversations.ledger.Ledger`, handed
over by :meth:`ConversationScope.see_conversations`); it counts resumed samples too, so a resumed run places its
values as an uninterrupted one.

A row that is no conversation's turn but carries its own ``history`` is a conversation of its own, scored on
itself; a row with neither gets ``not_conversation``. When the budget left early turns out, the value covers
the turns the judge saw, and the details say which were left out (``history_dropped``, ``turns_seen``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from genevals import types
from genevals.conversations.ledger import Ledger
from genevals.metrics.base import Unscored
from genevals.types import Sample

NOT_LAST_TURN = types.NOT_LAST_TURN
NOT_CONVERSATION = "not_conversation"
#: an offline variant's status: the metric needs an LLM judge
UNSUPPORTED = "unsupported"
#: what a turn whose user message the history budget left out shows in the transcript
LEFT_OUT = "(left out by the history budget)"


@dataclass(frozen=True)
class Turn:
    """One exchange: the user's message(s) and the assistant's answer, with the turn's number."""

    number: int
    user: str
    assistant: str


@dataclass(frozen=True)
class Transcript:
    """What a conversation metric judges: system messages, then the exchanges oldest first."""

    system: tuple[str, ...]
    turns: tuple[Turn, ...]
    #: earlier turns the history budget left out (the judge does not see them)
    dropped: int = 0
    #: whether the turn numbers are the conversation's own (False: positions in what the judge sees)
    numbered: bool = True

    def render(self) -> str:
        lines = [f"System: {text}" for text in self.system]
        if self.dropped:
            lines.append(f"({self.dropped} earlier message(s) left out: the history budget keeps the latest)")
        for turn in self.turns:
            lines.append(f"User (turn {turn.number}): {turn.user}")
            lines.append(f"Assistant (turn {turn.number}): {turn.assistant}")
        return "\n".join(lines)

    def turn(self, number: Any) -> Turn | None:
        return next((t for t in self.turns if isinstance(number, int) and t.number == number), None)

    def details(self) -> dict[str, Any]:
        return {"turns_seen": [t.number for t in self.turns], "history_dropped": self.dropped,
                "turn_numbers": "conversation" if self.numbered else "position in the transcript"}


def transcript(sample: Sample, consecutive: bool) -> Transcript:
    """The conversation up to and including ``sample``'s turn, from its history. The history's assistant
    messages are the turns just before it (the budget drops the oldest messages, whole), so with ``consecutive``
    turn numbers they are numbered back from the sample's turn; otherwise by position."""
    system: list[str] = []
    pairs: list[tuple[str, str]] = []
    asked: list[str] = []
    for role, content in sample.history:
        if role == "system":
            system.append(content)
        elif role == "user":
            asked.append(content)
        else:
            # no user message before an answer: the budget cut it, or (a flat row without a question) none was
            pairs.append(("\n".join(asked) if asked else LEFT_OUT if not pairs and sample.history_dropped
                          else "(none)", content))
            asked = []
    pairs.append(("\n".join(asked + [sample.question]).strip() or "(none)", sample.answer))
    last = sample.turn
    numbered = consecutive and isinstance(last, int) and last - len(pairs) + 1 >= 0
    first = last - len(pairs) + 1 if numbered else 1  # type: ignore[operator]
    turns = tuple(Turn(first + i, user, answer) for i, (user, answer) in enumerate(pairs))
    return Transcript(tuple(system), turns, sample.history_dropped, numbered)


class ConversationScope:
    """Mixin: each conversation's last assistant turn, from the run's ledger, and the check that a sample is the
    one that carries its conversation's value."""

    #: the run's conversations (:meth:`see_conversations`); None: scored outside a run, each turn as the last
    conversations: Ledger | None = None

    def see_conversations(self, conversations: Ledger) -> None:
        """Take the run's conversations, counted by its planning pass before scoring starts."""
        self.conversations = conversations

    def prepare(self, samples: Iterable[Sample]) -> None:
        """Outside a run: learn the conversations of ``samples`` (:meth:`Metric.prepare`), as a run's planning
        pass counts them."""
        self.see_conversations(Ledger.of(samples))

    def scope(self, sample: Sample) -> tuple[Transcript, dict[str, Any]]:
        """The transcript to judge and the details that say what it covers; :class:`Unscored` for a sample that
        does not carry its conversation's value."""
        family = getattr(self, "family", "this metric")
        if sample.conversation_id is None:
            if not sample.history:
                raise Unscored(NOT_CONVERSATION, f"{family} scores conversations; this sample is no "
                               "conversation's turn (no conversation_id, no history)")
            found = transcript(sample, False)
            return found, {**found.details(), "scope": "the row and its own history"}
        last = self.conversations.last_turn(sample) if self.conversations is not None else None
        if last is not None and sample.turn != last[0]:
            raise Unscored(NOT_LAST_TURN, f"{family} has one value per conversation, on its last assistant turn: "
                           f"conversation '{sample.conversation_id}' has it on turn {last[0]} (this is turn "
                           f"{sample.turn})", carried_by=f"{sample.conversation_id}:{last[0]}")
        found = transcript(sample, last[1] if last is not None else True)
        scope = ("the whole conversation" if last is not None else
                 "the conversation up to this turn (scored outside a run: which turn is the last was not known)")
        if found.dropped:
            scope += f", less its {found.dropped} oldest message(s) that the history budget left out"
        return found, {**found.details(), "scope": scope}
