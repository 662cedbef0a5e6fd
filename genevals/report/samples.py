"""Which samples the report's page carries, and how: the detailed ones (their texts: the hallucination review
material first), the ones with values only, and each page sample's record (id, system, line, origin, values
rounded for display, unscored statuses, texts or the verdict counts). :mod:`genevals.report.model` builds the page
from them.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from genevals.report.clean import rounded
from genevals.report.values import SampleValues


def select_detailed(store: SampleValues, limit: int) -> list[int]:
    """Which samples keep their texts (at most ``limit``, returned in file order): first the hallucination
    review material, the samples with a contradicted or unverifiable claim, then those with an unscored metric
    (so a metric that is unscored everywhere, e.g. no references, does not crowd out the claims), then the
    rest; each group in file order."""
    limit = max(0, int(limit))
    chosen: list[int] = []
    for tier in (2, 1, 0):
        if len(chosen) >= limit:
            break
        group = (k for k in range(len(store)) if store.flagged[k] == tier)
        chosen += [k for _, k in zip(range(limit - len(chosen)), group)]
    return sorted(chosen)


def table_samples(n: int, detailed: Sequence[int], max_table_samples: int | None) -> list[int]:
    """The samples the page gets values for: the detailed ones, then the rest in file order (None: all)."""
    if max_table_samples is None or n <= max(max_table_samples, len(detailed)):
        return list(range(n))
    chosen = set(detailed)
    rest = (k for k in range(n) if k not in chosen)
    return sorted(chosen.union(k for _, k in zip(range(max_table_samples - len(detailed)), rest)))


def page_samples(store: SampleValues, embedded: Sequence[int], heads: Mapping[int, tuple[str, str]],
                  texts: Mapping[int, dict[str, Any]], metric_names: Sequence[str]) -> list[dict[str, Any]]:
    """The page's samples: id, system, results.jsonl line and origin, values aligned with the report's metric
    list (null where not scored), unscored statuses, and texts, or ``x: 1`` when they are left out.

    Values carry 6 decimals with texts, 4 without (what the page shows; a quarter of the bytes of the rows that
    dominate a large report's size). Summaries, histograms and comparisons are computed from full precision.
    Metrics are read one column at a time, so only the embedded samples' values are ever held at once.
    """
    index = np.asarray(embedded, dtype=np.int64)
    digits = np.fromiter((6 if k in texts else 4 for k in embedded), dtype=np.int64, count=len(embedded))
    values: list[list[float | None]] = [[None] * len(metric_names) for _ in embedded]
    for m in range(len(metric_names)):  # rounded a column at a time, as num rounds each value (NaN: None)
        for row, v in zip(values, rounded(store.column(m)[index], digits)):
            row[m] = v
    statuses: list[dict[str, list[str]]] = [{} for _ in embedded]
    for m in store.unscored_metrics:
        for i, code in enumerate(store.status_codes(m)[index].tolist()):
            if code:
                statuses[i][metric_names[m]] = list(store.status_table[code])
    out = []
    for i, k in enumerate(embedded):
        own = texts.get(k)
        row = values[i]
        while row and row[-1] is None:
            row.pop()
        sample_id, origin = heads.get(k, ("", ""))
        sample: dict[str, Any] = {"id": sample_id, "sys": store.sys[k], "line": store.line[k]}
        if own is not None or origin:
            sample["origin"] = origin
        if own is not None:
            sample.update(own)
        else:
            sample["x"] = 1
            counts = store.verdicts(k)
            if counts is not None:
                sample["vc"] = counts
        sample["v"] = row
        if statuses[i]:
            sample["st"] = statuses[i]
        out.append(sample)
    return out
