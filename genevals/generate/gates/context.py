"""What every gate reads besides the item: the corpus's chunks, the judge (or None), the language asked, the items
of earlier sets, the BM25 index over all chunks, and the gates' settings (one frozen config)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from genevals.generate.gates.retrieval import ChunkIndex
from genevals.generate.items import Chunk, Item


@dataclass(frozen=True)
class GateSettings:
    """The gates' thresholds, each with the reason for its value.

    ``agree_f1``: a solver's answer agrees with the reference when their token F1 (SQuAD's multiset overlap over
    MLQA-normalised tokens in the item's language) is at least this. 0.5: half the reference's words recovered at
    the precision a one-sentence answer has; a solver that names the right span inside a sentence (a 4-word
    reference in an 8-word answer) scores 0.67.
    ``near_duplicate``: two questions are near duplicates when rapidfuzz's normalised Indel similarity
    (``fuzz.ratio``: 100 * (1 - Indel distance / (len(a) + len(b)))) of their normalised forms is at least this.
    ``top_k``: chunks BM25 retrieves from the whole corpus for ``accidentally_answerable``.
    ``max_tokens``: the reply budget of one gate call. ``passage_chars``: a passage longer than this is cut in a
    prompt (the cut is said in the reason).
    """

    agree_f1: float = 0.5
    near_duplicate: float = 90.0
    top_k: int = 5
    max_tokens: int = 400
    passage_chars: int = 4000
    temperature: float = 0.0
    seed: int = 0


@dataclass(frozen=True)
class GateContext:
    """Everything the gates read about the run. Build it once per run with :meth:`build`.

    ``judge``: a :class:`genevals.judge.client.JudgeClient` (its calls then send ``settings``' temperature, seed
    and reply budget), a :class:`genevals.judge.runtime.JudgeRuntime` (its client and its params), or None (the
    offline default: the judge gates say ``not_checked``). ``language``: the language asked (``--language``), or
    None: each item's documents' language. ``earlier``: items of earlier sets, for ``duplicate``. ``usage``: the
    judge gates' calls counted (a :class:`genevals.judge.client.SampleUsage`, the card's cost), None with no judge.
    """

    chunks: Mapping[str, Chunk]
    judge: Any | None = None
    language: str | None = None
    earlier: Sequence[Item] = ()
    index: ChunkIndex | None = None
    settings: GateSettings = field(default_factory=GateSettings)
    usage: Any | None = None

    @classmethod
    def build(cls, chunks: Mapping[str, Chunk] | Sequence[Chunk], judge: Any | None = None,
              language: str | None = None, earlier: Sequence[Item] = (),
              settings: GateSettings | None = None) -> "GateContext":
        """The context for one run: ``chunks`` (a mapping by id, or a sequence) and, when there is a judge (only
        a judge gate reads it), the BM25 index over them: :class:`~.retrieval.MissingExtra` without bm25s
        (``pip install 'genevals[generate]'``)."""
        by_id = dict(chunks) if isinstance(chunks, Mapping) else {c.id: c for c in chunks}
        index = ChunkIndex.build(by_id.values()) if judge is not None else None
        usage = None
        if judge is not None:
            from genevals.judge.client import SampleUsage

            usage = SampleUsage()
        return cls(chunks=by_id, judge=judge, language=language, earlier=tuple(earlier), index=index,
                   settings=settings or GateSettings(), usage=usage)
