"""The retrieval family scored straight from a run's columns (:class:`genevals.input.trec_columns.TrecColumns`):
every topic's grades in rank order go into one padded matrix per block of topics, and
:func:`~genevals.metrics.retrieval.ranking_columns.evaluate_grades` (the code the per-sample path runs) scores the
block at once. No Sample, no dict of labels, no Python loop over documents.

The results are :class:`genevals.scored.Columns`, with the values, statuses, reasons and details
:meth:`genevals.metrics.retrieval.retrieval.Retrieval.score_columns` gives for the same topics as samples
(``tests/metrics/retrieval/test_columnar.py`` checks that, and pytrec_eval's values to 1e-12).
"""
from __future__ import annotations

from typing import Iterator

from genevals import types
from genevals.metrics.retrieval import unjudged
from genevals.metrics.retrieval.ranking_columns import evaluate_grades
from genevals.metrics.retrieval.retrieval import (NO_LABELS_REASON, NO_RELEVANT, Retrieval, StatusMarks,
                                                  no_relevant_reason)
from genevals.scored import Columns

#: topics scored and written at once: the padded matrices are BLOCK x depth floats, and the block's results.jsonl
#: text is held whole (1,000-deep runs: some 80 KB a topic)
BLOCK = 128


def supported(metric: Retrieval) -> bool:
    """Whether this path gives what the per-sample path would: a TREC run has no doc_id, so "doc" level ranks
    by a fallback key and says so in each row's details; that stays with the per-sample path."""
    return metric.level in ("auto", "chunk")


def score_blocks(metric: Retrieval, run, block: int = BLOCK) -> Iterator[tuple[range, Columns]]:
    """(topic indexes, their :class:`Columns`) for each block of ``run``'s topics, in order."""
    for lo in range(0, len(run.topics), block):
        topics = range(lo, min(lo + block, len(run.topics)))
        yield topics, _score(metric, run, topics)


def _score(metric: Retrieval, run, topics: range) -> Columns:
    import numpy as np  # here: the registry imports every metrics module, also for `genevals --help`

    names, level = metric.output_names(), metric.relevance_level
    n = len(topics)
    starts = run.starts[topics.start:topics.stop + 1]
    lengths = np.diff(starts)
    depth = max(int(lengths.max(initial=0)), 1)
    lo, hi = int(starts[0]), int(starts[-1])
    row_of = np.repeat(np.arange(n), lengths)
    col_of = np.arange(lo, hi) - np.repeat(starts[:-1], lengths)
    grades = np.zeros((n, depth))
    grades[row_of, col_of] = run.grades[lo:hi]
    judged = np.add.reduceat(run.judged[lo:hi].astype(np.int64), starts[:-1] - lo) if n else np.zeros(0, int)

    deep = metric.unjudged_cutoffs
    counts = unjudged.column_counts(run.judged[lo:hi], starts, deep) if deep else {}
    labels = [run.labels[t] for t in topics]
    ideal, n_pos, totals, g_max = _ideal(labels, level)
    computed = evaluate_grades(grades, lengths, ideal, n_pos, totals, g_max, metric.cutoffs, level)

    values = {name: computed[name].astype(float).tolist() for name in names}
    marks = StatusMarks(names, values, n)
    details: list[dict] = []
    for q, got in enumerate(labels):
        if got is None:
            details.append({"level": "chunk"})
            marks.unscored(q, types.NO_RELEVANCE_LABELS, NO_LABELS_REASON)
            continue
        retrieved = int(lengths[q])
        details.append({"level": "chunk", "n_retrieved": retrieved, "n_relevant": int(totals[q]),
                        "n_judged_retrieved": int(judged[q])})
        if totals[q] == 0:
            marks.unscored(q, NO_RELEVANT, no_relevant_reason(level, len(got[0])))
            continue
        if counts:
            details[-1].update({name: int(values[q]) for name, values in counts.items()})
        marks.ranked(q, retrieved)
    return Columns(names, values, marks.statuses, marks.reasons, details)


def _ideal(labels: list, level: float):
    """Per topic (its labels: (docs, grades) or None), the ideal ranking's grades (the positive ones, highest
    first, padded with 0), their number, the number of relevant documents (grade >= ``level``) and the highest
    grade: for all the block's topics at once (a sort over their labels by topic, then grade descending)."""
    import numpy as np

    n = len(labels)
    sizes = np.fromiter((0 if got is None else len(got[1]) for got in labels), dtype=np.int64, count=n)
    grades = (np.concatenate([got[1] for got in labels if got is not None]).astype(np.float64, copy=False)
              if sizes.any() else np.zeros(0))
    topic = np.repeat(np.arange(n), sizes)
    totals = np.bincount(topic[grades >= level], minlength=n).astype(np.int64)
    positive = grades > 0
    topic, grades = topic[positive], grades[positive]
    order = np.lexsort((-grades, topic))  # by topic, each topic's grades highest first
    topic, grades = topic[order], grades[order]
    n_pos = np.bincount(topic, minlength=n).astype(np.int64)
    first = np.concatenate(([0], np.cumsum(n_pos)[:-1]))
    ideal = np.zeros((n, max(int(n_pos.max(initial=0)), 1)))
    ideal[topic, np.arange(len(topic)) - first[topic]] = grades
    g_max = ideal[:, 0].copy()
    return ideal, n_pos, totals, g_max
