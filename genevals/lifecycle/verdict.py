"""A run's verdict: whether what the user asked of it held, each gate's finding, and the exit code the command
line exits with (the API's ``Results.verdict`` and the pytest plugin read the same object)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genevals.lifecycle.exits import EXIT_BAD_INPUT, EXIT_JUDGE_ERRORS, EXIT_OK, EXIT_THRESHOLD
from genevals.lifecycle.messages import ERROR, GATE, Message


@dataclass(frozen=True)
class Verdict:
    """What the gates found.

    ``judge_failed``: more than ``max_judge_errors`` of a judge family's samples ended in judge_error or
    parse_error; ``agreement``: the judge's agreement with the required labels
    (:class:`genevals.validation.gate.Agreement`; None when not asked for or not measured); ``unscored``: a line
    for each metric asked for that scored nothing and each system whose every answer (or, retrieval named, every
    ranking) was empty while metrics scored the blanks; ``missed``: a line for each threshold missed (per system);
    ``thresholds``: the thresholds that decided (those on judge-backed outputs are set aside when the judge failed
    its agreement gate, and listed in ``set_aside``); ``baseline``: the comparison with the baseline's code (0 nothing regressed, 1 a gated
    metric regressed, 2 nothing could be compared); ``report``: the page written, if any; ``messages``: every line
    the lifecycle said, in order.
    """

    judge_failed: bool = False
    agreement: Any = None
    unscored: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    thresholds: tuple[Any, ...] = ()
    set_aside: tuple[Any, ...] = ()
    baseline: int = EXIT_OK
    report: Path | None = None
    messages: tuple[Message, ...] = field(default=(), repr=False)

    @property
    def exit_code(self) -> int:
        """3 for a judge that failed (too many failures, or its agreement gate), 2 for a baseline that compared
        nothing, 1 for a missed threshold, a metric asked for that scored nothing or a gated regression, else 0."""
        if self.judge_failed or (self.agreement is not None and not self.agreement.passed):
            return EXIT_JUDGE_ERRORS
        if self.baseline == EXIT_BAD_INPUT:
            return EXIT_BAD_INPUT
        return EXIT_THRESHOLD if self.missed or self.unscored or self.baseline else EXIT_OK

    @property
    def passed(self) -> bool:
        return self.exit_code == EXIT_OK

    def problems(self) -> list[str]:
        """The errors and gate results the lifecycle said, as printed (what ``-q`` still shows)."""
        return [m.text for m in self.messages if m.kind in (ERROR, GATE)]

    def __str__(self) -> str:
        found = "passed" if self.passed else f"failed (exit {self.exit_code})"
        return "\n".join([f"genevals: the run {found}", *self.problems()])
