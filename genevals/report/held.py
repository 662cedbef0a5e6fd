"""The report's first pass (every sample's values and statuses) from columns a run still holds in memory, instead
of parsing its results.jsonl back: the columnar retrieval path hands its :class:`genevals.scored.Columns` over
(:attr:`genevals.output.results.Results.held`). The store ends as :func:`genevals.report.model._scan_row` would
leave it, line for line (``tests/report/test_held.py``). The embedded samples' lines come from the blocks too
(:func:`held_lines`): their id, origin, texts, contexts and labels as ``json.loads`` gives them back (the scores
and grades rounded for the page), without the metrics (a retrieval output has no drill-down), so the report parses
none of results.jsonl (12.7 MB at 2,000 x 1,000: 0.1-0.2 s).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Container, Iterable, Iterator, Mapping, Sequence

from genevals.report.clean import rounded, text
from genevals.report.values import SampleValues
from genevals.types import OK

#: (system, sample ids, the written output names, Columns, lines) per block, in results.jsonl order; ``lines``:
#: (positions in the block, whether whole) -> their lines' records, as ``json.loads`` reads them, less the
#: metrics; those not whole with only their id and origin
Block = tuple[str, Sequence[str], Sequence[str], Any, Callable[[Sequence[int], Sequence[bool]], list[dict[str, Any]]]]


def add_held(blocks: Iterable[Block], store: SampleValues, system_of: Callable[[str], int],
             metric_of: Callable[[str], int]) -> None:
    """Record the blocks' samples in ``store``, numbered by their results.jsonl lines (one a sample, from 1)."""
    number = 0
    for system, ids, names, cols, _ in blocks:
        s = system_of(system)
        first = len(store)
        for sample_id in ids:
            number += 1
            store.slot(s, sample_id, number)
        for name in names:
            m = metric_of(name)
            values = cols.values[name]
            statuses = cols.statuses[name]
            column = [math.nan if v is None else float(v) for v in values]
            odd = {i for i, v in enumerate(column) if not math.isfinite(v)}
            for i in odd:  # an "ok" value the report cannot show: _scan_row records it as a status
                column[i] = math.nan
            store.add_values(first, m, column)
            if statuses is not None or odd:
                reasons = cols.reasons[name]
                for i in range(len(column)):
                    status = OK if statuses is None else statuses[i]
                    if status != OK or i in odd:
                        reason = reasons[i] if reasons is not None else None
                        store.set_status(first + i, m, status, "" if reason is None else str(reason))


def held_lines(blocks: Iterable[Block], wanted: Mapping[int, Any], detailed: Container[int]
               ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of the lines ``wanted`` (line number -> anything), as :meth:`genevals.report.load.Run.lines`
    gives them, from the blocks instead of the file: whole for the lines in ``detailed`` (the samples the page
    shows the texts of), only their id and origin for the others."""
    first = 1
    for _, ids, _, _, lines in blocks:
        end = first + len(ids)
        positions = [n - first for n in range(first, end) if n in wanted]
        if positions:
            whole = [first + i in detailed for i in positions]
            records = lines(positions, whole)
            _round_for_page([r for r, full in zip(records, whole) if full])
            yield from zip((first + i for i in positions), records)
        first = end


def _round_for_page(records: list[dict[str, Any]]) -> None:
    """The records' context scores and label grades rounded as :func:`~genevals.report.clean.num` rounds them for
    the page, in place, a block's at once (:func:`~genevals.report.clean.rounded`: 64,000 calls of ``num`` for a
    2,000-topic report)."""
    scored = [c for r in records for c in r["contexts"] if c["score"] is not None]
    for context, value in zip(scored, rounded([c["score"] for c in scored], 6)):
        context["score"] = value
    labelled = [r for r in records if r["relevant"]]
    values = iter(rounded([v for r in labelled for v in r["relevant"].values()], 6))
    for record in labelled:
        record["relevant"] = {k: next(values) for k in record["relevant"]}


def held_texts(row: dict[str, Any]) -> dict[str, Any]:
    """:func:`genevals.report.clean.sample_texts` of a record :func:`held_lines` gave whole, built without its
    checks: the columnar path made the record from its own columns (strings, whole ranks, finite scores, the
    page's context fields) and :func:`held_lines` rounded its numbers. 0.04 s of a 2,000-topic report's 40,000
    contexts."""
    return {"q": text(row["question"]), "a": text(row["answer"]), "ctx": row["contexts"], "refs": [],
            "rel": row["relevant"]}
