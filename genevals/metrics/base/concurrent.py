"""Scoring for the judge-backed metrics: each sample in its own coroutine, a whole batch or a sliding window at
once, run from synchronous code; and the judge's token usage as corpus statistics."""
from __future__ import annotations

import abc
from typing import Any, Callable, Iterable, Iterator, Sequence

from genevals.metrics.base.declarations import JUDGE
from genevals.metrics.base.metric import Emit, Metric
from genevals.types import MetricResult, Sample


class ConcurrentMetric(Metric):
    """A metric that scores each sample in its own coroutine, a whole batch at once (the LLM judges: their
    client's semaphore, not the batch, bounds the requests in flight)."""

    kind = JUDGE

    @abc.abstractmethod
    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        """One sample's outputs; never raises for the sample's sake (failures become unscored results)."""

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return self._collect(samples)

    def score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        run_sync(lambda: self._score_each(samples, emit))

    def score_stream(self, samples: Iterable[Sample], emit: Emit, window: int) -> None:
        """A sliding window: up to ``window`` samples in flight, and the next one starts the moment one finishes
        (its outputs emitted first), so no sample waits for the slowest of a batch."""
        run_sync(lambda: self._score_stream(iter(samples), emit, max(1, window)))

    async def _score_stream(self, samples: Iterator[Sample], emit: Emit, window: int) -> None:
        import asyncio

        async def one(index: int, sample: Sample) -> tuple[int, dict[str, MetricResult]]:
            return index, await self._score_safe(sample)

        in_flight: set[asyncio.Task] = set()
        index = 0
        try:
            while True:
                for sample in samples:  # taking a sample may score the cheap metrics of its chunk first
                    in_flight.add(asyncio.ensure_future(one(index, sample)))
                    index += 1
                    if len(in_flight) >= window:
                        break
                if not in_flight:
                    return
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                # Every failure is retrieved, not only the first: when several samples meet a judge that cannot
                # answer (JudgeUnavailable) at once, asyncio would log each other one with a traceback.
                failed = [exc for exc in (task.exception() for task in done) if exc is not None]
                if failed:
                    raise failed[0]
                for task in sorted(done, key=lambda t: t.result()[0]):
                    emit(*task.result())
        finally:
            for task in in_flight:
                task.cancel()

    async def _score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        import asyncio

        async def one(index: int, sample: Sample) -> None:
            emit(index, await self._score_safe(sample))

        await asyncio.gather(*(one(index, sample) for index, sample in enumerate(samples)))


def usage_statistics(result: MetricResult | None, prefix: str) -> dict[str, float] | None:
    """The numeric entries of a judge result's ``details["usage"]``, keys prefixed, for summing."""
    if result is None:
        return None
    usage = (result.details or {}).get("usage") or {}
    return {prefix + key: value for key, value in usage.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}


def run_sync(coro_factory: Callable[[], Any]) -> Any:
    """Run ``coro_factory()`` to completion from synchronous code, also when a loop is already running."""
    import asyncio  # here, not at the top: only judge-backed metrics need it, and it costs startup time

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
