"""The metric families and what a metric name denotes: a family ("rouge", "retrieval"), one of its outputs
("rougeL"), an output template filled in ("recall@5" from "recall@{k}"), or a preset ("all").

The metrics of ``genevals.metrics`` are found by importing every module of that package and of its sub-packages
once (metric modules import their heavy libraries only when a metric is built, so this stays cheap); a metric
defined elsewhere registers when its module is imported. Resolving a name imports only the modules that
:mod:`genevals.metric_index` says register it (a retrieval-only run imports no judge), while that index matches
the installed modules; listing every family imports them all.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Sequence

from genevals.metrics.base import _FAMILIES, Metric

_DISCOVERED = False


class UnknownMetric(ValueError):
    pass


class MissingExtra(UnknownMetric):
    """A metric named in the run needs an extra that is not installed (``pip install 'genevals[semantic]'``)."""


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    import genevals.metrics as package

    # Every module at every depth: the families live in sub-packages (lexical/, triad/, ...), and a metric saved
    # as genevals/metrics/NAME.py is found as well. walk_packages imports each sub-package to look inside it.
    for module in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
        importlib.import_module(module.name)
    _DISCOVERED = True


def _load_for(name: str) -> None:
    """Register every family ``name`` may denote (a family, a preset, an output): the indexed modules that
    declare it when :mod:`genevals.metric_index` is usable, else every metric module."""
    if _DISCOVERED:
        return
    from genevals import metric_index

    if metric_index.usable():
        metric_index.load(metric_index.modules_for(name))
    else:
        _discover()


def _is_family(name: Any) -> bool:
    """Whether a family is named ``name``, importing nothing when the index knows it."""
    if name in _FAMILIES:
        return True
    if isinstance(name, str) and not _DISCOVERED:
        from genevals import metric_index

        if metric_index.usable():
            return name in metric_index.families()
    _discover()
    return name in _FAMILIES


def _loaded() -> list[type[Metric]]:
    """The families registered so far, in listing order."""
    return sorted(_FAMILIES.values(), key=lambda cls: (cls.order, cls.family))


def families() -> list[type[Metric]]:
    """Every registered metric class, in listing order."""
    _discover()
    return sorted(_FAMILIES.values(), key=lambda cls: (cls.order, cls.family))


def known_names() -> list[str]:
    """Every name a user may write without a placeholder: families, presets and plain outputs (templates as
    their ``{k}`` form is written, e.g. "recall@5"), for did-you-mean suggestions."""
    names: set[str] = set()
    for cls in families():
        names.add(cls.family)
        names.update(cls.presets)
        for spec in cls.outputs:
            names.add(spec.name.replace("{k}", "5") if spec.is_template else spec.name)
    return sorted(n for n in names if "{" not in n)


def _unknown(name: str) -> UnknownMetric:
    return _unknown_all([name])


def _unknown_all(names: Sequence[str]) -> UnknownMetric:
    """One error naming every unknown metric name, each with its did-you-mean."""
    from genevals.suggest import closest, did_you_mean

    known = known_names()
    if len(names) == 1:
        return UnknownMetric(f"unknown metric '{names[0]}'{did_you_mean(names[0], known)} "
                             "(run `genevals metrics` for the list)")
    listed = []
    for name in names:
        found = closest(name, known)
        listed.append(f"'{name}'" + (f" (did you mean '{found}'?)" if found else ""))
    return UnknownMetric(f"unknown metrics {', '.join(listed)} (run `genevals metrics` for the list)")


def load_family(family: str) -> type[Metric]:
    if family not in _FAMILIES:
        _load_for(family)
    try:
        return _FAMILIES[family]
    except KeyError:
        raise _unknown(family) from None


def preset(name: str) -> tuple[str, ...]:
    """The families of a preset ("default", "all"), in listing order; () for a name that is not one."""
    if not _DISCOVERED:
        from genevals import metric_index

        if metric_index.usable():  # from the index, importing nothing (the run command's help names "default")
            found = set(metric_index.preset(name))
            found.update((cls.order, cls.family) for cls in _FAMILIES.values() if name in cls.presets)
            return tuple(family for _, family in sorted(found))
    return tuple(cls.family for cls in families() if name in cls.presets)


def family_of(name: str) -> tuple[str, dict[str, str]]:
    """The family a metric name belongs to, and the placeholder values it names (e.g. {"k": "5"})."""
    if name in _FAMILIES:
        return name, {}
    _load_for(name)
    if name in _FAMILIES:
        return name, {}
    for cls in _loaded():
        found = cls.match_output(name)
        if found is not None:
            return cls.writes_for or cls.family, found[1]
    raise _unknown(name)
