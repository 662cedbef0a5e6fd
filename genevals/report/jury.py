"""A system's jury figures (summary meta ``jury``: kappas, disagreement, cost per judge), cleaned for the page;
each verdict's and sample's jury parts are cleaned with the rest of the claims (:mod:`genevals.report.clean`)."""
from __future__ import annotations

from typing import Any, Mapping

from genevals.report.clean import interval, num, per_output, text, whole


def page_jury(value: Any) -> dict[str, dict[str, Any]] | None:
    """Output -> its jury figures for one system, or None when the run had no jury."""
    return per_output(value, _figures)


def _figures(j: Mapping[str, Any]) -> dict[str, Any]:
    pairs = j.get("pairwise_kappa") if isinstance(j.get("pairwise_kappa"), Mapping) else {}
    costs = j.get("cost") if isinstance(j.get("cost"), Mapping) else {}
    return {
        "judges": [text(n) for n in j.get("judges") or () if isinstance(n, str)],
        "unit": text(j.get("unit")), "samples": whole(j.get("samples")) or 0,
        "fleiss": num(j.get("fleiss_kappa")), "pairs": {text(k): num(v) for k, v in pairs.items()},
        "rate": num(j.get("disagreement_rate")), "split": whole(j.get("split_units")),
        "units": whole(j.get("units")), "mean": num(j.get("mean_over_judges")), "ci": interval(j.get("ci95_jury")),
        "cost": {text(k): num(v) for k, v in costs.items()}, "policy": text(j.get("policy"))}
