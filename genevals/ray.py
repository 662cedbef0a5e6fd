"""``genevals.ray.evaluate(dataset)``: score on a Ray cluster. See :mod:`genevals.ray_engine`.

This module is named ``ray`` inside the ``genevals`` package; absolute imports (Python 3) mean ``import ray``
elsewhere, including in :mod:`genevals.ray_engine`, still gets the real Ray package.
"""
from __future__ import annotations

from genevals.ray_engine import DEFAULT_JUDGE_CONCURRENCY, evaluate

__all__ = ["evaluate", "DEFAULT_JUDGE_CONCURRENCY"]
