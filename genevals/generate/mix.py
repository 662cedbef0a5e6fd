"""Drawing the slots (the items asked for) from a mix: how many of each type, and each slot's chunks, persona,
style and length.

The mix is read from ``--types mix.toml`` by :func:`genevals.generate.mixfile.read_mix` (a frozen ``MixFile``);
this module only draws from one. :data:`OFFLINE_MIX` is the mix when no ``--types`` is given and no judge is configured.

**Type counts** for ``n`` items, by the largest remainder (Hamilton's method): type ``t`` with weight ``w_t``
gets ``floor(n * w_t / W)`` items (``W`` the sum of the weights), and the remaining items go one each to the
largest fractional parts (ties: the order the mix lists). Their order is a seeded permutation. A slot rejected by
the gates is replaced by a slot of the same type on the next seed chunk, so the counts asked for stay the same.

**Persona, style, length** of slot ``i``: each an independent seeded draw by weight (seed: the run's and ``i``).
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence

from genevals.generate.items import TYPES, Chunk
from genevals.generate.mixfile import MixFile
from genevals.generate.sampling import CoverageSampler, entity_terms, partner
from genevals.generate.slots import Slot

#: types whose items are built on two or more chunks
MULTI = ("multi_hop",)


#: no --types, no judge: half known-item queries, half extractive items
OFFLINE_MIX = MixFile({"known_item": 0.5, "extractive": 0.5}, source="the offline default mix")
#: no --types, a judge: the LLM types (a follow-up's turns and the refusals included)
LLM_MIX = MixFile({"fact": 0.3, "multi_hop": 0.2, "summary": 0.1, "reasoning": 0.1, "unanswerable": 0.1,
                   "distracting": 0.1, "follow_up": 0.1}, source="the default mix")


def counts(mix: MixFile, n: int) -> dict[str, int]:
    """Items per type for ``n`` items (:meth:`MixFile.targets`: the largest remainder of the module docstring);
    ValueError for an unknown type or weights that are not positive numbers (a mix built in code; a file's
    are checked as it is read)."""
    unknown = [t for t in mix.types if t not in TYPES]
    if unknown:
        raise ValueError(f"unknown item type {unknown[0]!r} (types: {', '.join(TYPES)})")
    weights = list(mix.types.values())
    if not any(weights) or any(not math.isfinite(float(w)) or w < 0 for w in weights):
        raise ValueError("the mix's type weights must be non-negative numbers, one at least positive")
    return {t: c for t, c in mix.targets(n).items() if c}


def _pick(choices: Sequence[tuple[str, float]], rng: random.Random) -> str:
    if not choices:
        return ""
    names, weights = zip(*choices)
    return rng.choices(names, weights=weights)[0]


class Planner:
    """The slots of one run: :meth:`types` fixes the types of the ``n`` items, :meth:`slot` draws the slot for
    one attempt (chunks from the coverage sampler, so calls must come in the same order to give the same slots:
    the driver replays its journal to resume)."""

    def __init__(self, mix: MixFile, chunks: Sequence[Chunk], seed: int) -> None:
        self.mix, self.seed = mix, seed
        self.chunks = {c.id: c for c in chunks}
        self.sampler = CoverageSampler(chunks, seed)
        self._terms: dict[str, frozenset[str]] | None = None

    def types(self, n: int) -> list[str]:
        out = [t for t, c in counts(self.mix, n).items() for _ in range(c)]
        random.Random(f"types:{self.seed}").shuffle(out)
        return out

    def slot(self, index: int, type_: str) -> Slot:
        first = self.sampler.draw()
        ids: tuple[str, ...] = (first,)
        if type_ in MULTI:
            if self._terms is None:
                self._terms = entity_terms(list(self.chunks.values()))
            other = partner(first, self.chunks, self._terms)
            ids = (first, other) if other is not None else ids
        rng = random.Random(f"slot:{self.seed}:{index}")
        return Slot(index, type_, ids, _pick(self.mix.personas, rng), _pick(self.mix.styles, rng),
                    _pick(self.mix.lengths, rng), seed=rng.randrange(2**31))
