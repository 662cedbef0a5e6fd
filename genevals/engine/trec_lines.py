"""The run folder's lines and the report's records of a run scored from columns
(:mod:`genevals.engine.trec_columnar`): each topic's results.jsonl line as ``json.dumps(SampleResult.to_dict())``
writes it, built from the columns (its contexts in pyarrow), and the same lines as records for the report
(:mod:`genevals.report.held`), without writing or parsing JSON.
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Sequence

import numpy as np

from genevals.input.arrow_numpy import booleans, from_numpy, nonzero, repeated
from genevals.scored import Columns
from genevals.types import OK

_dumps = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps's defaults, without its per-call checks

#: retrieved documents a topic's results.jsonl line lists (its "contexts"), from the top. Every metric counts all of
#: them (details.n_retrieved); the whole ranking stays in the run file its "origin" names. Listing all 1,000 of a
#: deep run made a 160 MB results.jsonl that the report then parsed twice: 3.5 of 5.8 seconds at 2,000 topics.
KEPT_CONTEXTS = 20
CONTEXTS_NOTE = (f"Retrieval run read from TREC files: each topic's results.jsonl line and the report list its top "
                 f"{KEPT_CONTEXTS} retrieved documents; every metric counts all of them (details.n_retrieved), "
                 "and the full ranking is in the run file its origin names.")


class Records:
    """A part's results.jsonl lines as ``json.loads`` reads them back, less the metrics (see
    :func:`genevals.report.held.held_lines`): what :func:`_lines` writes, from the same columns."""

    def __init__(self, path: str, run: Any, topics: range, said: tuple[list[str], list[str]] | None) -> None:
        self.path, self.run, self.topics, self.said = path, run, topics, said

    def __call__(self, positions: Sequence[int], whole: Sequence[bool]) -> list[dict[str, Any]]:
        run, out = self.run, []
        for i, full in zip(positions, whole):
            t = self.topics[i]
            origin = f"{self.path}:{int(run.first_line[t])}"
            if not full:  # the page shows this sample's values only: its id and origin are all it reads
                out.append({"id": run.topics[t], "origin": origin})
                continue
            lo, hi = int(run.starts[t]), int(run.starts[t + 1])
            if self.said is None:  # a TREC run: the top KEPT_CONTEXTS, with their scores
                hi = min(hi, lo + KEPT_CONTEXTS)
                scores = run.scores[lo:hi].tolist()
            else:
                scores = [None] * (hi - lo)
            contexts = [{"text": "", "rank": rank, "id": doc, "doc_id": None, "score": score}
                        for rank, (doc, score) in enumerate(zip(run.docs.slice(lo, hi - lo).to_pylist(), scores), 1)]
            labels = run.labels[t]
            out.append({"id": run.topics[t], "question": "" if self.said is None else self.said[0][t],
                        "answer": "" if self.said is None else self.said[1][t], "contexts": contexts,
                        "references": [], "relevant": None if labels is None else dict(zip(labels[0],
                                                                                          labels[1].tolist())),
                        "origin": origin})
        return out


def lines(path: str, system: str, run: Any, topics: range, cols: Columns, keep: Callable[[str], bool] | None,
           said: tuple[list[str], list[str]] | None = None) -> str:
    """The results.jsonl lines of ``topics``, as ``json.dumps(SampleResult.to_dict())`` writes them; ``said``:
    each topic's question and answer (a row file's), else empty (a TREC run's) with scored contexts."""
    contexts = _contexts(run, topics, row_file=said is not None)
    names = [(name, _dumps(name)) for name in cols.names if keep is None or keep(name)]
    system_part = f', "system": {_dumps(system)}'
    head = f'{system_part}, "question": "", "answer": "", "contexts": ['
    metrics = _metrics(cols, names)
    out = []
    for row, t in enumerate(topics):
        if said is not None:
            head = (f'{system_part}, "question": {_dumps(said[0][t])}, "answer": {_dumps(said[1][t])}, '
                    f'"contexts": [')
        labels = run.labels[t]
        relevant = "null" if labels is None else _dumps(dict(zip(labels[0], labels[1].tolist())))
        origin = _dumps(f"{path}:{int(run.first_line[t])}")
        out.append(f'{{"id": {_dumps(run.topics[t])}{head}{contexts[row]}], "references": [], '
                   f'"relevant": {relevant}, "origin": {origin}, "metrics": {metrics[row]}}}\n')
    return "".join(out)


def _metrics(cols: Columns, names: list[tuple[str, str]]) -> list[str]:
    """Each row's ``"metrics"`` object as JSON; ``names``: (name, name as JSON). Built a column at a time: every
    output's cell (``KEY: {"value": V, "status": S`` and its reason) for all rows, then each row's cells joined
    with its details between them (``", ".join(cell + tail)`` is ``(tail + ", ").join(cells) + tail``): the
    same text as a row at a time, with one step per row instead of one per row and output (32 a row)."""
    n = len(cols)
    if not names:
        return ["{}"] * n
    cells = [_cells(cols, name, key) for name, key in names]
    out = []
    for details, row in zip(cols.details, zip(*cells)):
        tail = f', "details": {_dumps(details)}}}' if details else "}"
        out.append("{" + (tail + ", ").join(row) + tail + "}")
    return out


def _cells(cols: Columns, name: str, key: str) -> list[str]:
    """One output's cells for every row: its value and status, and its reason where not ok, without the details
    and the closing brace."""
    values, statuses = cols.values[name], cols.statuses[name]
    finite = math.isfinite
    # a finite float as json writes it (its repr), without the encoder's call per value
    cells = [f'{key}: {{"value": {v!r}, "status": "ok"' if type(v) is float and finite(v)
             else f'{key}: {{"value": {_dumps(v)}, "status": "ok"' for v in values]
    if statuses is not None:
        reasons = cols.reasons[name]
        for row, status in enumerate(statuses):
            if status != OK:
                cells[row] = (f'{key}: {{"value": null, "status": {_dumps(status)}, '
                              f'"reason": {_dumps(reasons[row])}')
    return cells


def _contexts(run: Any, topics: range, row_file: bool = False) -> list[str]:
    """Each topic's first KEPT_CONTEXTS contexts as JSON (``Context.to_dict()`` of each, in rank order, joined),
    made in pyarrow; with ``row_file``, all of them and without scores (a row file's ``{"id": ID}`` contexts)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    starts = run.starts[topics.start:topics.stop + 1]
    kept = np.diff(starts) if row_file else np.minimum(np.diff(starts), KEPT_CONTEXTS)
    offsets = np.concatenate(([0], np.cumsum(kept)))
    ranks = np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], kept)  # 0-based rank within the topic
    rows = np.repeat(starts[:-1], kept) + ranks
    ranks += 1
    docs = run.docs.take(from_numpy(rows))
    n = len(docs)
    if len(nonzero(pc.match_substring_regex(docs, r'["\\\x00-\x1f]'))):
        ids = pa.array([_dumps(d) for d in docs.to_pylist()], pa.string())
    else:
        ids = pc.binary_join_element_wise(repeated('"', n), docs, repeated('"', n), repeated("", n))
    # literals as arrays (repeated): a Python string given to pyarrow.compute makes pyarrow import pandas
    row = pc.binary_join_element_wise(repeated('{"text": "", "rank": ', n), pc.cast(from_numpy(ranks), pa.string()),
                                      repeated(', "id": ', n), ids, repeated(', "doc_id": null, "score": ', n),
                                      repeated("null", n) if row_file else _floats(run.scores[rows]), repeated("}", n),
                                      repeated("", n))
    if isinstance(row, pa.ChunkedArray):
        row = row.combine_chunks()
    joined = pc.binary_join(pa.ListArray.from_arrays(from_numpy(offsets.astype(np.int32)), row), repeated(", ", len(kept)))
    return joined.to_pylist()


#: floats whose shortest form pyarrow writes as Python's repr does: not whole, and between 1e-4 and 1e15 (Python
#: and pyarrow switch to an exponent at other magnitudes, and pyarrow writes 2.0 as "2")
_PLAIN = (1e-4, 1e15)


def _floats(values: np.ndarray):
    """``repr`` of each float (what json.dumps writes), as a pyarrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    size = np.abs(values)
    whole = (values == np.trunc(values)) & (size < 1e15) & ~((values == 0) & np.signbit(values))
    plain = (size >= _PLAIN[0]) & (size < _PLAIN[1]) & ~whole
    n = len(values)
    text = pc.if_else(booleans(whole), pc.binary_join_element_wise(
        pc.cast(from_numpy(np.where(whole, values, 0).astype(np.int64)), pa.string()), repeated(".0", n),
        repeated("", n)), pc.cast(from_numpy(values.astype(np.float64)), pa.string()))
    odd = np.flatnonzero(~(whole | plain))
    if len(odd):  # tiny, huge or -0.0: Python's own repr, one by one (rare in a run file)
        fixed = text.to_pylist()
        for i in odd.tolist():
            fixed[i] = repr(float(values[i]))
        text = pa.array(fixed, pa.string())
    return text
