"""A run's course, the same on every engine: start it (the run folder prepared, the recorder opened, a resumed
folder's results counted), score its blocks, finish it (the summary of what was written, also when interrupted),
and, when it fails before writing any result, put the folder back as it was.

An engine supplies only how blocks are scored, as a :class:`Scoring`: the local strategies
(:mod:`genevals.engine.local`), Ray's passes (:mod:`genevals.engine.ray`), the columnar TREC parts
(:mod:`genevals.engine.trec_columnar`). Written once, the rules of a run's end cannot drift apart between them: a
Ctrl-C still writes the summary of the lines written, any other error withdraws a run that wrote nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from genevals.engine.plan import Plan, start_run
from genevals.engine.recorder import RunRecorder
from genevals.gcpause import collector_paused
from genevals.output.comparing import PairedValues
from genevals.output.results import Results
from genevals.types import Sample

#: ``progress(done, total)``: samples finished since the last call, and the samples the run has to score
Progress = Callable[[int, int], None]


@dataclass
class Course:
    """What a scoring writes with: the run's spec and plan, its recorder, the units still to score (in input
    order, each a sample alone or a conversation's turns: :mod:`genevals.engine.units`) and how many samples they
    hold, and the progress callback."""

    spec: Any  # the RunSpec
    plan: Plan
    recorder: RunRecorder
    todo: Iterable[list[Sample]]
    left: int
    progress: Progress | None

    def done(self, n: int) -> None:
        """Tell the progress callback that ``n`` more samples are scored."""
        if self.progress is not None:
            self.progress(n, self.left)


class Scoring:
    """How an engine scores a run's blocks: :meth:`write` scores ``course.todo`` and hands each block to
    ``course.recorder`` with its units' sizes; the hooks around it have defaults."""

    def write(self, course: Course) -> None:
        raise NotImplementedError

    def pauses_collector(self, spec: Any) -> bool:
        """Whether Python's cyclic garbage collector waits while this scoring runs (:mod:`genevals.gcpause`)."""
        return False

    #: the compared metrics' values, from a scoring that still holds them (else read back by the recorder)
    paired: Callable[[Sequence[str]], PairedValues] | None = None

    def finished(self, results: Results, interrupted: bool) -> None:
        """After the summary is written: what the scoring adds to the Results."""


def run_course(plan: Plan, choose: Callable[[Plan, int], Scoring], progress: Progress | None = None) -> Results:
    """Run ``plan`` through its course with the scoring ``choose(plan, samples resumed)`` returns, and return its
    Results; the plan is closed at the end, whatever happens."""
    try:
        recorder, todo, n_done = start_run(plan)
        scoring = choose(plan, n_done)
        course = Course(plan.spec, plan, recorder, todo, plan.n_good - n_done, progress)
        interrupted = withdrawn = False
        try:
            with collector_paused(scoring.pauses_collector(plan.spec)):
                scoring.write(course)
        except KeyboardInterrupt:
            interrupted = True
            raise
        except BaseException:  # the judge unavailable at its first call, say: with nothing scored, the folder as it was
            withdrawn = recorder.withdraw()
            raise
        finally:
            if not withdrawn:
                results = recorder.finish(n_input_rows=plan.n_rows, interrupted=interrupted, paired=scoring.paired)
                scoring.finished(results, interrupted)
    finally:
        plan.close()
    return results
