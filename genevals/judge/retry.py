"""Bounded retries with exponential backoff for transient judge failures.

Retried: :class:`TransientError` (HTTP 429, 5xx, timeouts, dropped connections). The wait before try ``k``
(k = 1, 2, ...) is ``min(cap, base * 2**(k-1))`` plus up to 10% jitter, or the server's ``Retry-After`` when
it sent one (capped at ``cap``). At most ``max_tries`` requests are made. :class:`PermanentError` ends the
call at once; any other exception from a provider is a bug in it, reported as a permanent error.
"""
from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from genevals.judge.protocol import JudgeError, PermanentError, TransientError


@dataclass(frozen=True)
class Attempted:
    """How a call with retries ended: its value, or the last error, and how many requests it took."""

    value: Any
    attempts: int
    error: JudgeError | None = None


@dataclass(frozen=True)
class RetryPolicy:
    max_tries: int = 5
    base: float = 0.5
    cap: float = 30.0
    jitter: float = 0.1

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(self.cap, retry_after)
        wait = min(self.cap, self.base * (2 ** (attempt - 1)))
        return wait * (1 + self.jitter * random.random())

    async def run(self, call: Callable[[], Awaitable[Any]],
                  sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> Attempted:
        attempt = 0
        while True:
            attempt += 1
            try:
                return Attempted(await call(), attempt)
            except TransientError as exc:
                if attempt >= self.max_tries:
                    return Attempted(None, attempt, exc)
                await sleep(self.delay(attempt, exc.retry_after))
            except JudgeError as exc:
                return Attempted(None, attempt, exc)
            except Exception as exc:  # a provider bug: never retried, but still a typed judge error
                return Attempted(None, attempt, PermanentError(f"{type(exc).__name__}: {exc}"))
