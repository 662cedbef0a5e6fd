"""Scoring a batch of samples: the one path every engine takes (in this process, in a worker process, on a Ray
actor). :func:`score_batch` gives every family of a :class:`~genevals.engine.spec.RunSpec` its say on the batch
and keeps the outputs asked for; :func:`assemble` orders one sample's outputs as the spec selects them, whatever
order the families ran in (results.jsonl has always listed them so).
"""
from __future__ import annotations

import time
from concurrent.futures import Executor
from typing import Any, Mapping, Sequence

from genevals import registry
from genevals.engine import units
from genevals.metrics.base import CHEAP, Metric
from genevals.scored import Columns, ScoredBatch
from genevals.types import MetricResult, Sample, SampleResult


def _score_with(metric: Metric, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
    return metric.score(samples)


def family_results(sel: registry.Selected, samples: Sequence[Sample], pool: Executor | None = None,
                   workers: int = 1) -> Columns | list[dict[str, MetricResult]]:
    """One family's results for ``samples``, in columns where the metric keeps them; a cheap family's samples
    are split over ``pool``'s ``workers`` processes when there are enough of them."""
    if pool is not None and sel.metric.kind == CHEAP and len(samples) >= 2 * workers:
        parts = units.split(samples, workers)  # cut between conversations
        for part in parts:
            units.log_scheduled("worker share", part)
        return [r for part in pool.map(_score_with, [sel.metric] * len(parts), parts) for r in part]
    return sel.metric.score_columns(samples)


def score_batch(spec: Any, samples: Sequence[Sample], *, pool: Executor | None = None, workers: int = 1,
                cheap_seconds: list[float] | None = None) -> ScoredBatch:
    """Every family of ``spec`` (a :class:`~genevals.engine.spec.RunSpec`, or one stage of it:
    :meth:`~genevals.engine.spec.RunSpec.only`) scored on ``samples``, in input order, each sample's outputs in
    the selected order; adds the seconds the cheap families took to ``cheap_seconds[0]``."""
    parts = []
    for sel in spec.selected:
        started = time.perf_counter()
        parts.append((family_results(sel, samples, pool, workers), None if sel.outputs is None else sel.keep))
        if cheap_seconds is not None and sel.metric.kind == CHEAP:
            cheap_seconds[0] += time.perf_counter() - started
    return ScoredBatch(samples, parts)


def assemble(selected: Sequence[registry.Selected], sample: Sample,
             by_family: Mapping[str, Mapping[str, MetricResult]]) -> SampleResult:
    """One sample's result from each family's outputs (``by_family``: family -> outputs, kept ones only or
    all), in the selected families' order, keeping the outputs each was asked for."""
    result = SampleResult(sample=sample)
    for sel in selected:
        for name, value in by_family.get(sel.family, {}).items():
            if sel.keep(name):
                result.metrics[name] = value
    return result
