"""Faithfulness by a jury: one decomposition (the first judge's), every judge verifies the same claims, one
weighted-majority verdict per claim (:func:`genevals.metrics.judging.jury_votes.majority`: a tie is
unverifiable, a failed judge casts no vote).

Each judge verifies with its own client, cache and limits, concurrently with the others, and with its own
``--judge-repeats`` (judges x repeats: a judge's label is its majority over its repeats,
:mod:`genevals.metrics.faithfulness.repeated`). Each verdict keeps every judge's label (``jury``) and the
``agreement`` (weight that gave the majority / weight that answered); the sample keeps each judge's
faithfulness (``details["jury"]``), their spread, each judge's usage and cost (the first judge's includes the
decomposition) and, with repeats, each judge's repeats. The sample is unscored only when every judge failed.
"""
from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from genevals import types
from genevals.judge.client import CallLog
from genevals.judge.protocol import estimate_tokens
from genevals.metrics.faithfulness import repeated
from genevals.metrics.faithfulness.verdicts import scored_outputs
from genevals.metrics.judging import jury_votes
from genevals.metrics.judging.repeats import _summed
from genevals.types import Claim, Sample, Verdict


@dataclass(frozen=True)
class Verified:
    """The combined verdicts (claim order), issues, the details to add, and the first failure (status, reason)
    when no judge could verify."""

    verdicts: list[Verdict]
    issues: list[str]
    details: dict[str, Any]
    failure: tuple[str, str] | None


async def _one(member: Any, sample: Sample, located: list[Claim], unscored: type[Exception]):
    """(verdicts by claim index or None, issues, failure or None, repeats info or None, log) of one judge."""
    log = CallLog()
    try:
        if member.runtime.repeats > 1:
            got = await repeated.verify_repeats(lambda order: member._verify(sample, order, log), located,
                                                member.runtime.repeats, member.judge.seed, sample.id, unscored)
            if got.failure is not None:
                return None, got.issues, got.failure, got.info, log
            return {v.claim_index: v for v in got.verdicts}, got.issues, None, got.info, log
        verdicts, issues, parsed = await member._verify(sample, located, log)
        if not parsed:
            return None, issues, (types.PARSE_ERROR, "no verdict could be read from the verify replies"), None, log
        return {v.claim_index: v for v in verdicts}, issues, None, None, log
    except unscored as exc:
        return None, [], (exc.status, exc.reason), None, log  # type: ignore[attr-defined]
    finally:
        member.runtime.add_total(log.usage)


def _split_reason(labels: Mapping[str, str | None]) -> str:
    said = ", ".join(f"{name} {label}" for name, label in labels.items() if label is not None)
    return f"the jury split ({said}); a tie counts as unverifiable"


async def verify_jury(members: Sequence[Any], names: Sequence[str], weights: Mapping[str, float], sample: Sample,
                      located: list[Claim], decompose_usage: Mapping[str, Any], unscored: type[Exception]
                      ) -> Verified:
    """Every judge (``members``, one faithfulness metric each) verifies ``located``; combine their verdicts."""
    runs = await asyncio.gather(*(_one(m, sample, located, unscored) for m in members))
    got = dict(zip(names, runs))
    issues = [f"{name}: {issue}" for name, run in got.items() for issue in run[1]]
    values: dict[str, float | None] = {}
    for name, (verdicts, *_rest) in got.items():
        values[name] = None if verdicts is None else sum(
            1 for c in located if verdicts[c.index].label == types.SUPPORTED and not verdicts[c.index].missing
        ) / len(located)
    combined = []
    for claim in located:
        labels = {name: (None if run[0] is None else run[0][claim.index].label) for name, run in got.items()}
        label, agreement = jury_votes.majority(labels, weights)
        chosen = None if jury_votes.tied(labels, weights) else next(
            (run[0][claim.index] for run in runs if run[0] is not None and run[0][claim.index].label == label), None)
        if chosen is None:
            chosen = Verdict(claim.index, types.UNVERIFIABLE, reason=_split_reason(labels))
        combined.append(replace(chosen, repeats=(), agreement=agreement, jury=labels))
    usages = {name: dict(member.runtime.usage_dict(run[4].usage)) for name, member, run in zip(names, members, runs)}
    usages[names[0]] = _summed([usages[names[0]], decompose_usage])  # the first judge also decomposed
    details: dict[str, Any] = {"jury": values, "jury_spread": jury_votes.spread(values), "jury_usage": usages,
                               "usage": _summed(list(usages.values())), "jury_policy": jury_votes.POLICY,
                               "jury_judges": [{"name": n, "weight": weights.get(n, 1.0), **m.runtime.judge_info()}
                                               for n, m in zip(names, members)]}
    repeats = {name: run[3] for name, run in got.items() if run[3] is not None}
    if repeats:
        details["jury_repeats"] = repeats
    failures = {name: run[2] for name, run in got.items() if run[2] is not None}
    if failures:
        details["jury_statuses"] = {name: (failures[name][0] if name in failures else types.OK) for name in names}
        details["jury_reasons"] = {name: f[1] for name, f in failures.items()}
        issues += [f"{name}: {f[0]}: {f[1]}" for name, f in failures.items()]
    first_failure = next(iter(failures.values())) if len(failures) == len(names) else None
    return Verified(combined, issues, details, first_failure)


async def score(metric: Any, sample: Sample, located: list[Claim], log: CallLog, issues: list[str],
                claim_dicts: list[dict[str, Any]], invented: list[dict[str, Any]], unscored: Any) -> dict[str, Any]:
    """The faithfulness outputs of ``metric`` (a jury's faithfulness, holding the first judge's runtime, which
    decomposed into ``located`` with ``log``): every judge verifies, the verdicts combine."""
    got = await verify_jury(metric.members, metric.jury.names, metric.jury.weights, sample, located,
                            metric.runtime.usage_dict(log.usage), unscored)
    if got.failure is not None:
        raise unscored(got.failure[0], f"every judge of the jury failed; the first: {got.failure[1]}",
                       claims=claim_dicts, invented_claims=invented, issues=issues + got.issues, **got.details)
    return scored_outputs(located, got.verdicts, {"issues": issues + got.issues, "invented_claims": invented,
                                                  **metric.judge_details(log), **got.details})


def estimate(metric: Any, sample: Sample) -> tuple[str, dict[str, Any]]:
    """A dry run's estimate for every judge: each verifies (with its own repeats and prices), the first also
    decomposes. Each judge's estimate is in ``jury_usage``, the sum in ``usage``."""
    per_judge, first = {}, None
    for name, member in zip(metric.jury.names, metric.members):
        _reason, details = member._estimate(sample)
        usage = dict(details["usage"])
        if first is not None:  # only the first judge decomposes: take its decomposition out of the others'
            prompt = estimate_tokens(metric._decompose_prompt(sample)), estimate_tokens(sample.answer)
            usage["estimated_requests"] -= 1
            usage["estimated_prompt_tokens"] -= prompt[0]
            usage["estimated_completion_tokens"] -= prompt[1]
            usage["estimated_cost_usd"] = member.runtime.cost(usage["estimated_prompt_tokens"],
                                                              usage["estimated_completion_tokens"])
        first = first or name
        per_judge[name] = usage
    total = _summed(list(per_judge.values()))
    costs = [u.get("estimated_cost_usd") for u in per_judge.values()]
    priced = ", ".join(f"{n} ${u['estimated_cost_usd']:.4f}" if u.get("estimated_cost_usd") is not None
                       else f"{n} (no price)" for n, u in per_judge.items())
    reason = (f"dry run: no judge calls; a jury of {len(per_judge)}: about {total['estimated_prompt_tokens']} "
              f"prompt + {total['estimated_completion_tokens']} completion tokens in {total['estimated_requests']} "
              f"request(s); {priced}")
    if any(c is None for c in costs):
        total["estimated_cost_usd"] = None
    return reason, {"usage": total, "jury_usage": per_judge}
