"""A run's metric list, resolved and built: names and presets to families, each family's settings checked against
its declarations, an offline alternative where the judge asked for is offline, a missing extra said before
anything is scored; then each metric object built once, with the judge and the run's language. Asking for an
output builds its family and keeps only the outputs asked for."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from genevals.language import LanguageSetting
from genevals.metrics.base import JUDGE, Metric
from genevals.registry.names import (MissingExtra, UnknownMetric, _is_family, _unknown_all, families, family_of,
                                     load_family, preset)


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
            standing_in = dict(cls.offline_settings)
            cls = load_family(alternative)
            # settings both variants take (context_relevance's k) carry over; the judge's alone do not
            shared = {setting.name for setting in cls.SETTINGS}
            settings = {**standing_in, **{k: v for k, v in settings.items() if k in shared}}
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

