"""Engines: one run said once (:class:`~genevals.engine.spec.RunSpec`), planned (read, validate and prepare in
one pass), scored here or on Ray through one path (:func:`~genevals.engine.scoring.score_batch`), recorded.

    spec.py      RunSpec: the input, the metrics built once, options, judge, engine settings, output
    plan.py      the pass over the input before scoring, and the start of a run (resume included)
    spool.py     the validated samples, held for the scoring pass
    units.py     a conversation is one unit of work: grouped once, packed whole into chunks that keep its sizes
    scoring.py   score_batch: every family of a spec on a batch of samples
    course.py    a run's course on every engine: start, score blocks (the engine's Scoring), finish or withdraw
    local.py     the local engine and its strategies (chunked, pipelined on worker processes, streamed judge)
    pipeline.py  worker processes that score and write whole chunks
    ray.py       the Ray engine (a cluster, or a local Ray)
    trec_columnar.py  TREC files (and plain retrieval rows) scored from columns, the same run folder
    recorder.py  where scored samples go: results.jsonl, the summary, corpus statistics, judge failures
"""
from __future__ import annotations

from typing import Any, Callable


def run(spec: Any, progress: Callable[[int, int], None] | None = None) -> Any:
    """Score ``spec`` on the engine its settings name (:class:`~genevals.engine.spec.RaySettings`: Ray; else
    the local engine) and return its :class:`~genevals.output.results.Results`."""
    from genevals.engine.spec import RaySettings

    if isinstance(spec.engine, RaySettings):
        from genevals.engine import ray

        return ray.run(spec, progress)
    from genevals.engine import local

    return local.run(spec, progress)
