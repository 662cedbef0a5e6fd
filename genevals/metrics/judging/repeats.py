"""Repeated judging (``--judge-repeats N``, ``JudgeConfig(repeats=N)``): the policy that combines N verdicts,
and the statistics that show how far the judge moves between identical requests.

Repeat r makes the same requests with seed ``seed + r`` (:data:`genevals.judge.runtime.REPEAT`), so each has its
own cache key; faithfulness decomposes once and verifies N times with the claims shuffled
(:mod:`genevals.metrics.faithfulness.repeated`); every other judge metric is scored N times whole.

Policy (:data:`POLICY`, written into each sample's ``details["repeats"]``):

- A claim's verdict is the label most repeats gave; a tie goes to ``unverifiable``. Its ``agreement`` is
  votes for that label / repeats that answered. A failed repeat (judge or parse error) is no verdict: it is
  left out of the vote and its status kept.
- Any other judge output's value is the median of the values of the repeats that scored it (for 3 repeats of a
  1-5 rubric: the score two agree on, else the middle one).
- Per sample: ``values`` (each repeat's score, None where it failed), their ``mean`` and ``spread`` =
  max - min.
- Per run and system (:func:`summarise`): the **flip rate** = unstable / units, where a unit is a claim
  (faithfulness) or a sample (other outputs) and it is unstable when its answering repeats do not all agree; the
  mean per-sample spread; and ``ci95_judge``, the two-stage bootstrap over samples and then repeats
  (:func:`genevals.stats.bootstrap_repeats_ci`) around the mean over repeats, beside the usual interval of the
  majority scores.
"""
from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from genevals import types
from genevals.judge.runtime import REPEAT
from genevals.types import MetricResult

POLICY = ("majority over the repeats that answered (a tie is unverifiable; a failed repeat is no verdict); "
          "other outputs: the median of the scored repeats")
#: the corpus statistics' keys: "repeats:OUTPUT:PART"
PREFIX = "repeats:"


async def in_repeat(r: int, make: Callable[[], Awaitable[Any]]) -> Any:
    """``await make()`` as repeat r: its requests send seed ``seed + r``. Run it as its own task (gather) so
    the repeat index stays with its calls."""
    token = REPEAT.set(r)
    try:
        return await make()
    finally:
        REPEAT.reset(token)


def majority(labels: Sequence[str | None]) -> tuple[str, float]:
    """(the label most of the answering repeats gave, its share of them); a tie, or no answer, is unverifiable."""
    votes = Counter(label for label in labels if label is not None)
    if not votes:
        return types.UNVERIFIABLE, 0.0
    ranked = votes.most_common()
    top, count = ranked[0]
    if len(ranked) > 1 and ranked[1][1] == count:
        return types.UNVERIFIABLE, count / sum(votes.values())
    return top, count / sum(votes.values())


def sample_repeats(values: Sequence[float | None], statuses: Sequence[str], *, unit: str, units: int,
                   unstable: int) -> dict[str, Any]:
    """``details["repeats"]`` of one sample: each repeat's score and status, their mean and spread, and how
    many of its units (claims, or the sample itself) the repeats disagreed on."""
    scored = [v for v in values if v is not None]
    return {"n": len(values), "statuses": list(statuses), "values": list(values),
            "mean": sum(scored) / len(scored) if scored else None,
            "spread": max(scored) - min(scored) if scored else None,
            "unit": unit, "units": units, "unstable": unstable, "policy": POLICY}


def combine(per_repeat: Sequence[Mapping[str, MetricResult]]) -> dict[str, MetricResult]:
    """One metric's outputs from its N scorings of a sample (see the policy above). An output no repeat
    scored keeps the first repeat's result (its status and reason), with the repeats' statuses beside it."""
    out: dict[str, MetricResult] = {}
    for name in per_repeat[0]:
        results = [outputs[name] for outputs in per_repeat if name in outputs]
        values = [r.value if r.status == types.OK else None for r in results]
        statuses = [r.status for r in results]
        scored = [v for v in values if v is not None]
        chosen = results[0]
        if scored:
            middle = statistics.median(scored)
            chosen = min((r for r in results if r.status == types.OK), key=lambda r: abs(r.value - middle))
            chosen = replace(chosen, value=middle)
        details = dict(chosen.details)
        usages = [r.details.get("usage") for r in results if isinstance(r.details.get("usage"), Mapping)]
        if usages:
            details["usage"] = _summed(usages)
        info = sample_repeats(values, statuses, unit="sample", units=1 if scored else 0,
                              unstable=int(len(set(scored)) > 1))
        failures = [{"repeat": k, "status": r.status, "reason": r.reason} for k, r in enumerate(results)
                    if r.status != types.OK]
        if failures:
            info["failures"] = failures
        details["repeats"] = info
        out[name] = replace(chosen, details=details)
    return out


def _summed(usages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Usage records added key by key (None stays None where every repeat had none: a cost without a price)."""
    total: dict[str, Any] = {}
    for usage in usages:
        for key, value in usage.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] = (total.get(key) or 0) + value
            else:
                total.setdefault(key, value)
    return total


def scaled_estimate(outputs: Mapping[str, MetricResult], n: int) -> dict[str, MetricResult]:
    """A dry run's outputs with the estimate for N repeats: every ``estimated_*`` figure times N."""
    out = {}
    for name, result in outputs.items():
        details = dict(result.details)
        usage = details.get("usage")
        if isinstance(usage, Mapping):
            details["usage"] = {k: (v * n if k.startswith("estimated_") and isinstance(v, (int, float))
                                    and not isinstance(v, bool) else v) for k, v in usage.items()}
        reason = f"{result.reason} x {n} judge repeats" if result.reason else result.reason
        out[name] = replace(result, reason=reason, details=details)
    return out


class Scores(list):
    """Each sample's scores over its repeats, as one corpus statistic: corpus statistics are summed per system
    (``Counter.update``, which computes ``new + total``), and these add up by joining, into the total."""

    def __add__(self, other: Any) -> Scores:  # type: ignore[override]
        if isinstance(other, int) and other == 0:
            return self
        other.extend(self)
        return other

    __radd__ = __add__


def statistics_of(outputs: Mapping[str, MetricResult]) -> dict[str, Any]:
    """The corpus statistics of one sample's repeats, per output with ``details["repeats"]`` and a value."""
    stats: dict[str, Any] = {}
    for name, result in outputs.items():
        info = result.details.get("repeats") if result.status == types.OK else None
        if not isinstance(info, Mapping):
            continue
        scored = [v for v in info.get("values", ()) if v is not None]
        key = f"{PREFIX}{name}:"
        stats.update({key + "scores": Scores([tuple(scored)]), key + "units": info.get("units", 0),
                      key + "unstable": info.get("unstable", 0), key + "spread": info.get("spread") or 0.0,
                      key + "samples": 1, key + "n": info.get("n", 0),
                      key + "failed": sum(1 for s in info.get("statuses", ()) if s != types.OK),
                      key + ("unit_" + str(info.get("unit", "sample"))): 1})
    return stats


def split(totals: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(the totals without the repeats' statistics, output -> its repeats' statistics)."""
    return split_prefixed(totals, PREFIX, last=True)


def split_prefixed(totals: Mapping[str, Any], prefix: str,
                   last: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(the totals without the keys ``prefix + output + ":" + part``, output -> {part: value} of those keys), the
    part read after the last ":" (``last``: the repeats' parts hold none) or after the first (the jury's parts
    hold judges' names, which may). The repeats and the jury keep their statistics among the others so."""
    rest: dict[str, Any] = {}
    found: dict[str, dict[str, Any]] = {}
    for key, value in totals.items():
        if key.startswith(prefix):
            tail = key[len(prefix):]
            name, part = tail.rsplit(":", 1) if last else tail.split(":", 1)
            found.setdefault(name, {})[part] = value
        else:
            rest[key] = value
    return rest, found


def summarise(parts: Mapping[str, Any], seed: int | None = None) -> dict[str, Any]:
    """One system's figures for one output (see the policy above) from its summed statistics."""
    samples = int(parts.get("samples", 0))
    units, unstable = int(parts.get("units", 0)), int(parts.get("unstable", 0))
    scores = [row for row in parts.get("scores", ()) if row]
    means = [sum(row) / len(row) for row in scores]
    from genevals.stats import DEFAULT_SEED, bootstrap_repeats_ci  # numpy: not at import (genevals --help)

    ci = bootstrap_repeats_ci(scores, seed=DEFAULT_SEED if seed is None else seed) if scores else None
    return {"repeats": round(parts.get("n", 0) / samples) if samples else None,
            "unit": "claims" if parts.get("unit_claims") else "samples",
            "flip_rate": unstable / units if units else None, "unstable": unstable, "units": units,
            "mean_spread": parts.get("spread", 0.0) / samples if samples else None,
            "mean_over_repeats": sum(means) / len(means) if means else None,
            "ci95_judge": list(ci) if ci is not None else None,
            "samples": samples, "failed_repeats": int(parts.get("failed", 0)), "policy": POLICY}
