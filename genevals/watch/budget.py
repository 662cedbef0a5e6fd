"""Per-window caps on judge calls (``--max-judge-calls``) and on judge cost (``--max-cost``): what a trace is
estimated to cost, on which basis, and whether the window still has room for it.

A trace's estimate ``(calls, cost)`` comes from one of two bases, named in every ``over_budget`` reason:

- ``measured``: once a window has been scored, the judge usage its ``summary.json`` records, per trace, over
  every scored window so far: :math:`\\hat c = \\sum_w C_w / \\sum_w T_w` and :math:`\\hat n = \\sum_w N_w /
  \\sum_w T_w`, where :math:`C_w` is the sum of the corpus's ``*judge_cost_usd`` entries (each judge metric's
  priced tokens: :math:`p/1000 \\cdot \\text{input\\_per\\_1k} + q/1000 \\cdot \\text{output\\_per\\_1k}`),
  :math:`N_w` the sum of its ``*judge_requests`` (cache hits cost nothing and are not counted) and :math:`T_w`
  the traces the window scored (``meta.watch.traces``; a session's carried turns are part of what a trace costs);
- ``dry-run``: before any window has been scored, the judge's own dry run of that trace (what ``genevals run
  --dry-run`` prices): each judge metric's ``estimated_requests`` as it declares them (faithfulness: decompose and
  verify, 2 a trace), and ``estimated_cost_usd`` from the price table (``--judge-prices``) at about 4 characters a
  token.

A window admits a trace when :math:`S + e \\le \\text{cap}` for both caps, where :math:`S` is the sum of the
estimates of the traces it admitted. ``--max-cost`` is refused at start when the price table does not price the
judge's model (:func:`price_problem`): a cap on what cannot be priced would never bind.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class Estimate:
    """What one trace is expected to cost: ``calls`` judge requests and ``cost`` US dollars (None: not priced),
    on ``basis`` (said in the decision log's reason)."""

    calls: float
    cost: float | None
    basis: str


@dataclass(frozen=True)
class Spent:
    """The estimates a window has admitted so far, summed."""

    calls: float = 0.0
    cost: float = 0.0

    def __add__(self, other: Estimate) -> "Spent":
        return Spent(self.calls + other.calls, self.cost + (other.cost or 0.0))


def price_problem(judge: Any) -> str | None:
    """Why ``--max-cost`` cannot be honoured with ``judge`` (no judge, a local model, a model the price table
    leaves out), else None."""
    if judge is None:
        return "no judge is configured, so there is no judge cost to cap"
    jurors = getattr(judge, "jurors", None)
    for member in (jurors or [judge]):
        member = getattr(member, "config", member)  # a juror carries its judge's config
        model = getattr(member, "model", None)
        prices = getattr(member, "prices", None) or {}
        if not model:
            return ("the judge's model is not named (--judge-model), so the price table cannot price it; "
                    "name the model and give its price in --judge-prices")
        if model not in prices:
            listed = ", ".join(sorted(prices)) or "none"
            return (f"--judge-prices has no price for the judge's model {model!r} (models priced: {listed}); "
                    "a cost that cannot be priced cannot be capped")
    return None


def admit(spent: Spent, estimate: Estimate, max_calls: int | None, max_cost: float | None,
          window: int) -> str | None:
    """The ``over_budget`` reason when admitting ``estimate`` would pass a cap of ``window``, else None."""
    if max_calls is not None and spent.calls + estimate.calls > max_calls + 1e-9:
        return (f"window {window} has {spent.calls:g} of --max-judge-calls {max_calls} estimated judge calls; this "
                f"trace would add {estimate.calls:g} ({estimate.basis})")
    if max_cost is not None:
        if estimate.cost is None:
            return f"--max-cost {max_cost:g}: this trace's judge cost could not be estimated ({estimate.basis})"
        if spent.cost + estimate.cost > max_cost + 1e-12:
            return (f"window {window} has ${spent.cost:.6f} of --max-cost ${max_cost:g} estimated; this trace would "
                    f"add ${estimate.cost:.6f} ({estimate.basis})")
    return None


def measured(windows: Path) -> Estimate | None:
    """The measured basis over the scored windows' summaries in ``windows`` (None: no window scored a trace)."""
    calls = cost = 0.0
    traces = 0
    priced = True
    for summary_path in sorted(windows.glob("[0-9][0-9][0-9][0-9]/summary.json")):
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
            count = int(summary["meta"]["watch"]["traces"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a window being written, or not one of ours: no measurement
        used = usage(summary)
        calls += used["requests"]
        if used["cost_usd"] is None:
            priced = False
        else:
            cost += used["cost_usd"]
        traces += count
    if traces == 0:
        return None
    return Estimate(calls / traces, cost / traces if priced else None,
                    f"measured: {calls:g} judge calls and ${cost:.6f} over {traces} traces of the scored windows"
                    if priced else f"measured: {calls:g} judge calls over {traces} traces; the cost was not priced")


def usage(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The judge requests and cost a run's summary records: every judge metric's ``*judge_requests`` and
    ``*judge_cost_usd`` corpus entries summed over systems (``cost_usd`` None when a metric made requests and its
    cost was not priced)."""
    requests = cost = 0.0
    unpriced = False
    for stats in (summary.get("corpus") or {}).values():
        if not isinstance(stats, Mapping):
            continue
        for key, value in stats.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or "estimated" in key:
                continue
            if key.endswith("judge_requests"):
                requests += value
                if value and f"{key[:-len('requests')]}cost_usd" not in stats:
                    unpriced = True
            elif key.endswith("judge_cost_usd"):
                cost += value
    return {"requests": requests, "cost_usd": None if unpriced else cost}


def dry_run(staging: Path, lines: Mapping[int, str], metrics: Iterable[str], judge: Any,
            options: Any) -> dict[str, Estimate]:
    """trace -> its dry-run estimate: the traces written to ``staging`` (line -> trace) scored by
    :func:`genevals.evaluate` with the judge's ``dry_run`` (no call is made), each sample's judge metrics'
    ``estimated_requests`` and ``estimated_cost_usd`` summed. A trace the reader refuses costs no call."""
    import genevals
    from genevals.input.traces import TraceSource

    results = genevals.evaluate(TraceSource(staging, "openinference"), list(metrics), judge=judge.with_options(
        dry_run=True, cache=False), options=options, on_error="skip", history=False, report=False)
    calls: dict[str, float] = defaultdict(float)
    costs: dict[str, float | None] = defaultdict(float)
    for result in results:
        trace = result.sample.id
        seen: set[int] = set()
        for outcome in result.metrics.values():
            found = (outcome.details or {}).get("usage") or {}
            if "estimated_requests" not in found or id(found) in seen:
                continue  # a metric's estimate is on one of its outputs
            seen.add(id(found))
            calls[trace] += found["estimated_requests"]
            price = found.get("estimated_cost_usd")
            costs[trace] = None if price is None or costs[trace] is None else costs[trace] + price
    out = {}
    for trace in lines.values():
        if trace in calls:
            cost = costs[trace]
            out[trace] = Estimate(calls[trace], cost, f"dry-run: the judge's estimate for this trace, "
                                  f"{calls[trace]:g} calls" + (" (not priced)" if cost is None else
                                                               f" and ${cost:.6f} from the price table"))
        else:
            out[trace] = Estimate(0.0, 0.0, "dry-run: the trace reader refuses this trace, so it makes no call")
    return out
