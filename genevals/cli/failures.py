"""Judge failures, said out loud: the judge's model and preflight before scoring, the reasons with counts
after it (as the run's recorder counted them: :mod:`genevals.engine.failures`), and the share of judge failures
that decides exit code 3 (``--max-judge-errors``).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from genevals.engine.failures import JudgeFailures
from genevals.output.terminal import say


def from_statuses(family: str, outcomes: Iterable[tuple[str, str | None]]) -> JudgeFailures:
    """The judge failures of (status, reason) pairs, one per sample of one family (``genevals validate``)."""
    found = JudgeFailures()
    for status, reason in outcomes:
        found.add(family, status, reason)
    return found


def report(found: JudgeFailures, limit: float) -> bool:
    """Print the reasons to stderr; True when the share of judge failures is above ``limit`` (then say so)."""
    from genevals.lifecycle.course import judge_failures
    from genevals.lifecycle.messages import Messages

    return judge_failures(found, limit, Messages(lambda message: say(message.text)))


class JudgeProblem(Exception):
    """The judge of a run about to start cannot work (no model named or listed, a failed preflight): exit 2."""


def judge_settler(*, check: bool, eager: bool) -> Callable[[Any], Any]:
    """What settles the judge of a run about to start, once its metrics are known to include one judged by an
    LLM (not when faithfulness falls back to the local checker): ``settle(config) -> config``, raising
    :class:`JudgeProblem`. Handed to :meth:`~genevals.engine.spec.RunSpec.build`, which builds the metrics once,
    with the settled judge.

    The model is named (:mod:`genevals.judge.models`: without --judge-model, the one the server lists). With
    ``check``, the preflight (:mod:`genevals.judge.preflight`) runs now when ``eager`` (every sample will call
    the judge: no cache, nothing resumed; or on Ray, whose actors cannot stop the run), else before the first
    call the cache cannot answer, so a re-run answered from the cache sends nothing."""

    def settle(judge: Any) -> Any:
        from genevals.judge.config import JudgeConfig
        from genevals.judge.models import JudgeModelError, with_model
        from genevals.judge.preflight import preflight

        judge = judge if judge is not None else JudgeConfig()
        try:
            judge = with_model(judge)
        except (JudgeModelError, ValueError) as exc:  # ValueError: a backend plugin that does not load
            raise JudgeProblem(str(exc)) from None
        if check and eager:
            problem = preflight(judge)
            if problem is not None:
                raise JudgeProblem(problem)
            return judge
        return judge.with_options(preflight=check)

    return settle
