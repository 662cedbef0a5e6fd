"""A slot: one item the generator is asked for (its type, the chunks it is built on, its persona, style and
length), drawn before anything is generated so that a seed fixes the whole plan and a resumed run asks for the
same items."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """The ``index``-th item asked for: of ``type`` (:data:`genevals.generate.items.TYPES`), built on the chunks
    ``chunk_ids`` (two or more for ``multi_hop``), written for ``persona`` in ``style`` at ``length``; ``seed`` is
    the slot's own (the run's seed and the index), so a retry of one slot changes nothing else."""

    index: int
    type: str
    chunk_ids: tuple[str, ...]
    persona: str = ""
    style: str = ""
    length: str = ""
    seed: int = 0
