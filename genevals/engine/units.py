"""A conversation is the unit of work: every engine keeps its turns together, in one chunk, one worker's share
and one results.jsonl line, so a crash or a split never leaves half of one (and resume rescores it whole).

The planning pass counts each conversation's turns (:attr:`genevals.engine.plan.Plan.conversations`); with that
count, :func:`whole_conversations` hands a conversation over once its last turn has come, however its turns
interleave in the input, and :func:`turn_done` tells the recorder when a conversation's last result is in.
"""
from __future__ import annotations

import json
import os
from typing import Iterable, Iterator, Mapping, Sequence

from genevals.types import Sample


def turn_done(conversations: dict[tuple[str, str], int], sample: Sample) -> bool:
    """Take ``sample`` out of its conversation's turns still to score; True when it was the last of them (or
    is no conversation's turn)."""
    if sample.conversation_id is None:
        return True
    key = (sample.system, sample.conversation_id)
    left = conversations.get(key, 1) - 1
    if left > 0:
        conversations[key] = left
        return False
    conversations.pop(key, None)
    return True


#: a file to which every engine appends what it scheduled, one JSON line per unit of work (``{"where": ...,
#: "ids": [[system, id], ...]}``): for tests that check no chunk, block or worker's share splits a conversation
SCHEDULE_LOG = "GENEVALS_DEBUG_SCHEDULE"


def log_scheduled(where: str, samples: Sequence[Sample]) -> None:
    path = os.environ.get(SCHEDULE_LOG)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"where": where, "ids": [[s.system, s.id] for s in samples]}) + "\n")


def whole_conversations(items: Iterable[Sample], conversations: Mapping[tuple[str, str], int] | None
                        ) -> Iterator[list[Sample]]:
    """``items`` as units of work: a sample that is no conversation's turn alone, a conversation's turns (those
    ``conversations`` counts as still to score) together, once its last one came. Turns of conversations that
    interleave in the input wait for their conversation's last; without ``conversations``, every sample alone."""
    if not conversations:
        yield from ([item] for item in items)
        return
    left = dict(conversations)
    waiting: dict[tuple[str, str], list[Sample]] = {}
    for item in items:
        if item.conversation_id is None:
            yield [item]
            continue
        key = (item.system, item.conversation_id)
        turns = waiting.setdefault(key, [])
        turns.append(item)
        if turn_done(left, item):
            yield waiting.pop(key)
    yield from waiting.values()  # counted wrong (cannot happen): scored all the same


def split(samples: Sequence[Sample], parts: int) -> list[Sequence[Sample]]:
    """``samples`` in about ``parts`` even slices for worker processes, each cut moved forward to the next
    conversation boundary, so no worker scores part of a conversation."""
    step = -(-len(samples) // parts)
    out, start = [], 0
    while start < len(samples):
        end = min(start + step, len(samples))
        while end < len(samples) and _same(samples[end - 1], samples[end]):
            end += 1
        out.append(samples[start:end])
        start = end
    return out


def _same(a: Sample, b: Sample) -> bool:
    return a.conversation_id is not None and (a.system, a.conversation_id) == (b.system, b.conversation_id)


def grouped(samples: Sequence[Sample]) -> Iterator[list[Sample]]:
    """``samples`` (a chunk: conversations' turns together) as units: each conversation's turns, each other
    sample alone."""
    unit: list[Sample] = []
    for sample in samples:
        if unit and not _same(unit[-1], sample):
            yield unit
            unit = []
        unit.append(sample)
    if unit:
        yield unit
