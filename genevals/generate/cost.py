"""The card's cost per kept item: what the judge calls spent (the generator's and the judge gates'), over the items
kept.

    total[x] = generator[x] + gates[x]
    per_kept_item[x] = total[x] / K      for x in requests, cached_requests, prompt_tokens, completion_tokens,
                                          cost_usd (only when the judge's price table prices the model)

``generator`` is :meth:`genevals.generate.llm.LLMGenerator.spent` and ``gates``
:meth:`genevals.generate.checks.Gatekeeper.spent`: the calls of this process (a resumed run counts those made
since it resumed, and says so; the judge's preflight probe, one request of one token, is not counted).
Where the gates counted nothing (None), the card says they are not counted and
the total is the generator's alone, rather than folding them in as 0. The offline generator and the rule gates
call nothing: every figure is 0, with a note that no call was made.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COUNTS = ("requests", "cached_requests", "prompt_tokens", "completion_tokens")
GATES_NOT_COUNTED = "the judge gates' calls are not counted (the gates counted no usage)"
NO_PRICE = "the judge's price table has no price for the model (--judge-prices FILE)"


def _not_measured(reason: str) -> dict[str, str]:
    return {"status": "not_measured", "reason": reason}


def _totals(spent: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: int(spent.get(k) or 0) for k in COUNTS}
    out["cost_usd"] = spent.get("cost_usd")
    return out


def _sum(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: a[k] + b[k] for k in COUNTS}
    # a price missing for either part leaves the sum unpriced, never priced at half
    out["cost_usd"] = None if a["cost_usd"] is None or b["cost_usd"] is None else a["cost_usd"] + b["cost_usd"]
    return out


def cost_figures(spent: Mapping[str, Any] | None, kept: int, offline: bool = False, resumed: bool = False,
                 gates: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The card's ``cost_per_kept_item`` from the generator's and the gates' ``spent()`` (None: not counted)."""
    if offline:
        total: dict[str, Any] = {**{k: 0 for k in COUNTS}, "cost_usd": 0.0}
        figures: dict[str, Any] = {"total": total, "note": "offline: no judge call was made"}
    elif spent is None:
        return _not_measured("the generator counts no usage")
    else:
        generator = _totals(spent)
        if gates is None:
            total = generator
            gate_figures: dict[str, Any] = _not_measured(GATES_NOT_COUNTED)
        else:
            gate_figures = _totals(gates)
            total = _sum(generator, gate_figures)
        figures = {"total": total, "generator": generator, "gates": gate_figures}
        if resumed:
            figures["scope"] = "the calls made since the run resumed (earlier processes' calls are not counted)"
    if kept == 0:
        figures["per_kept_item"] = _not_measured("no kept item")
        return figures
    per: dict[str, Any] = {k: total[k] / kept for k in COUNTS}
    per["cost_usd"] = total["cost_usd"] / kept if total["cost_usd"] is not None else _not_measured(NO_PRICE)
    figures["per_kept_item"] = {**per, "n": kept}
    return figures
