"""A judge provider whose verdicts depend on the request's seed, for judge repeats (``--judge-repeats``: repeat r
sends seed + r): the provider protocol's one method, so the real metrics, client, cache and parsing run on top.
"""
from __future__ import annotations

import json

from genevals.judge.protocol import Completion, Usage
from support.judge_scripts import claims_of

SENTENCES = ["Paris is in France.", "The Seine runs through Paris.", "Paris has ten million cats.", "Lyon is big."]


class BySeed:
    """A provider whose verify verdicts depend on the request's seed: ``labels(seed, claim text) -> label`` (an
    exception to raise instead, for a failing repeat). Decompose: one claim per sentence."""

    backend, base_url, model = "scripted", None, "by-seed"
    repeats_vary_at_zero = True

    def __init__(self, labels, sentences=SENTENCES):
        self.labels, self.sentences = labels, sentences
        self.requests: list[tuple[str, int, list[str]]] = []  # (kind, seed, claims in the order shown)

    async def complete(self, messages, schema, params):
        content = messages[0]["content"]
        if "Claims:" in content:
            claims = claims_of(messages)
            self.requests.append(("verify", params["seed"], list(claims.values())))
            verdicts = []
            for cid, text in claims.items():
                label = self.labels(params["seed"], text)
                if isinstance(label, BaseException):
                    raise label
                verdicts.append({"id": cid, "context": 1, "quote": "", "label": label, "reason": "r"})
            reply = {"verdicts": verdicts}
        else:
            self.requests.append(("decompose", params["seed"], []))
            reply = {"claims": [{"claim": s, "source": s} for s in self.sentences]}
        return Completion(text=json.dumps(reply), usage=Usage(10, 5))


def flips(seed, text):
    """Claim 3 is contradicted at seed 1 only; claim 4 unverifiable except at seed 2 (supported)."""
    if text.startswith("Paris has"):
        return "contradicted" if seed == 1 else "supported"
    if text.startswith("Lyon"):
        return "supported" if seed == 2 else "unverifiable"
    return "supported"
