"""The loop of ``genevals generate``: slots -> a generator -> the gates -> kept or rejected, until exactly ``n``
items are kept or the attempts run out; every attempt journaled, so a killed run resumes where it stopped.

The plan is fixed by the seed: the types of the ``n`` items (:meth:`Planner.types`), then one slot per attempt
in order; a rejected item's type goes to the back of the queue and is asked again on the next seed chunk. A
resumed run replays its journal through the same planner (the same slots, the recorded outcomes) and goes on
from the first attempt not journaled, so no item is made twice and the files equal an uninterrupted run's (but for
the card's cost per kept item, which counts the judge calls of this process: a resumed run's card says so).

A generator is any object with ``generate(slot, chunks, language) -> Item`` (the offline one, the LLM one;
``language``: the one asked, else the slot's first chunk's, detected) and,
for ``--dry-run``, ``estimate(slot, chunks) -> (prompt_tokens, completion_tokens)``. An exception from it is
the attempt's ``generation_failed`` rejection, with the error in the item's provenance.
"""
from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from genevals.generate.card import build_card
from genevals.generate.checks import Gatekeeper
from genevals.generate.cost import cost_figures
from genevals.generate.chunks import ChunkSettings, chunk_document, kept_chunks
from genevals.generate.documents import read_docs
from genevals.generate.items import Chunk, Document, Item
from genevals.generate.mix import Planner, counts
from genevals.generate.mixfile import MixFile
from genevals.generate.outputs import JOURNAL, Journal, write_outputs
from genevals.generate.slots import Slot
from genevals.input.rows import InputError
from genevals.language import detect


class Generator(Protocol):
    name: str

    def generate(self, slot: Slot, chunks: Sequence[Chunk], language: str) -> Item: ...

    def estimate(self, slot: Slot, chunks: Sequence[Chunk]) -> tuple[int, int]: ...


@dataclass(frozen=True)
class GenerateConfig:
    """One ``genevals generate``: ``n`` items into ``out`` from the chunks, ``seed`` fixing the plan;
    ``language`` the items' language asked (None: the documents'); ``max_attempts`` (None: 3n + 10);
    ``embeddings``: the card's MiniLM cosine and dense rank (loads the model when the semantic extra is
    installed)."""

    out: Path
    n: int
    seed: int = 0
    language: str | None = None
    max_attempts: int | None = None
    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    embeddings: bool = True

    @property
    def attempts(self) -> int:
        return self.max_attempts if self.max_attempts is not None else 3 * self.n + 10


@dataclass(frozen=True)
class Outcome:
    kept: list[Item]
    rejected: list[Item]
    requested: dict[str, int]
    card: dict[str, Any]

    @property
    def complete(self) -> bool:
        return len(self.kept) == sum(self.requested.values())


def name_of(generator: Any) -> str:
    """The generator's ``name`` (the journal's header and a failure's provenance), else its class's."""
    return str(getattr(generator, "name", type(generator).__name__))


def spending(generator: Any, gates: Any, kept: int, resumed: bool) -> dict[str, Any]:
    """The card's cost per kept item (:mod:`genevals.generate.cost`) from the generator's and the gates'
    ``spent()``; a generator named ``offline...`` calls nothing."""
    def spent(part: Any) -> dict[str, Any] | None:
        return part.spent() if callable(getattr(part, "spent", None)) else None

    return cost_figures(spent(generator), kept, offline=name_of(generator).startswith("offline"), resumed=resumed,
                        gates=spent(gates))


def corpus_digest(chunks: Sequence[Chunk]) -> str:
    """sha256 of the chunks' ids and texts: what every item depends on."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(f"{chunk.id}\x00{chunk.text}\x01".encode())
    return digest.hexdigest()


def _mix_dict(mix: MixFile) -> dict[str, Any]:
    return {"types": dict(mix.types), "personas": [list(p) for p in mix.personas],
            "styles": [list(s) for s in mix.styles], "lengths": [list(x) for x in mix.lengths]}


def header(config: GenerateConfig, mix: MixFile, chunks: Sequence[Chunk], generator: Generator) -> dict[str, Any]:
    return {"corpus": corpus_digest(chunks), "n": config.n, "seed": config.seed, "language": config.language,
            "mix": _mix_dict(mix), "generator": name_of(generator), "chunk_budget": config.chunking.budget,
            "max_attempts": config.attempts}


def estimate(config: GenerateConfig, mix: MixFile, chunks: Sequence[Chunk], generator: Generator
             ) -> dict[str, int]:
    """What the first ``n`` attempts would cost (no retries): generator calls and tokens; nothing is called."""
    planner, by_id = Planner(mix, chunks, config.seed), {c.id: c for c in chunks}
    prompt = completion = calls = 0
    for index, type_ in enumerate(planner.types(config.n)):
        slot = planner.slot(index, type_)
        p, c = generator.estimate(slot, [by_id[i] for i in slot.chunk_ids])
        prompt, completion, calls = prompt + p, completion + c, calls + (1 if p or c else 0)
    return {"items": config.n, "calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}


def prepare(path: str | Path, settings: ChunkSettings
            ) -> tuple[list[Document], list[Chunk], list[tuple[Chunk, str]], tuple[str, ...]]:
    """DOCS read and chunked: (documents, kept chunks, dropped chunks with the rule's reason, what the reader
    skipped, located). Pre-chunked rows keep their chunks, the drop rule applied to them too. InputError for bad
    input or no chunk kept."""
    corpus = read_docs(path)
    given = corpus.chunks
    if given is None:
        given = tuple(c for doc in corpus.documents for c in chunk_document(doc, settings))
    kept, dropped = kept_chunks(given)
    if not kept:
        raise InputError(str(path), None, None, f"no chunk left: all {len(dropped)} chunks are low-information "
                                                "(fewer than 8 words, fewer than 5 distinct ones, or under half "
                                                "of them with a letter)")
    return list(corpus.documents), kept, dropped, corpus.skipped


def _attempt(generator: Generator, slot: Slot, chunks: Sequence[Chunk], language: str) -> Item:
    try:
        return generator.generate(slot, chunks, language)
    except Exception as exc:  # noqa: BLE001 - any generator failure is this attempt's rejection, recorded
        return Item(f"g{slot.index:05d}", slot.type, "", "", slot.chunk_ids, gates={"generation_failed": "generation_failed"},
                    provenance={"generator": name_of(generator), "error": f"{type(exc).__name__}: {exc}"[:500],
                                "seed": slot.seed})


def generate_set(config: GenerateConfig, mix: MixFile, docs: Sequence[Document], chunks: Sequence[Chunk],
                 generator: Generator, gates: Gatekeeper, about: dict[str, Any],
                 progress: Callable[[int, int], None] | None = None) -> Outcome:
    """The loop (module docstring); writes testset.jsonl, rejected.jsonl, qrels.txt and card.json into
    ``config.out``. ValueError when ``config.out`` holds another run's journal."""
    config.out.mkdir(parents=True, exist_ok=True)
    by_id = {c.id: c for c in chunks}
    requested = counts(mix, config.n)
    planner = Planner(mix, chunks, config.seed)
    pending = deque(planner.types(config.n))
    journal = Journal(config.out / JOURNAL)
    done = journal.read(head := header(config, mix, chunks, generator))
    kept: list[Item] = []
    rejected: list[Item] = []

    def record(item: Item, slot: Slot) -> None:
        if item.rejection is None:
            kept.append(item)
        else:
            rejected.append(item)
            pending.append(slot.type)  # the slot's: a generator's item of another type is the type gate's to reject

    for index, item in enumerate(done):  # replay: the same slots, the outcomes recorded
        slot = planner.slot(index, pending.popleft()) if pending else None
        if slot is None or item.chunks[:1] != slot.chunk_ids[:1]:  # every item is built on its slot's chunks
            raise ValueError(f"{config.out / JOURNAL}: attempt {index} does not match the plan; give another --out")
        record(item, slot)
    journal.start(head, done)
    try:
        attempt = len(done)
        while pending and len(kept) < config.n and attempt < config.attempts:
            slot = planner.slot(attempt, pending.popleft())
            given = [by_id[i] for i in slot.chunk_ids]
            item = _attempt(generator, slot, given, config.language or detect(given[0].text).code)
            item = replace(item, id=f"g{slot.index:05d}")  # one id scheme whichever generator made it
            if item.rejection is None:
                item = gates.run(item, kept)
            journal.add(item)
            record(item, slot)
            attempt += 1
            if progress is not None:
                progress(len(kept), attempt)
    finally:
        journal.close()
    card = build_card(requested, kept, rejected, docs, chunks, {**about, "gates": gates.name, "seed": config.seed,
                                                               "n": config.n, "max_attempts": config.attempts},
                      config.embeddings, spending(generator, gates, len(kept), resumed=bool(done)))
    write_outputs(config.out, kept, rejected, by_id, card)
    return Outcome(kept, rejected, requested, card)
