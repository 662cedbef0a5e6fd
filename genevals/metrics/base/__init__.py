"""The metric protocol, sacrebleu-style: a small object with settings, a signature, and batch scoring.

Where each idea lives (every name is also importable from here, where callers have always found it):

* :mod:`~genevals.metrics.base.declarations`: what a metric declares as data: its kind and its outputs;
* :mod:`~genevals.metrics.base.metric`: :class:`Metric` (scoring, corpus statistics, language), :class:`Unscored`
  and ``@register``;
* :mod:`~genevals.metrics.base.concurrent`: the judge-backed metrics' coroutines (:class:`ConcurrentMetric`);
* :mod:`~genevals.metrics.base.cards`: a validation card as text.
"""
# _pattern and _FAMILIES too: the registry, the metric index and the tests read them here
from genevals.metrics.base.cards import card_lines
from genevals.metrics.base.concurrent import ConcurrentMetric, run_sync, usage_statistics
from genevals.metrics.base.declarations import CHEAP, DIRECTIONS, JUDGE, KINDS, MODEL, Output, _pattern  # noqa: F401
from genevals.metrics.base.metric import _FAMILIES, Emit, Metric, Unscored, register  # noqa: F401

__all__ = ["CHEAP", "DIRECTIONS", "JUDGE", "KINDS", "MODEL", "ConcurrentMetric", "Emit", "Metric", "Output", "Unscored",
           "card_lines", "register", "run_sync", "usage_statistics"]
