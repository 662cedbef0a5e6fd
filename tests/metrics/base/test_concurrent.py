"""The judge metrics' sliding window (``ConcurrentMetric.score_stream``) stops the run on a judge that cannot
answer, and retrieves every failure: two samples that meet it at once printed a "Task exception was never
retrieved" traceback for the second, after the run's clear error."""
import asyncio
import gc
import logging

from genevals.judge.preflight import JudgeUnavailable
from genevals.metrics.base import ConcurrentMetric
from genevals.types import Sample


class _Down(ConcurrentMetric):
    """Every sample meets a judge that cannot answer, as the lazy preflight raises it."""

    family = "down"

    def signature(self) -> str:
        return "down"

    async def _score_safe(self, sample):
        await asyncio.sleep(0)
        raise JudgeUnavailable("the judge did not answer a test request")


def test_a_judge_that_cannot_answer_stops_the_window_and_every_failure_is_retrieved(caplog):
    samples = [Sample(id=str(i), answer="a") for i in range(4)]
    emitted = []

    def stopped() -> str:
        try:
            _Down().score_stream(samples, lambda index, got: emitted.append(index), window=4)
        except JudgeUnavailable as exc:
            return str(exc)  # not the exception: its traceback would keep the finished tasks alive
        return "not stopped"

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        assert stopped() == "the judge did not answer a test request"
        gc.collect()  # an unretrieved task exception is logged when the task is collected
    assert emitted == []
    assert "never retrieved" not in caplog.text
