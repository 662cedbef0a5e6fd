"""What the judge metrics read of their prompts beyond rendering them (:mod:`genevals.prompt_render`): the JSON
schemas the replies must follow, the claims of decompose.md's worked example, the numbered claims a verify prompt
lists and the numbered passages of the RAG and citation judges.
"""
from __future__ import annotations

import functools
import json
import re
from typing import Any, Mapping

from genevals.prompt_render import load
from genevals.types import Sample

@functools.lru_cache(maxsize=None)
def example_claims() -> tuple[str, ...]:
    """The claims of the worked example in decompose.md; a claim copied from it is never the answer's."""
    text = load("decompose")
    claims: list[str] = []
    for m in re.finditer(r'\{"claims"', text):
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[m.start():])
        except json.JSONDecodeError:
            continue
        for item in obj.get("claims", []):
            if isinstance(item, dict) and item.get("claim") and item["claim"] != "...":
                claims.append(item["claim"])
                if item.get("source") and item["source"] != "...":
                    claims.append(item["source"])
    return tuple(claims)


def decompose_schema(max_claims: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"claims": {
            "type": "array", "maxItems": max_claims,
            "items": {"type": "object",
                      "properties": {"claim": {"type": "string", "maxLength": 400},
                                     "source": {"type": "string", "maxLength": 400}},
                      "required": ["claim", "source"], "additionalProperties": False},
        }},
        "required": ["claims"], "additionalProperties": False,
    }


def verify_schema(n_claims: int, n_contexts: int, history: bool = False) -> dict[str, Any]:
    """The verify reply's schema; with ``history`` (a conversation's turn) the label may also be
    ``from_history``."""
    return {
        "type": "object",
        "properties": {"verdicts": {
            "type": "array", "maxItems": max(1, n_claims),
            "items": {"type": "object",
                      "properties": {"id": {"type": "integer"},
                                     "context": {"type": "integer"},
                                     "quote": {"type": "string", "maxLength": 400},
                                     "label": {"type": "string",
                                               "enum": ["supported", "contradicted", "unverifiable"]
                                               + (["from_history"] if history else [])},
                                     "reason": {"type": "string", "maxLength": 300}},
                      "required": ["id", "context", "quote", "label", "reason"],
                      "additionalProperties": False},
        }},
        "required": ["verdicts"], "additionalProperties": False,
    }


def rubric_schema(criteria: list[str]) -> dict[str, Any]:
    entry = {"type": "object",
             "properties": {"reason": {"type": "string", "maxLength": 300},
                            "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
             "required": ["reason", "score"], "additionalProperties": False}
    return {
        "type": "object",
        "properties": {"scores": {"type": "object", "properties": {c: entry for c in criteria},
                                  "required": list(criteria), "additionalProperties": False}},
        "required": ["scores"], "additionalProperties": False,
    }


def format_claims(claims: Mapping[int, str]) -> str:
    return "\n".join(f"{i}. {text}" for i, text in claims.items())


def numbered_contexts(sample: Sample, budget_chars: int) -> tuple[str, bool]:
    """The sample's passages numbered [1], [2], ... in retrieval order, each cut to an equal share of
    ``budget_chars``; and whether any was cut (the RAG judges' and the citation judge's prompts list them so)."""
    n = max(1, len(sample.contexts))
    each = max(200, budget_chars // n)
    parts, truncated = [], False
    for i, ctx in enumerate(sample.contexts):
        text = ctx.text.strip() or "(empty)"
        if len(text) > each:
            text, truncated = text[:each] + " ...", True
        parts.append(f"[{i + 1}] {text}")
    return "\n\n".join(parts), truncated
