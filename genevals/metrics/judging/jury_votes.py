"""How a jury's verdicts combine, and how far its judges agree: per unit (a claim, or a sample's score), per
sample and per system.

Policy (:data:`POLICY`, written into each sample's details):

- A claim's verdict is the label with the most weight among the judges that answered (each judge's label is
  its own majority over its ``--judge-repeats``); a tie goes to ``unverifiable``, as it does between repeats. Its
  ``agreement`` is the weight that gave that label / the weight of the judges that answered. A judge that failed
  (judge or parse error) casts no vote.
- Any other judge output's value is the weighted mean of the values of the judges that scored it. Where the
  metric's items are the same for every judge (context_relevance's chunks, a conversation's turns:
  ``jury_items``), each item keeps every judge's label, the weighted majority (a tie: none) and the agreement
  (``details["jury_items"]``), and the kappas are computed over those items.
- Per sample: each judge's value (``details["jury"]``) and ``jury_spread`` = max - min.
- Per system (:func:`summarise`): Fleiss' kappa over the units every judge labelled, Cohen's kappa for each pair
  of judges over the units both labelled (claims; scores are no labels, so outputs without claims get none), the
  disagreement rate (units whose answering judges do not all agree / units with two or more answers), each
  judge's mean and cost, and ``ci95_jury``: the two-stage bootstrap over samples and then judges
  (:func:`genevals.stats.bootstrap_repeats_ci`) around the mean over judges.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from genevals import types
from genevals.metrics.judging.repeats import Scores, split_prefixed

POLICY = ("weighted majority of the judges that answered (a tie is unverifiable; a failed judge casts no vote); "
          "other outputs: the weighted mean of the judges that scored")
#: the corpus statistics' keys: "jury:OUTPUT:PART"
PREFIX = "jury:"


def normalised(weights: Mapping[str, float], names: Iterable[str]) -> dict[str, float]:
    """Each of ``names``' weight divided by the largest of them (a judge not in ``weights`` weighs 1): weights are
    relative, so this changes no verdict, and every weighted sum below adds numbers of at most 1 per judge.
    Without it a weight of 5e-324 times a value rounds to a subnormal (0.7 x 5e-324 = 5e-324) and two weights
    near the float's maximum overflow their sum to infinity (NaN in results.jsonl)."""
    raw = {name: float(weights.get(name, 1.0)) for name in names}
    largest = max((w for w in raw.values() if math.isfinite(w) and w > 0), default=1.0)
    return {name: (w / largest if math.isfinite(w) and w > 0 else 0.0) for name, w in raw.items()}


def _votes(labels: Mapping[str, str | None], weights: Mapping[str, float]) -> dict[str, float]:
    """label -> its share of the answering judges' weight: w_l = fsum(w_j / max w : label_j = l) / fsum(w_j / max w)."""
    answered = {name: label for name, label in labels.items() if label is not None}
    scale = normalised(weights, answered)
    per_label: dict[str, list[float]] = {}
    for name, label in answered.items():
        per_label.setdefault(label, []).append(scale[name])
    total = math.fsum(scale.values())
    if not total:
        return {}
    return {label: math.fsum(parts) / total for label, parts in per_label.items()}


def majority(labels: Mapping[str, str | None], weights: Mapping[str, float],
             tie: str | None = types.UNVERIFIABLE) -> tuple[Any, float]:
    """(the label with the most weight among the judges that answered, its share of their weight); a tie, or no
    answer, is ``tie`` (unverifiable for a claim; None, no majority, for another item)."""
    votes = _votes(labels, weights)
    if not votes:
        return tie, 0.0
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    top, share = ranked[0]
    if len(ranked) > 1 and abs(ranked[1][1] - share) < 1e-12:  # shares: a relative tolerance
        return tie, share
    return top, share


def tied(labels: Mapping[str, str | None], weights: Mapping[str, float]) -> bool:
    """Whether the two labels with the most weight have the same weight (the verdict is then unverifiable)."""
    top = sorted(_votes(labels, weights).values(), reverse=True)
    return len(top) > 1 and abs(top[0] - top[1]) < 1e-12


def weighted_mean(values: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    r"""$\bar v = \sum_j \hat w_j v_j$ with $\hat w_j = w_j / \sum_k w_k$ over the judges that scored, each value
    divided by the largest magnitude first and multiplied back after (``math.fsum``): finite for any finite
    values and weights, and the same for weights (1, 1) as for (5e-324, 5e-324)."""
    scored = {name: float(v) for name, v in values.items() if v is not None}
    if not scored:
        return None
    scale = normalised(weights, scored)
    total = math.fsum(scale.values())
    if not total:
        return None
    big = max(abs(v) for v in scored.values())
    if not math.isfinite(big):
        return None
    if big == 0.0:
        return 0.0
    mean = math.fsum((v / big) * (scale[name] / total) for name, v in scored.items())
    return min(max(mean, -1.0), 1.0) * big


def spread(values: Mapping[str, Any]) -> float | None:
    scored = [v for v in values.values() if isinstance(v, (int, float))]
    if not scored:
        return None
    width = max(scored) - min(scored)
    return width if math.isfinite(width) else None  # two values near the float's limits: no width to write


def _mean(values: Sequence[float]) -> float | None:
    """The mean, summed exactly (``math.fsum``) after dividing by the count: finite for any finite values."""
    mean = math.fsum(v / len(values) for v in values)
    return mean if math.isfinite(mean) else None


def split_units(labels: Sequence[Sequence[Any]]) -> int:
    """How many units the answering judges did not all agree on."""
    return sum(len({x for x in unit if x is not None}) > 1 for unit in labels)


def statistics(name: str, names: Sequence[str], values: Mapping[str, float | None],
               units: Sequence[Sequence[str | None]] = (), costs: Mapping[str, float | None] | None = None,
               flips: Mapping[str, tuple[int, int]] | None = None, unit: str | None = None) -> dict[str, Any]:
    """One sample's corpus statistics for output ``name``: each judge's value (in ``names`` order), the labelled
    units (each a tuple of the judges' labels), each judge's cost and its repeats' (unstable, units)."""
    key = f"{PREFIX}{name}:"
    stats: dict[str, Any] = {key + "values": Scores([tuple(values.get(n) for n in names)]), key + "samples": 1}
    if units:
        stats[key + "units"] = Scores([tuple(u) for u in units])
    if unit:
        stats[key + "unit_name"] = Unit(unit)
    for judge, cost in (costs or {}).items():
        if isinstance(cost, (int, float)):
            stats[f"{key}cost|{judge}"] = cost
    for judge, (unstable, count) in (flips or {}).items():
        stats[f"{key}unstable|{judge}"] = unstable
        stats[f"{key}flip_units|{judge}"] = count
    return stats


class Unit(str):
    """The items' name (``chunks``) as a corpus statistic: summing keeps it."""

    def __add__(self, other: Any) -> "Unit":  # type: ignore[override]
        return self

    __radd__ = __add__


def split(totals: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(the totals without the jury's statistics, output -> its jury statistics)."""
    return split_prefixed(totals, PREFIX, last=False)


def _kappas(names: Sequence[str], units: Sequence[Sequence[str | None]]) -> dict[str, Any]:
    from genevals.stats.agreement import cohen_kappa, fleiss_kappa  # numpy: not at import (genevals --help)

    complete = [u for u in units if all(x is not None for x in u)]
    pairwise = {}
    for (i, a), (j, b) in combinations(enumerate(names), 2):
        both = [(u[i], u[j]) for u in units if u[i] is not None and u[j] is not None]
        pairwise[f"{a}|{b}"] = cohen_kappa([x for x, _ in both], [y for _, y in both]) if both else None
    answered = [u for u in units if sum(x is not None for x in u) >= 2]
    return {"fleiss_kappa": fleiss_kappa(complete) if complete else None, "pairwise_kappa": pairwise,
            "kappa_units": len(complete), "units": len(units), "split_units": split_units(answered),
            "disagreement_rate": split_units(answered) / len(answered) if answered else None}


def summarise(parts: Mapping[str, Any], names: Sequence[str], weights: Mapping[str, float],
              seed: int | None = None) -> dict[str, Any]:
    """One system's jury figures for one output (see the policy above) from its summed statistics."""
    rows = [tuple(r) for r in parts.get("values", ())]
    per_judge = {n: [r[i] for r in rows if i < len(r) and r[i] is not None] for i, n in enumerate(names)}
    out: dict[str, Any] = {"judges": list(names), "weights": dict(weights), "samples": int(parts.get("samples", 0)),
                           "judge_means": {n: (_mean(v) if v else None) for n, v in per_judge.items()}}
    units = [tuple(u) for u in parts.get("units", ())]
    if units:
        out.update(_kappas(names, units), unit="claims")
    else:
        answered = [r for r in rows if sum(x is not None for x in r) >= 2]
        out.update(unit="samples", fleiss_kappa=None, pairwise_kappa={},
                   kappa_note="scores, not labels: see the disagreement rate and spread",
                   disagreement_rate=split_units(answered) / len(answered) if answered else None)
    spreads = [max(x for x in r if x is not None) - min(x for x in r if x is not None)
               for r in rows if any(x is not None for x in r)]
    out["mean_spread"] = sum(spreads) / len(spreads) if spreads else None
    scored = [[x for x in r if x is not None] for r in rows]
    scored = [r for r in scored if r]
    from genevals.stats import DEFAULT_SEED, bootstrap_repeats_ci

    ci = bootstrap_repeats_ci(scored, seed=DEFAULT_SEED if seed is None else seed) if scored else None
    out["mean_over_judges"] = _mean([_mean(r) for r in scored]) if scored else None
    out["ci95_jury"] = list(ci) if ci is not None else None
    costs = {k.split("|", 1)[1]: v for k, v in parts.items() if k.startswith("cost|")}
    out["cost"] = {n: costs.get(n) for n in names}
    flips = {n: (parts.get(f"unstable|{n}"), parts.get(f"flip_units|{n}")) for n in names}
    if any(count for _, count in flips.values()):
        out["flip_rate"] = {n: (u / c if c else None) for n, (u, c) in flips.items()}
    if parts.get("unit_name"):
        out["unit"] = str(parts["unit_name"])
    out["policy"] = POLICY
    return out
