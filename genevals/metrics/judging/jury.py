"""A judge-backed metric scored by a jury (:class:`genevals.judge.jury.Jury`): the same metric built once per
judge (each with its own runtime: client, cache, limits, cost), run on every sample concurrently, and combined
by :mod:`genevals.metrics.judging.jury_votes`.

:func:`for_jury` builds it. The metric it returns *is* the family's metric (a subclass built on the fly, holding
the first judge's settings), so the engines, the recorder and the report treat it as the one metric it stands
for; its ``members`` are the judges' own instances.

Two ways to combine, chosen by the family:

- whole samples (the default, :class:`JuryScoring`): every judge scores the sample, and each output's value is
  the weighted mean of the judges that scored it, with each judge's value and the spread beside it;
- claims (faithfulness, :class:`ClaimJury`): the first judge splits the answer into claims once, every judge
  verifies those same claims, and each claim's verdict is the jury's weighted majority
  (:mod:`genevals.metrics.faithfulness.jury`).

A family that can do neither says so (``jury_support``, the reason): :func:`for_jury` refuses it rather than
quietly running one judge.
"""
from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from genevals import types
from genevals.metrics.judging import jury_votes
from genevals.metrics.judging.repeats import _summed
from genevals.types import MetricResult, Sample


class JuryUnsupported(ValueError):
    """A metric asked to run on a jury that it cannot combine."""


class ClaimJury:
    """What every jury metric has: its jury, its judges' instances, and the system figures from its statistics.
    Faithfulness scores with this mixin alone (its own scoring asks each member to verify)."""

    jury: Any
    members: Sequence[Any]

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, Any] | None:
        own = super().corpus_statistics(outputs)  # type: ignore[misc]
        extra = jury_statistics(outputs, self.jury.names)
        return {**(own or {}), **extra} if extra else own

    corpus_statistics.repeats = True  # type: ignore[attr-defined]  # the jury keeps each judge's repeats itself

    def corpus_from_statistics(self, totals: Mapping[str, Any]) -> dict[str, Any]:
        return super().corpus_from_statistics(jury_votes.split(totals)[0])  # type: ignore[misc]

    corpus_from_statistics.repeats = True  # type: ignore[attr-defined]

    def judge_jury(self, totals: Mapping[str, Any], seed: int) -> dict[str, Any] | None:
        """Output -> its jury figures for one system (:func:`jury_votes.summarise`)."""
        parts = jury_votes.split(totals)[1]
        return {name: jury_votes.summarise(p, self.jury.names, self.jury.weights, seed)
                for name, p in parts.items()} or None

    def signature(self) -> str:
        """The first judge's signature (its prompts, settings, language) and the jury: each judge's name, the
        model it was asked for (or answered with) and its weight, so a jury's run never reads as one judge's."""
        judges = "+".join(f"{j.name}={m.runtime.signature_settings()['model']}*{j.weight:g}"
                          for j, m in zip(self.jury.jurors, self.members))
        return f"{super().signature()}|jury:{judges}"  # type: ignore[misc]

    def finish_outputs(self, outputs: dict[str, Any], answered: set[str] | None, language: Any = None
                       ) -> dict[str, Any]:
        """As every judge metric's, and then with every judge's secrets taken out (the first judge's runtime
        finishes the outputs; another judge's key, decoded from its reply by a parser, is no secret of it)."""
        out = super().finish_outputs(outputs, answered, language)  # type: ignore[misc]
        redactor = self.jury.redactor
        return {name: replace(r, reason=redactor(r.reason), details=redactor.deep(r.details)) for name, r in out.items()}

    @property
    def concurrency(self) -> int:
        return sum(m.concurrency for m in self.members)

    @property
    def warning(self) -> str | None:
        notes = [f"{j.name}: {m.warning}" for j, m in zip(self.jury.jurors, self.members) if m.warning]
        return "; ".join(notes) or None


class JuryScoring(ClaimJury):
    """Whole-sample combination: every judge scores the sample (concurrently), then :func:`combine`."""

    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        per_judge = await asyncio.gather(*(m._score_safe(sample) for m in self.members))
        return combine(dict(zip(self.jury.names, per_judge)), self.jury.weights, getattr(self, "jury_items", None))


def for_jury(cls: type, jury: Any, options: Mapping[str, Any]) -> Any:
    """``cls`` (a judge-backed family) scored by ``jury``; :class:`JuryUnsupported` when it cannot combine."""
    support = getattr(cls, "jury_support", None)
    if support is None or support is False or isinstance(support, str):
        why = support if isinstance(support, str) else "it does not score through the shared judge plumbing"
        raise JuryUnsupported(f"metric '{cls.family}' cannot be judged by a jury: {why}; run it with one judge "
                              "(--judge-* options), or leave it out of this run")
    members = [cls(judge=j.config, **options) for j in jury.jurors]
    mixin = support if isinstance(support, type) else JuryScoring
    metric = object.__new__(_jury_class(cls, mixin))
    metric.__dict__.update(members[0].__dict__)  # the first judge's settings and runtime: its signature, claims
    metric.jury, metric.members = jury, members
    return metric


_CLASSES: dict[tuple[type, type], type] = {}


def _jury_class(cls: type, mixin: type) -> type:
    if (cls, mixin) not in _CLASSES:
        _CLASSES[cls, mixin] = type(f"{cls.__name__}Jury", (mixin, cls), {"__module__": cls.__module__})
    return _CLASSES[cls, mixin]


def combine(per_judge: Mapping[str, Mapping[str, MetricResult]], weights: Mapping[str, float],
            items: tuple[str, ...] | None = None) -> dict[str, MetricResult]:
    """One sample's outputs from each judge's (see :mod:`jury_votes`'s policy): an output no judge scored keeps
    the first judge's result (its status and reason), with each judge's status beside it. ``items`` (details key,
    label key[, id key]): the items every judge labels alike (context_relevance's chunks, by position; a
    conversation's turns, by their ``turn``), combined one by one."""
    names = list(per_judge)
    first = per_judge[names[0]]
    out: dict[str, MetricResult] = {}
    for output in first:
        results = {n: per_judge[n].get(output) for n in names}
        values = {n: (r.value if r is not None and r.status == types.OK else None) for n, r in results.items()}
        value = jury_votes.weighted_mean(values, weights)
        chosen = next((r for r in results.values() if r is not None and r.status == types.OK), first[output])
        details = dict(chosen.details)
        per_judge_repeats = {n: r.details["repeats"] for n, r in results.items()
                             if r is not None and isinstance(r.details.get("repeats"), Mapping)}
        details.pop("repeats", None)
        if per_judge_repeats:
            details["jury_repeats"] = per_judge_repeats
        usages = {n: r.details["usage"] for n, r in results.items()
                  if r is not None and isinstance(r.details.get("usage"), Mapping)}
        if usages:
            details["usage"], details["jury_usage"] = _summed(list(usages.values())), usages
        details["jury"], details["jury_spread"] = values, jury_votes.spread(values)
        statuses = {n: (r.status if r is not None else types.ERROR) for n, r in results.items()}
        if any(s != types.OK for s in statuses.values()):
            details["jury_statuses"] = statuses
            details["jury_reasons"] = {n: r.reason for n, r in results.items() if r is not None and r.reason}
        details["jury_policy"] = jury_votes.POLICY
        if items is not None and isinstance(details.get(items[0]), list):
            details["jury_items"] = _items(results, weights, items)
        out[output] = replace(chosen, value=value, details=details) if value is not None else \
            replace(chosen, details=details)
    return out


def _items(results: Mapping[str, MetricResult | None], weights: Mapping[str, float], items: tuple[str, ...]
           ) -> dict[str, Any]:
    """Each item's label per judge (None where the judge failed or gave none), the weighted majority (None on a
    tie) and its agreement: item by item in the first judge's order, or matched on the id key when there is one."""
    key, label = items[0], items[1]
    ident = items[2] if len(items) > 2 else None
    lists = {n: (r.details.get(key) if r is not None and r.status == types.OK else None) for n, r in results.items()}
    lists = {n: v if isinstance(v, list) else [] for n, v in lists.items()}
    if ident is None:
        ids: list[Any] = list(range(max(len(v) for v in lists.values())))
        found = {n: dict(enumerate(v)) for n, v in lists.items()}
    else:
        found = {n: {x.get(ident): x for x in v if isinstance(x, Mapping)} for n, v in lists.items()}
        ids = list(dict.fromkeys(i for by in found.values() for i in by))
    rows = []
    for i, unit in enumerate(ids):
        labels = {n: (by[unit].get(label) if isinstance(by.get(unit), Mapping) else None) for n, by in found.items()}
        chosen, agreement = jury_votes.majority(labels, weights, tie=None)
        rows.append({"index": i, **({ident: unit} if ident else {}), "jury": labels, "label": chosen,
                     "agreement": agreement})
    return {"unit": key, "label": label, "items": rows}


def jury_statistics(outputs: Mapping[str, MetricResult], names: Sequence[str]) -> dict[str, Any]:
    """The corpus statistics of one sample's jury outputs (see :func:`jury_votes.statistics`); a dry run's
    outputs give each judge's estimated cost only."""
    stats: dict[str, Any] = {}
    for name, result in outputs.items():
        usages = result.details.get("jury_usage") or {}
        costs = {n: (u.get("cost_usd") if u.get("cost_usd") is not None else u.get("estimated_cost_usd"))
                 for n, u in usages.items() if isinstance(u, Mapping)}
        values = result.details.get("jury")
        if result.status != types.OK or not isinstance(values, Mapping):
            stats.update({f"{jury_votes.PREFIX}{name}:cost|{n}": c for n, c in costs.items()
                          if isinstance(c, (int, float))})
            continue
        found = result.details.get("jury_items")
        unit = found.get("unit") if isinstance(found, Mapping) else None
        listed = found.get("items", ()) if isinstance(found, Mapping) else result.details.get("verdicts", ())
        units = [tuple(v.get("jury", {}).get(n) for n in names) for v in listed
                 if isinstance(v, Mapping) and isinstance(v.get("jury"), Mapping)]
        flips = {n: (int(r.get("unstable", 0)), int(r.get("units", 0)))
                 for n, r in (result.details.get("jury_repeats") or {}).items() if isinstance(r, Mapping)}
        stats.update(jury_votes.statistics(name, names, values, units, costs, flips, unit))
    return stats
