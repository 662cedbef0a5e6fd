"""What the lifecycle has to say, as it says it: each line with where it goes and whether ``-q`` hides it.

The lifecycle never prints. It hands each :class:`Message` to the driver's ``emit`` the moment it is made (the
command line prints it, so a slow OTel send does not hold back the lines before it) and keeps them all, in order,
for the :class:`~genevals.lifecycle.verdict.Verdict` (the API's caller reads them there).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: the kinds of line; a note or a warning is a caveat (``-q`` hides it), an error or a gate result never is
NOTE, WARNING, ERROR, GATE, OUT = "note", "warning", "error", "gate", "out"
#: the most characters a note or a warning takes on the terminal, its ``genevals: note:`` prefix included: one
#: line with the fact and what to do; the details are in the report and the docs
MAX_LINE = 200


def first_line(caveat: str) -> str:
    """What the terminal shows of a caveat whose details follow its first line (a judge's or an offline
    variant's note): the first line; summary.json and the report keep the whole text."""
    return caveat.partition("\n")[0]


def headlines(caveat: str) -> list[str]:
    """What the terminal shows of a caveat made of parts apart by a blank line (an offline variant's note, then
    the variant's own card warning): each part's first line."""
    return [first_line(part.strip("\n")) for part in caveat.split("\n\n") if part.strip()]


@dataclass(frozen=True)
class Message:
    """One line: ``kind`` (:data:`NOTE`, :data:`WARNING`, :data:`ERROR`, :data:`GATE` on stderr; :data:`OUT`,
    the run's own output, on stdout) and its ``text`` as printed."""

    kind: str
    text: str

    @property
    def quiet_hides(self) -> bool:
        """Whether ``-q`` (errors and gate results only) leaves this line out."""
        return self.kind in (NOTE, WARNING, OUT)

    @property
    def stream(self) -> str:
        return "stdout" if self.kind == OUT else "stderr"


class Messages:
    """The lines of one run's lifecycle, in the order they were said; ``emit`` gets each as it comes."""

    def __init__(self, emit: Callable[[Message], None] | None = None) -> None:
        self.said: list[Message] = []
        self.emit = emit

    def say(self, kind: str, text: str) -> None:
        message = Message(kind, text)
        self.said.append(message)
        if self.emit is not None:
            self.emit(message)

    def note(self, text: str) -> None:
        self.say(NOTE, text)

    def warning(self, text: str) -> None:
        self.say(WARNING, text)

    def error(self, text: str) -> None:
        self.say(ERROR, text)

    def gate(self, text: str) -> None:
        self.say(GATE, text)

    def out(self, text: str) -> None:
        self.say(OUT, text)
