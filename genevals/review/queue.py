r"""The review queue: which answers to review, drawn so the reviewed ones measure the judge on the whole run.

Reviewers who open what looks interesting label mostly the answers where the judge is unsure or split, where
it is wrong most often; the accuracy computed from those labels is too low. The queue draws instead:

* **Strata.** Every answer of the run with at least one claim is in one stratum ``VERDICT/TIER``: ``VERDICT``
  is the judge's (``flagged``: some claim not supported; ``clean``: every claim supported); ``TIER`` is
  ``disputed`` (some claim's jury judges, or repeats, gave different labels), else ``uncertain`` (some verdict's
  confidence below :data:`UNCERTAIN_BELOW`, or the answer's faithfulness strictly between 0 and 1: supported
  and unsupported claims side by side), else ``settled``.
* **Allocation.** :math:`n_h \propto N_h w_h` with :data:`TIER_WEIGHTS` (informative strata oversampled), at
  least :data:`MIN_PER_STRATUM` per stratum (two give the bootstrap a spread), at most :math:`N_h`; rounded by
  largest remainder so :math:`\sum_h n_h = n`.
* **Draw.** A simple random sample of :math:`n_h` answers in each stratum (``numpy.random.default_rng(seed)``),
  so each answer's inclusion probability is :math:`\pi_i = n_h / N_h`; :mod:`genevals.validation.weighted`
  turns the labels back into run-level figures with these.
* **Order.** Disputed strata first, then uncertain, then settled; flagged before clean within a tier; within a
  stratum the random draw's order. Never by a score inside a stratum: a reviewer who stops early then leaves
  whole strata unreviewed (which ``validate`` names), not a biased part of one.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

#: how much more often an answer of each tier is drawn than a settled one
TIER_WEIGHTS = {"disputed": 4.0, "uncertain": 2.0, "settled": 1.0}
TIERS = tuple(TIER_WEIGHTS)
#: a verdict whose ``confidence`` score is below this makes its answer uncertain
UNCERTAIN_BELOW = 0.75
MIN_PER_STRATUM = 2
VERDICTS = ("flagged", "clean")


@dataclass(frozen=True)
class Entry:
    """One drawn answer: its place in the queue, stratum, inclusion probability, and its stratum's size and
    sample count."""
    position: int
    system: str
    sample_id: str
    stratum: str
    inclusion_probability: float
    stratum_size: int
    stratum_drawn: int


def _distinct(labels: Iterable[Any]) -> int:
    return len({v for v in labels if v is not None})


def stratum_of(verdicts: Iterable[Mapping[str, Any]], faithfulness: float | None) -> str | None:
    """``VERDICT/TIER`` of an answer from its raw verdict dicts (as results.jsonl holds them: ``label``,
    optional ``jury`` {judge: label}, ``repeats`` [label], ``confidence``); None for an answer without one."""
    verdicts = [v for v in verdicts if isinstance(v, Mapping)]
    if not verdicts:
        return None
    flagged = any(v.get("label") != "supported" for v in verdicts)
    disputed = any((isinstance(v.get("jury"), Mapping) and _distinct(v["jury"].values()) > 1)
                   or (isinstance(v.get("repeats"), list) and _distinct(v["repeats"]) > 1) for v in verdicts)
    confidences = [v["confidence"] for v in verdicts
                   if isinstance(v.get("confidence"), (int, float)) and not isinstance(v.get("confidence"), bool)]
    mixed = isinstance(faithfulness, (int, float)) and 0.0 < faithfulness < 1.0
    tier = ("disputed" if disputed else "uncertain" if mixed or any(c < UNCERTAIN_BELOW for c in confidences)
            else "settled")
    return f"{'flagged' if flagged else 'clean'}/{tier}"


def _rank(stratum: str) -> tuple[int, int]:
    verdict, _, tier = stratum.partition("/")
    return (TIERS.index(tier) if tier in TIERS else len(TIERS), VERDICTS.index(verdict) if verdict in VERDICTS else 2)


def allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    r""":math:`n_h` for each stratum: proportional to :math:`N_h w_h`, at least ``min(MIN_PER_STRATUM, N_h)``,
    at most :math:`N_h`, summing to ``min(n, N)`` (largest remainders; ties to the more informative stratum)."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    out = {h: min(MIN_PER_STRATUM, size) for h, size in sizes.items()}
    if sum(out.values()) >= n:  # more strata than draws: the most informative get theirs first
        out, left = {h: 0 for h in sizes}, n
        for h in sorted(sizes, key=_rank):
            out[h] = min(MIN_PER_STRATUM, sizes[h], left)
            left -= out[h]
        return out
    # Proportional shares of what is left, capped at each stratum's room; what a cap frees goes round again.
    while (left := n - sum(out.values())) > 0:
        open_ = {h: sizes[h] * TIER_WEIGHTS.get(h.partition("/")[2], 1.0) for h in sizes if out[h] < sizes[h]}
        weight = sum(open_.values())
        shares = {h: left * w / weight for h, w in open_.items()}
        add = {h: min(int(s), sizes[h] - out[h]) for h, s in shares.items()}
        if not any(add.values()):  # the remainders: one each, largest first
            for h in sorted(shares, key=lambda h: (-(shares[h] - int(shares[h])), _rank(h)))[:left]:
                add[h] = 1
        for h, a in add.items():
            out[h] += a
    return out


def draw(strata: Mapping[tuple[str, str], str], n: int, seed: int) -> list[Entry]:
    """The queue of ``n`` answers (all, when the run has fewer) from ``strata``: (system, sample id) ->
    stratum, for every answer of the run that can be reviewed; in review order."""
    members: dict[str, list[tuple[str, str]]] = {}
    for key in sorted(strata):  # sorted: the same run and seed draw the same queue
        members.setdefault(strata[key], []).append(key)
    counts = allocate({h: len(keys) for h, keys in members.items()}, n)
    rng = np.random.default_rng(seed)
    out: list[Entry] = []
    for h in sorted(members, key=_rank):
        keys, k = members[h], counts[h]
        if not k:
            continue
        for i in rng.permutation(len(keys))[:k]:
            system, sample_id = keys[int(i)]
            out.append(Entry(len(out), system, sample_id, h, k / len(keys), len(keys), k))
    return out
