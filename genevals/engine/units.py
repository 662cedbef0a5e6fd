"""A conversation is the unit of work: every engine keeps its turns together, in one chunk, one worker's share,
one Ray row and one results.jsonl line, so a crash or a split never leaves half of one (and resume rescores it
whole).

Samples are grouped into units once, here, as the plan hands them to an engine (:func:`whole_conversations`, from
the turns the planning pass counted, :class:`genevals.conversations.ledger.Ledger`): a sample that is no
conversation's turn is a unit alone, a conversation's turns are one, however they interleave in the input. From
there on the unit travels as it is: :func:`pack` puts whole units into a :class:`Chunk`, which remembers where each
begins (its ``sizes``), so a worker's share (:func:`split`), a Ray row, the judge's stream and the run folder's
lines (:func:`genevals.output.runfolder.results_text`) take a chunk's units as they are, never looking again for
where a conversation begins.
"""
from __future__ import annotations

import json
import os
from typing import Iterable, Iterator, Mapping, Sequence, TypeVar

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


T = TypeVar("T")


class Chunk(list):
    """A chunk's samples, in order, made of whole units; ``sizes``: how many samples each unit holds, in order
    (None: every sample is a unit alone). A list, so that it is scored as any list of samples is."""

    def __init__(self, samples: Iterable[Sample] = (), sizes: list[int] | None = None) -> None:
        super().__init__(samples)
        self.sizes = sizes

    def units(self) -> Iterator[list[Sample]]:
        """The chunk's units, in order."""
        return cut(self, self.sizes)


def cut(items: Sequence[T], sizes: Sequence[int] | None) -> Iterator[list[T]]:
    """``items`` (one per sample of a chunk, in its order: the samples, or their results) cut into the chunk's
    units (``sizes``: :attr:`Chunk.sizes`)."""
    if sizes is None:
        yield from ([item] for item in items)
        return
    start = 0
    for size in sizes:
        yield list(items[start:start + size])
        start += size


#: the most retrieved contexts a chunk holds (its samples, their result lines and their parts all live at once):
#: 512 retrieval samples of 1,000 documents each would otherwise hold half a million contexts
MAX_CHUNK_CONTEXTS = 50_000


def pack(units: Iterable[Sequence[Sample]], size: int, where: str = "chunk") -> Iterator[Chunk]:
    """Units of work (:func:`whole_conversations`) packed into chunks of ``size`` samples, or fewer where they
    hold :data:`MAX_CHUNK_CONTEXTS` contexts; a unit is never split: a chunk may exceed its size to finish a
    conversation, and one conversation larger than both limits is one chunk. Nothing is held between two chunks,
    so a caller may stop after one and pack the rest of ``units`` with another size."""
    chunk: Chunk = Chunk()
    sizes: list[int] = []
    held = 0
    for unit in units:
        chunk.extend(unit)
        sizes.append(len(unit))
        held += len(unit[0].contexts) if len(unit) == 1 else sum(len(item.contexts) for item in unit)
        if len(chunk) >= size or held >= MAX_CHUNK_CONTEXTS:
            yield _done(chunk, sizes, where)
            chunk, sizes, held = Chunk(), [], 0
    if chunk:
        yield _done(chunk, sizes, where)


def _done(chunk: Chunk, sizes: list[int], where: str) -> Chunk:
    # a chunk of samples each alone says so with no sizes: most runs have no conversation
    chunk.sizes = None if len(sizes) == len(chunk) else sizes
    log_scheduled(where, chunk)
    return chunk


def split(samples: Sequence[Sample], parts: int) -> list[Sequence[Sample]]:
    """``samples`` (a :class:`Chunk`, or samples each alone) in about ``parts`` even slices for worker processes,
    each cut moved forward to the end of its unit, so no worker scores part of a conversation."""
    sizes = samples.sizes if isinstance(samples, Chunk) else None
    step = -(-len(samples) // parts)
    if sizes is None:
        return [samples[start:start + step] for start in range(0, len(samples), step)]
    out: list[Sequence[Sample]] = []
    start = end = 0
    for size in sizes:
        end += size
        if end - start >= step:
            out.append(samples[start:end])
            start = end
    if start < end:
        out.append(samples[start:end])
    return out
