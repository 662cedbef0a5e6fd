"""The adaptive (AIMD) judge concurrency limit: halves once per generation of requests on overload, rises by
one after `limit` successes in a row, never exceeds its ceiling, and a fixed limit never moves."""
import asyncio

from genevals.judge.limiter import AdaptiveLimit, is_overload


def test_requests_sent_together_halve_the_limit_once_and_successes_raise_it():
    async def go():
        limit = AdaptiveLimit(8)
        peak, now = [0], [0]

        async def request(fail: bool):
            async with limit.slot() as slot:
                now[0] += 1
                peak[0] = max(peak[0], now[0])
                await asyncio.sleep(0.01)
                now[0] -= 1
                slot.overloaded("timeout after 1s") if fail else slot.succeeded()

        await asyncio.gather(*(request(True) for _ in range(8)))  # one generation: one halving
        assert limit.limit == 4 and peak[0] == 8
        await asyncio.gather(*(request(True) for _ in range(3)))
        assert limit.limit == 2
        peak[0] = 0
        await asyncio.gather(*(request(False) for _ in range(2)))  # 2 successes at limit 2 -> 3
        assert limit.limit == 3 and peak[0] <= 2
        for _ in range(40):
            await request(False)
        assert limit.limit == 8 and limit.stats.lowest == 2 and limit.stats.decreases == 2
        assert limit.stats.history[:3] == [4, 2, 3]

    asyncio.run(go())


def test_a_fixed_limit_never_moves_and_a_floor_of_one():
    async def go():
        fixed, adaptive = AdaptiveLimit(3, adaptive=False), AdaptiveLimit(1)
        for limiter in (fixed, adaptive):
            async with limiter.slot() as slot:
                slot.overloaded("HTTP 429: rate limited")
        assert fixed.limit == 3 and adaptive.limit == 1 and adaptive.stats.decreases == 0

    asyncio.run(go())


def test_what_counts_as_overload():
    assert is_overload(429, "HTTP 429: x") and is_overload(503, "HTTP 503: x") and is_overload(None, "timeout after 60s")
    assert not is_overload(500, "HTTP 500: x") and not is_overload(None, "connection error: ConnectError")
