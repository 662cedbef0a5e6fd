"""What the metrics declare, read for the people and files that show them: ``genevals metrics``' listing, the
declarations outputs.json keeps (the report reads them and never imports a metric), and the outputs the terminal
table shows by default (each family's headlines)."""
from __future__ import annotations

from typing import Any, Sequence

from genevals.metrics.base import Metric, Output, card_lines
from genevals.registry.names import UnknownMetric, families, family_of, load_family
from genevals.registry.resolving import Selected, _build


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
