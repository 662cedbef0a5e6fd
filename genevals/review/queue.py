r"""The review queue: which answers to review, drawn so the reviewed ones measure the judge on the whole run.

Reviewers who open what looks interesting label mostly the answers where the judge is unsure or split, where
it is wrong most often; the accuracy computed from those labels is too low. The queue draws instead:

* **Strata.** Every answer of the run with at least one claim is in one stratum ``VERDICT/TIER``: ``VERDICT``
  is the judge's (``flagged``: some claim not supported; ``clean``: every claim supported); ``TIER`` is
  ``disputed`` (some claim's jury judges, or repeats, gave different labels), else ``uncertain`` (some verdict's
  confidence below :data:`UNCERTAIN_BELOW`, or the answer's faithfulness strictly between 0 and 1: supported
  and unsupported claims side by side), else ``settled``.
* **Allocation.** :math:`n_h \propto N_h w_h` with :data:`TIER_WEIGHTS` (informative strata oversampled), at
  least :data:`MIN_PER_STRATUM` per stratum (two give the bootstrap a spread; with fewer to give, one each
  first), at most :math:`N_h`; rounded by
  largest remainder so :math:`\sum_h n_h = n`.
* **Draw.** A simple random sample of :math:`n_h` answers in each stratum (``numpy.random.default_rng(seed)``),
  so each answer's inclusion probability is :math:`\pi_i = n_h / N_h`; :mod:`genevals.validation.weighted`
  turns the labels back into run-level figures with these.
* **Order.** Disputed strata first, then uncertain, then settled; flagged before clean within a tier; within a
  stratum the random draw's order. Never by a score inside a stratum: a reviewer who stops early then leaves
  whole strata unreviewed (which ``validate`` names), not a biased part of one.
"""
from __future__ import annotations

from collections import Counter
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
    flagged = any(v.get("label") not in ("supported", "from_history") for v in verdicts)  # repeating the user: clean
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
    at most :math:`N_h`, summing to ``min(n, N)`` (largest remainders; ties to the more informative stratum).
    With fewer than two per stratum to give, each stratum gets one before any gets a second."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    # One answer of every stratum, then a second (the most informative strata first when n runs out), so a
    # small queue still reaches every stratum the run has.
    out, left = {h: 0 for h in sizes}, n
    for _ in range(MIN_PER_STRATUM):
        for h in sorted(sizes, key=_rank):
            if left and out[h] < sizes[h]:
                out[h] += 1
                left -= 1
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


def run_strata(run_dir: Any, samples: Mapping[tuple[str, str], Any]) -> dict[tuple[str, str], str]:
    """(system, sample id) -> stratum for every answer of the run with a located claim (``samples``:
    :func:`genevals.review.claims.load_samples`), from the raw verdicts in results.jsonl (a jury's labels are
    read there: the parsed verdict keeps only the majority)."""
    from genevals.output import runfolder
    from genevals.report.clean import CLAIMS_METRIC, text

    out: dict[tuple[str, str], str] = {}
    for _, row in runfolder.iter_rows(run_dir):
        key = (text(row.get("system", "default")), text(row.get("id")))
        sample = samples.get(key)
        if key in out or sample is None or not sample.claims:
            continue
        metric = (row.get("metrics") or {}).get(CLAIMS_METRIC) if isinstance(row.get("metrics"), Mapping) else None
        details = metric.get("details") if isinstance(metric, Mapping) else None
        raw = details.get("verdicts") if isinstance(details, Mapping) else None
        located = {c.index: c.label for c in sample.claims}
        verdicts = [v for v in raw if isinstance(v, Mapping) and v.get("claim_index") in located] \
            if isinstance(raw, list) else []
        # A claim with no verdict counts as unverifiable (as the review shows it): flagged.
        verdicts += [{"label": label} for index, label in located.items()
                     if not any(v.get("claim_index") == index for v in verdicts)]
        value = metric.get("value") if isinstance(metric, Mapping) else None
        stratum = stratum_of(verdicts, value if isinstance(value, (int, float)) else None)
        if stratum is not None:
            out[key] = stratum
    return out


def ensure_queue(run_dir: Any, n: int, seed: int) -> tuple[Any, bool]:
    """The run's review queue of ``n`` answers: the one its store holds (when it has as many), or a new draw
    stored there; (the stored :class:`~genevals.review.store.Queue`, whether it was drawn now). StoreError when
    the store holds a queue of another size, naming it (a second draw would void the first's probabilities)."""
    from genevals.review.claims import load_samples
    from genevals.review.store import ReviewStore, StoreError

    with ReviewStore(run_dir) as store:
        held = store.queue()
        if held is None:
            strata = run_strata(run_dir, load_samples(run_dir))
            if not strata:
                raise StoreError(f"{run_dir}: no answer with judged claims to queue (run with --metrics "
                                 "faithfulness)")
            sizes: dict[str, int] = {}
            for h in strata.values():
                sizes[h] = sizes.get(h, 0) + 1
            store.set_queue(draw(strata, n, seed), sizes, seed)
            return store.queue(), True
    twice = next((key for key, count in Counter((s, i) for s, i, _, _ in held.entries).items() if count > 1), None)
    if twice is not None:  # each answer is drawn once: its inclusion probability would count it twice
        raise StoreError(f"{store.path}: the review queue is damaged (answer {twice[1]!r} of system {twice[0]!r} "
                         "is in it twice); draw a new one in a new store (move this file aside)")
    wanted = min(n, sum(held.sizes.values()))
    if len(held.entries) != wanted:
        raise StoreError(f"{store.path}: already holds a review queue of {len(held.entries)} answers (seed "
                         f"{held.seed}); serve it with --queue {len(held.entries)}, or move the file aside to draw "
                         f"another (its decisions stay in it)")
    return held, False
