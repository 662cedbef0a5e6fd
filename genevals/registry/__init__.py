"""Metric name -> metric class, and the metric-name grammar, all read from the metrics' own declarations.

``@register`` (defined beside :class:`~genevals.metrics.base.Metric`) adds a metric class. Where each idea lives
(every name is also importable from here, where callers have always found it):

* :mod:`~genevals.registry.names`: the families found and what a name denotes (a family, an output, a filled-in
  template, a preset), importing only the modules :mod:`genevals.metric_index` names;
* :mod:`~genevals.registry.resolving`: a run's metric list resolved (settings checked, offline alternatives,
  missing extras) and built;
* :mod:`~genevals.registry.describing`: the declarations read for listings, outputs.json and the terminal table.
"""
from __future__ import annotations

from typing import Any

from genevals.metrics.base import CHEAP, JUDGE, Metric, Output, card_lines, register  # noqa: F401
from genevals.registry import names as _names_module
from genevals.registry.describing import declaration_of, declarations, describe_all, headlines  # noqa: F401
from genevals.registry.names import (MissingExtra, UnknownMetric, _discover, family_of, families,  # noqa: F401
                                     known_names, load_family, preset)
from genevals.registry.resolving import Resolved, Selected, build, left_out, resolve, select  # noqa: F401


def __getattr__(name: str) -> Any:
    # names.py sets its flag once every metric module is imported: read it there, live, not as a copy taken here
    if name == "_DISCOVERED":
        return _names_module._DISCOVERED
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["register", "select", "families", "load_family", "family_of", "preset", "Selected", "UnknownMetric",
           "MissingExtra", "left_out",
           "known_names", "headlines",
           "describe_all", "declarations", "CHEAP"]
