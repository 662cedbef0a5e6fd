"""Adaptive judge concurrency: AIMD (additive increase, multiplicative decrease), as TCP's congestion control.

At most ``limit`` requests are in flight; ``limit`` starts at the configured concurrency (its ceiling).

- **Decrease**: a request that ends in overload (a timeout, HTTP 429 or 503) halves the limit, at least 1.
  Only requests sent at the current limit count: when several requests sent together all time out, the limit
  halves once, not once each (each decrease starts a new *generation*; older requests' failures are ignored).
- **Increase**: every ``limit`` successful requests in a row raise it by 1, up to the ceiling.

So a one-slot local server (llama.cpp's default) that times out under four requests is soon asked one at a
time, and a hosted API that briefly answers 429 gets its full concurrency back as calls succeed. A request
holds its slot only while it is sent: a retry's backoff sleep does not keep others waiting.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import AsyncIterator

log = logging.getLogger("genevals.judge")


@dataclass
class LimitStats:
    """What the limiter did: the lowest limit it reached and how often it lowered and raised the limit."""

    ceiling: int
    lowest: int
    decreases: int = 0
    increases: int = 0
    history: list[int] = field(default_factory=list)  # the limit after each change


class AdaptiveLimit:
    """An asyncio concurrency limit that adapts (AIMD); ``adaptive=False`` keeps it fixed (a semaphore)."""

    def __init__(self, ceiling: int, adaptive: bool = True) -> None:
        self.ceiling = max(1, int(ceiling))
        self.adaptive = adaptive
        self.limit = self.ceiling
        self.stats = LimitStats(self.ceiling, self.ceiling)
        self._in_flight = 0
        self._generation = 0
        self._successes = 0
        self._cond: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._cond is None or self._loop is not loop:
            self._cond, self._loop, self._in_flight = asyncio.Condition(), loop, 0
        return self._cond

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[_Slot]:
        """Hold one of the ``limit`` slots while sending one request; report its outcome on the slot."""
        cond = self._condition()
        async with cond:
            await cond.wait_for(lambda: self._in_flight < self.limit)
            self._in_flight += 1
        held = _Slot(self, self._generation)
        try:
            yield held
        finally:
            async with cond:
                self._in_flight -= 1
                cond.notify_all()

    def _overloaded(self, generation: int, why: str) -> None:
        if not self.adaptive or generation != self._generation:
            return
        self._generation += 1
        self._successes = 0
        if self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self.stats.decreases += 1
            self.stats.lowest = min(self.stats.lowest, self.limit)
            self.stats.history.append(self.limit)
            # Said once per halving (a few lines a run at most): the user may want a lower --judge-concurrency.
            log.warning("genevals: judge overloaded (%s): lowered its concurrency to %d of %d; it rises again as "
                        "requests succeed (for a local server, set --judge-concurrency to its number of slots)",
                        why, self.limit, self.ceiling)

    def _succeeded(self) -> None:
        if not self.adaptive or self.limit >= self.ceiling:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self._successes = 0
            self.limit += 1
            self.stats.increases += 1
            self.stats.history.append(self.limit)  # the slot's release wakes the waiters to see it


@dataclass
class _Slot:
    limiter: AdaptiveLimit
    generation: int

    def overloaded(self, why: str) -> None:
        self.limiter._overloaded(self.generation, why)

    def succeeded(self) -> None:
        self.limiter._succeeded()


def is_overload(status: int | None, message: str) -> bool:
    """Whether a transient failure says the server is overrun: 429, 503, or a timeout."""
    return status in (429, 503) or message.startswith("timeout")
