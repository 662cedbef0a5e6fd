"""Metric name -> metric class, and the metric-name grammar, all read from the metrics' own declarations.

``@register`` (defined beside :class:`~genevals.metrics.base.Metric`) adds a metric class. The metrics of
``genevals.metrics`` are found by importing every module of that package and of its sub-packages once (metric
modules import their heavy libraries only when a metric is built, so this stays cheap); a metric defined
elsewhere registers when its module is imported. Resolving a name imports only the modules that
:mod:`genevals.metric_index` says register it (a retrieval-only run imports no judge), while that index matches
the installed modules; listing every family imports them all.

A name on the command line is a family ("rouge", "retrieval"), one of its outputs ("rougeL"), an output
template filled in ("recall@5" from "recall@{k}"), or a preset ("all"). Asking for an output builds its family
and keeps only the outputs asked for.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from genevals.language import LanguageSetting
from genevals.metrics.base import _FAMILIES, CHEAP, JUDGE, Metric, Output, card_lines, register

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


def _names(names: str | Sequence[str] | None) -> list[str]:
    """The metric names asked for: a list of names, or one string of comma-separated names as on the command
    line; None: the default preset. An empty list, an empty name or a name that is not a string is refused."""
    if names is None:
        return ["default"]
    if isinstance(names, str):
        names = [part.strip() for part in names.split(",")]
    try:
        names = list(names)
    except TypeError:
        raise UnknownMetric(f"metrics: expected a list of metric names, got {type(names).__name__}") from None
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise UnknownMetric(f"metrics: metric names must be non-empty strings, got {name!r} in {names!r}")
    if not names:
        raise UnknownMetric("metrics: no metric named (leave metrics out for the default set)")
    return names


def _check_option_families(options: Mapping[str, Any]) -> None:
    """Settings for a family no metric has would be silently unused: refuse them, with a did-you-mean."""
    from genevals.suggest import did_you_mean

    for family, settings in options.items():
        if not _is_family(family):
            known = [cls.family for cls in families()]
            raise UnknownMetric(f"options: unknown metric family '{family}'{did_you_mean(str(family), known)} "
                                f"(families: {', '.join(known)})")
        if not isinstance(settings, Mapping):
            raise UnknownMetric(f"options['{family}']: expected a mapping of settings, got {type(settings).__name__}")


def _check_declared(options: Mapping[str, Mapping[str, Any]], names: Sequence[str]) -> None:
    """Every family's settings against its declarations (:attr:`~genevals.metrics.base.Metric.SETTINGS`), before
    anything is built: a misspelt key gets a did-you-mean, a bad value the one checker's message. A family the run
    does not score is checked all the same (a max_claims of 0 would otherwise wait, unseen, for the run that uses
    it), and no metric is built just to check its settings."""
    from genevals.settings import check_all

    for family, settings in options.items():
        if not settings:  # nothing to check: the family's module (a judge's, with its client) stays unimported
            continue
        prefix = f"metric '{family}'" if family in names else f"options['{family}']"
        try:
            check_all(load_family(family).SETTINGS, settings)
        except ValueError as exc:
            raise UnknownMetric(f"{prefix}: {exc}") from None


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


@dataclass
class Selected:
    metric: Metric
    # None keeps every output of the family.
    outputs: frozenset[str] | None
    #: why this metric runs instead of the one asked for (the offline default), or None
    note: str | None = None

    @property
    def family(self) -> str:
        return self.metric.family

    def keep(self, name: str) -> bool:
        return self.outputs is None or name in self.outputs


def _build(cls: type[Metric], options: Mapping[str, Any], judge: Any) -> Metric:
    if cls.kind == JUDGE and judge is not None:
        from genevals.judge.jury import Jury

        if isinstance(judge, Jury):  # every judge scores; the metric combines them, or refuses to
            from genevals.metrics.judging.jury import for_jury

            return for_jury(cls, judge, options)
        return cls(judge=judge, **options)
    return cls(**options)


@dataclass(frozen=True)
class Resolved:
    """One family a run will score, before its metric object is built: the class (the offline alternative when
    the judge asked for is offline), the outputs kept (None: all), its settings and the note saying why an
    alternative runs."""

    cls: type[Metric]
    outputs: frozenset[str] | None
    options: Mapping[str, Any]
    note: str | None = None
    #: the family as asked for (differs from ``cls.family`` when an offline alternative stands in)
    asked: str = ""
    #: why a family a preset brought in is left out (an extra it needs is not installed); :func:`build` skips it
    missing: str | None = None

    @property
    def kind(self) -> str:
        return self.cls.kind


def resolve(names: Sequence[str] | None = None, options: Mapping[str, Mapping[str, Any]] | None = None,
            judge: Any = None) -> list[Resolved]:
    """What :func:`select` builds, without building it: every family ``names`` asks for (presets expanded,
    output names to their family, an offline judge to its offline alternative) with its settings checked.
    Knowing the kinds first lets a caller settle the judge (its model, its preflight) before the metrics are
    built once with it."""
    asked = _names(names)
    names = [n for name in asked for n in (preset(name) or (name,))]
    if options is not None and not isinstance(options, Mapping):
        raise UnknownMetric(f"options must be a mapping of family -> settings, got {type(options).__name__}")
    _check_option_families(options or {})
    options = {k: dict(v) for k, v in (options or {}).items()}
    _check_declared(options, names)
    found, unknown = [], []
    for name in names:
        try:
            found.append((name, *family_of(name)))
        except UnknownMetric:
            unknown.append(name)
    if unknown:
        raise _unknown_all(unknown)
    wanted: dict[str, set[str] | None] = {}
    for name, family, params in found:
        if name == family:
            wanted[family] = None
        elif wanted.get(family, set()) is not None:
            wanted.setdefault(family, set()).add(name)  # type: ignore[union-attr]
        if params:
            try:
                options[family] = load_family(family).widen(options.get(family, {}), params)
            except ValueError as exc:
                raise UnknownMetric(f"metric '{name}': {exc}") from None
    owners: dict[str, list[str]] = {}
    for family in wanted:
        owners.setdefault(load_family(family).writes_for or family, []).append(family)
    for together in owners.values():
        if len(together) > 1:
            raise UnknownMetric(f"choose one of {', '.join(together)}: they write the same outputs")
    named = {family for name, family, _ in found if name in asked}  # not brought in by a preset
    resolved, absent = [], []
    for family, outputs in wanted.items():
        cls, note, settings = load_family(family), None, options.get(family, {})
        if cls.kind == JUDGE and cls.offline_alternative and cls.offline(judge):
            alternative, note = cls.offline_alternative
            cls = load_family(alternative)
            # settings both variants take (context_relevance's k) carry over; the judge's alone do not
            shared = inspect.signature(cls).parameters
            settings = {k: v for k, v in settings.items() if k in shared}
        missing = _missing(family, cls)
        if missing is not None and family in named:
            absent.append(missing)
        resolved.append(Resolved(cls, frozenset(outputs) if outputs is not None else None, settings, note, family,
                                 missing))
    if absent:  # before anything is built or scored: what to install, for every metric named that needs it
        raise MissingExtra("; ".join(absent))
    if resolved and all(item.missing for item in resolved):
        raise MissingExtra("; ".join(item.missing for item in resolved if item.missing))
    return resolved


def _missing(family: str, cls: type[Metric]) -> str | None:
    """What to install for ``family`` (run as ``cls``, its offline alternative when they differ), else None."""
    missing = cls.missing()
    if missing is None or cls.family == family:
        return missing
    return (f"metric '{family}' with no judge configured runs its offline alternative, and {missing} (or "
            "configure an LLM judge: --judge-base-url)")


def left_out(resolved: Sequence[Resolved]) -> dict[str, str]:
    """Family -> why, for the families a preset brought in that :func:`build` leaves out (a missing extra)."""
    return {item.asked or item.cls.family: item.missing for item in resolved if item.missing}


def build(resolved: Sequence[Resolved], judge: Any = None, language: Any = None) -> list[Selected]:
    """The metric objects of :func:`resolve`'s families, each built once, with ``judge`` for the judged ones and
    the run's ``language`` (a :class:`~genevals.language.LanguageSetting`, or what it parses); those
    :func:`left_out` are skipped."""
    setting = LanguageSetting.parse(language)
    selected = []
    for item in resolved:
        if item.missing:
            continue
        try:
            metric = _build(item.cls, item.options, judge)
        except (ValueError, TypeError) as exc:
            raise UnknownMetric(f"metric '{item.asked or item.cls.family}': {exc}") from None
        metric.language = setting
        selected.append(Selected(metric, item.outputs, item.note))
    return selected


def select(names: Sequence[str] | None = None, options: Mapping[str, Mapping[str, Any]] | None = None,
           judge: Any = None) -> list[Selected]:
    """Build the metrics for ``names``; ``options[family]`` holds that family's settings and ``judge`` (a
    :class:`~genevals.judge.config.JudgeConfig`; None: the defaults) is handed to every judge-backed one."""
    return build(resolve(names, options, judge), judge)


def describe_all(family: str | None = None) -> list[tuple[str, str, Output, str]]:
    """(family, output name, its declaration, signature) for every metric that can be built here (``family``:
    that one only); the declaration's definition is the metric's own :meth:`~Metric.describe` (which may name
    its settings)."""
    rows = []
    for cls in families():
        if family is not None and cls.family != family:
            continue
        missing = cls.missing()
        if missing is not None:  # not built: building may import what is not installed
            rows.append((cls.family, cls.family, Output(cls.family, f"(unavailable: {missing})"), ""))
            continue
        try:
            metric = _build(cls, {}, None)
        except Exception as exc:  # an optional extra that is not installed: say so rather than hide it
            rows.append((cls.family, cls.family, Output(cls.family, f"(unavailable: {exc})"), ""))
            continue
        signature, described = metric.signature(), metric.describe()
        for name in metric.output_names():
            spec = metric.output(name) or Output(name, "")
            rows.append((cls.family, name, Output(name, described.get(name, spec.definition), spec.direction,
                                                   spec.range), signature))
    return rows


def declaration_of(name: str) -> dict[str, Any] | None:
    """One output's declaration as :func:`declarations` writes it, from the metrics installed now (None for a
    name no metric declares): for run folders written before outputs.json existed."""
    try:
        family, _params = family_of(name)
    except UnknownMetric:
        return None
    for cls in families():
        if (cls.writes_for or cls.family) == family:
            spec = cls.output(name)
            if spec is not None:
                found = cls.card() if name == cls.outputs[0].name else None
                card = {"card": found, "card_text": card_lines(found)} if found else {}
                return {"family": cls.family, "kind": cls.kind, **spec.to_dict(), **card}
    return None


def headlines(names: Sequence[str], requested: Sequence[str] = ()) -> set[str]:
    """The outputs among ``names`` (what a run computed) that the terminal table shows by default: each
    family's declared :attr:`~genevals.metrics.base.Metric.headline` outputs, and every output named in
    ``requested``. A headline template instance the run lacks ("recall@10" with cutoffs 1,3,5) is shown by the
    largest computed cutoff below it, else the smallest above; a family none of whose headlines it computed,
    and an output no installed metric declares, are shown whole."""
    shown = {name for name in names if name in set(requested)}
    by_family: dict[str, list[str]] = {}
    for name in names:
        try:
            by_family.setdefault(family_of(name)[0], []).append(name)
        except UnknownMetric:
            shown.add(name)
    for family, members in by_family.items():
        cls = load_family(family)
        chosen = [c for h in (cls.headline or ()) if (c := _nearest(cls, h, members)) is not None]
        shown.update(chosen if cls.headline is not None and chosen else members)
    return shown


def _nearest(cls: type[Metric], headline: str, members: Sequence[str]) -> str | None:
    """``headline`` if computed; for a template instance, the computed instance of its template nearest below
    its cutoff (else nearest above); None when the run has none."""
    if headline in members:
        return headline
    found = cls.match_output(headline)
    if found is None or "k" not in found[1]:
        return None
    spec, want = found[0], int(found[1]["k"])
    ks = {int(m[1]["k"]): name for name in members if (m := cls.match_output(name)) and m[0] == spec and "k" in m[1]}
    below = [k for k in ks if k <= want]
    return ks[max(below)] if below else (ks[min(ks)] if ks else None)


def declarations(selected: Sequence[Selected]) -> dict[str, dict[str, Any]]:
    """Output name -> {family, definition, direction, range, kind} for the outputs a run writes: what the
    report reads (it never imports a metric)."""
    out: dict[str, dict[str, Any]] = {}
    for sel in selected:
        for name in sel.metric.output_names():
            spec = sel.metric.output(name)
            if sel.keep(name) and spec is not None:
                out[name] = {"family": sel.family, "kind": sel.metric.kind, **spec.to_dict(),
                             **sel.metric.output_facts(name)}
    return out


__all__ = ["register", "select", "families", "load_family", "family_of", "preset", "Selected", "UnknownMetric",
           "MissingExtra", "left_out",
           "known_names", "headlines",
           "describe_all", "declarations", "CHEAP"]
