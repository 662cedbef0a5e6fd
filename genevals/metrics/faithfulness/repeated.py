"""Faithfulness with judge repeats: one decomposition, N verifications, one majority verdict per claim.

Repeat r (0..N-1) verifies the located claims with seed ``seed + r`` and, from the second repeat on, in an
order shuffled by ``random.Random(f"{seed}:{r}:{sample id}")`` (the judge reads claims in order, and a position
effect is part of its variance). The verdicts are combined by :func:`genevals.metrics.judging.repeats.majority`:
a tie is unverifiable, a failed repeat (judge or parse error) is no verdict. Each verdict keeps every repeat's
label (``repeats``) and its ``agreement``; the sample keeps each repeat's faithfulness, their mean and spread
(``details["repeats"]``). The sample is unscored only when every repeat failed.
"""
from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from genevals import types
from genevals.metrics.judging.repeats import in_repeat, majority, sample_repeats
from genevals.types import Claim, Verdict

Verify = Callable[[list[Claim]], Awaitable[tuple[list[Verdict], list[str], bool]]]


@dataclass(frozen=True)
class Repeated:
    """The combined verdicts (in claim order), the repeats' issues, ``details["repeats"]``, and the first
    failure (status, reason) when no repeat could be read."""

    verdicts: list[Verdict]
    issues: list[str]
    info: dict[str, Any]
    failure: tuple[str, str] | None


def shuffled(claims: Sequence[Claim], seed: int, r: int, sample_id: str) -> list[Claim]:
    order = list(claims)
    if r:
        random.Random(f"{seed}:{r}:{sample_id}").shuffle(order)
    return order


async def verify_repeats(verify: Verify, located: Sequence[Claim], n: int, seed: int, sample_id: str,
                         unscored: type[Exception]) -> Repeated:
    """Run ``verify`` as repeats 0..n-1 (``unscored``: the exception, with ``status`` and ``reason``, that a
    failed call or reply raises) and combine them."""

    async def one(r: int) -> tuple[dict[int, Verdict] | None, list[str], str, str | None]:
        try:
            verdicts, issues, parsed = await verify(shuffled(located, seed, r, sample_id))
        except unscored as exc:
            return None, [], exc.status, exc.reason  # type: ignore[attr-defined]
        if not parsed:
            return None, issues, types.PARSE_ERROR, "no verdict could be read from the verify replies"
        return {v.claim_index: v for v in verdicts}, issues, types.OK, None

    runs = await asyncio.gather(*(in_repeat(r, lambda r=r: one(r)) for r in range(n)))
    issues = [f"repeat {r + 1}: {issue}" for r, run in enumerate(runs) for issue in run[1]]
    statuses = [run[2] for run in runs]
    values: list[float | None] = []
    for got, *_ in runs:
        values.append(None if got is None else
                      sum(1 for c in located if got[c.index].label == types.SUPPORTED and not got[c.index].missing)
                      / len(located))
    verdicts, unstable = [], 0
    for claim in located:
        labels = [None if got is None else got[claim.index].label for got, *_ in runs]
        label, agreement = majority(labels)
        unstable += len({lab for lab in labels if lab is not None}) > 1
        chosen = next((got[claim.index] for got, *_ in runs if got is not None and got[claim.index].label == label),
                      None)
        if chosen is None:
            split = ", ".join(f"{k} {lab}" for lab, k in Counter(lab for lab in labels if lab).most_common())
            chosen = Verdict(claim.index, types.UNVERIFIABLE,
                             reason=f"the judge repeats split ({split}); a tie counts as unverifiable")
        verdicts.append(replace(chosen, repeats=tuple(labels), agreement=agreement))
    info = sample_repeats(values, statuses, unit="claims", units=len(located), unstable=unstable)
    failures = [{"repeat": r, "status": run[2], "reason": run[3]} for r, run in enumerate(runs)
                if run[2] != types.OK]
    if failures:
        info["failures"] = failures
    failure = (failures[0]["status"], failures[0]["reason"]) if len(failures) == n else None
    return Repeated(verdicts, issues, info, failure)
