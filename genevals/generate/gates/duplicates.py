"""``duplicate``: the question is neither the same as nor nearly the same as one already kept in this set or in
an earlier set.

Questions are compared in a normal form: NFKC, case-folded, every run of characters that are not letters,
marks or digits made one space, trimmed (so "What is X?" and "what is  x" are one question). A follow-up's
earlier turns are part of what it asks, so they are prefixed to its question.

- exact: the sha256 of the normal forms are equal;
- near: rapidfuzz's normalised Indel similarity ``fuzz.ratio(a, b) = 100 * (1 - Indel(a, b) / (|a| + |b|))``
  (the Indel distance counts the insertions and deletions turning one into the other) is at least
  :attr:`~genevals.generate.gates.context.GateSettings.near_duplicate` (90: one changed word in a ten-word
  question; "Who designed the Varn Bridge" against "Who built the Varn Bridge" is 79.2: a longest common subsequence of
  21 characters of 28 and 25, Indel 28 + 25 - 2 * 21 = 11, 100 * (1 - 11 / 53); kept).
"""
from __future__ import annotations

import functools
import hashlib
import unicodedata
from typing import Sequence

import regex
from rapidfuzz import fuzz, process

from genevals.generate.gates.context import GateContext
from genevals.generate.gates.outcome import Outcome, passed
from genevals.generate.items import Item
from genevals.quote import clip

NAME = "duplicate"
_NON_WORD = regex.compile(r"[^\p{L}\p{M}\p{N}]+")


def normal(item: Item) -> str:
    """The question's normal form (a follow-up's earlier turns first)."""
    turns = [t["content"] for t in item.turns if isinstance(t, dict) and isinstance(t.get("content"), str)]
    return _normal(" ".join([*turns, item.question]))


@functools.lru_cache(maxsize=65536)
def _normal(text: str) -> str:
    # every kept item is compared with every new one: each is normalised once
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def digest(item: Item) -> str:
    return _digest(normal(item))


@functools.lru_cache(maxsize=65536)
def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check(item: Item, ctx: GateContext, kept: Sequence[Item]) -> Outcome:
    mine, key = normal(item), digest(item)
    # ids are a set's own (every set has a g00000): only this set's item itself is left out
    pools = (("this set", [o for o in kept if o.id != item.id]), ("an earlier set", ctx.earlier))
    for where, pool in pools:
        for other in pool:
            if digest(other) == key:
                return Outcome(NAME, f"the same question as item {other.id} of {where}")
    threshold = ctx.settings.near_duplicate
    for where, pool in pools:
        others = list(pool)
        best = process.extractOne(mine, [normal(o) for o in others], scorer=fuzz.ratio, score_cutoff=threshold)
        if best is not None:
            _, score, at = best
            return Outcome(NAME, f"nearly the question of item {others[at].id} of {where} "
                                 f"(similarity {score:.1f} >= {threshold:g}): {clip(others[at].question, 80)!r}")
    return passed(f"no question of this set ({len(kept)}) or earlier sets ({len(ctx.earlier)}) "
                  f"at similarity {threshold:g} or more")
