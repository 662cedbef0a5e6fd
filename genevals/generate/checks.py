"""The gates the driver runs on each generated item (:mod:`genevals.generate.gates`), bound to the run's chunks,
judge, language and earlier sets once. With no judge the judge gates say ``not_checked``; the card names which
gates ran (:attr:`Gatekeeper.name`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genevals.generate import gates
from genevals.generate.items import Chunk, Item


class Gatekeeper:
    """``run(item, kept)``: :func:`genevals.generate.gates.run_gates` in the run's :class:`GateContext`."""

    name = "genevals.generate.gates"

    def __init__(self, chunks: Mapping[str, Chunk], judge: Any = None, language: str | None = None,
                 earlier: Sequence[Item] = ()) -> None:
        self._ctx = gates.GateContext.build(chunks, judge=judge, language=language, earlier=earlier)

    def run(self, item: Item, kept: Sequence[Item]) -> Item:
        return gates.run_gates(item, self._ctx, kept)

    def spent(self) -> dict[str, Any] | None:
        """The judge gates' requests, cached replies, tokens and cost so far (priced as the judge prices its calls:
        a JudgeRuntime's table; a bare client's calls have no price), or None with no judge."""
        usage, judge = self._ctx.usage, self._ctx.judge
        if usage is None:
            return None
        if callable(getattr(judge, "usage_dict", None)):
            return judge.usage_dict(usage)
        return usage.to_dict("", None)
