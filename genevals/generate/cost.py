"""The card's cost per kept item: what the generator's judge calls spent, over the items kept.

    per_kept_item[x] = total[x] / K    for x in requests, cached_requests, prompt_tokens, completion_tokens,
                                        cost_usd (only when the judge's price table prices the model)

``total`` is :meth:`genevals.generate.llm.LLMGenerator.spent` (the calls of this process: a resumed run counts
those made since it resumed, and says so). The judge gates' calls are not in it: the gates do not expose their
usage, and the card says they are not counted rather than folding them in as 0. The offline generator calls
nothing: its figures are 0 with a note that no call was made.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

COUNTS = ("requests", "cached_requests", "prompt_tokens", "completion_tokens")
GATES_NOT_COUNTED = "the judge gates' calls are not counted (the gates do not expose their usage)"


def _not_measured(reason: str) -> dict[str, str]:
    return {"status": "not_measured", "reason": reason}


def cost_figures(spent: Mapping[str, Any] | None, kept: int, offline: bool = False,
                 resumed: bool = False) -> dict[str, Any]:
    """The card's ``cost_per_kept_item`` from the generator's ``spent()`` (None: it counts nothing)."""
    if offline:
        total: dict[str, Any] = {**{k: 0 for k in COUNTS}, "cost_usd": 0.0}
        figures: dict[str, Any] = {"total": total, "note": "offline: no judge call was made"}
    elif spent is None:
        return _not_measured("the generator counts no usage")
    else:
        total = {k: int(spent.get(k) or 0) for k in COUNTS}
        total["cost_usd"] = spent.get("cost_usd")
        figures = {"total": total, "gates": _not_measured(GATES_NOT_COUNTED)}
        if resumed:
            figures["scope"] = "the calls made since the run resumed (earlier processes' calls are not counted)"
    if kept == 0:
        figures["per_kept_item"] = _not_measured("no kept item")
        return figures
    per: dict[str, Any] = {k: total[k] / kept for k in COUNTS}
    per["cost_usd"] = (total["cost_usd"] / kept if total["cost_usd"] is not None
                       else _not_measured("the judge's price table has no price for the model (--judge-prices FILE)"))
    figures["per_kept_item"] = {**per, "n": kept}
    return figures
