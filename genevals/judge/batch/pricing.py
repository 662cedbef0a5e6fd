"""What a batch call costs: the price table's price less the provider's batch discount.

cost = (prompt_tokens / 1000 * input_per_1k + completion_tokens / 1000 * output_per_1k) * (1 - d)

``d`` is the model's ``batch_discount`` in the price table (``--judge-prices``: 0 to 1, 0.5 = half off) when it
has one, else the discount the provider publishes for its own API (:data:`PUBLISHED`: OpenAI's batch calls cost
half, platform.openai.com/docs/guides/batch), else unknown: the full price is shown, and
:func:`discount` says so rather than guess (another server's batch endpoint may cost anything).
"""
from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlsplit

#: host -> the share of the price its batch calls save, as published
PUBLISHED = {"api.openai.com": 0.5}


def discount(model: str, prices: Mapping[str, Mapping[str, float]] | None,
             base_url: str | None) -> tuple[float | None, str]:
    """(d, where it comes from), or (None, why it is unknown) for ``model`` served at ``base_url``."""
    from genevals.judge.backends.openai_compatible import DEFAULT_BASE_URL
    from genevals.judge.config import public_url

    price: Any = (prices or {}).get(model) or {}
    if "batch_discount" in price:
        return float(price["batch_discount"]), f"batch_discount {price['batch_discount']:g} of {model} in --judge-prices"
    url = base_url or DEFAULT_BASE_URL
    host = urlsplit(url).hostname or ""
    if host in PUBLISHED:
        return PUBLISHED[host], f"{host}'s published batch discount, {PUBLISHED[host]:.0%}"
    return None, (f"the batch discount of {public_url(url) or url} is unknown: costs are shown at the full price "
                  f'(add "batch_discount": D to {model}\'s entry in --judge-prices)')


def factor(model: str, prices: Mapping[str, Mapping[str, float]] | None, base_url: str | None) -> float:
    """1 - d, or 1 when d is unknown."""
    d = discount(model, prices, base_url)[0]
    return 1.0 if d is None else 1.0 - d
