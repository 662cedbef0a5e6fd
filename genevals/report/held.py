"""The report's first pass (every sample's values and statuses) from columns a run still holds in memory, instead
of parsing its results.jsonl back: the columnar retrieval path hands its :class:`genevals.scored.Columns` over
(:attr:`genevals.output.results.Results.held`). The store ends as :func:`genevals.report.model._scan_row` would
leave it, line for line (``tests/report/test_held.py``); only the embedded samples' lines are read from the file.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Sequence

from genevals.report.values import SampleValues
from genevals.types import OK

#: (system, sample ids, the written output names, Columns) per block, in results.jsonl order
Block = tuple[str, Sequence[str], Sequence[str], Any]


def add_held(blocks: Iterable[Block], store: SampleValues, system_of: Callable[[str], int],
             metric_of: Callable[[str], int]) -> None:
    """Record the blocks' samples in ``store``, numbered by their results.jsonl lines (one a sample, from 1)."""
    number = 0
    for system, ids, names, cols in blocks:
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
