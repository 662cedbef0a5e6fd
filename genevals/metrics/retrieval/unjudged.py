"""Unjudged documents in the top k of a ranking whose labels were pooled to a depth shallower than k.

Labels made by pooling (TREC; ``genevals label``) judge only each run's top ``depth`` documents per topic. A
metric at a cutoff k > depth reads documents past the pool that nobody judged, and counts them as not relevant
(trec_eval's convention), so its value is partly an artefact of the pool: with one run pooled to depth 5,
recall@10 is 1 for every topic by construction. For each such cutoff, the share of the top-k documents that are
unjudged, over a system's scored topics,

.. math::
    u_k = \\frac{\\sum_q |\\{d \\in \\mathrm{top}_k(q) : d \\notin \\mathrm{qrels}(q)\\}|}{\\sum_q \\min(k, n_q)},

(Buckley and Voorhees' "judged@k" is 1 - u_k) goes beside every output at that cutoff (its summary entry's
``unjudged``, a mark in the terminal table), into the corpus details (``unjudged@k``), and into a warning naming
the systems, cutoffs and counts (summary meta ``unjudged_warning``: the terminal and the report show it).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

PREFIX = "unjudged@"  # genevals.output.unjudged marks the outputs at k by these corpus details
META_KEY = "unjudged_warning"


def deeper(cutoffs: Iterable[int], depth: int | None) -> list[int]:
    """The cutoffs past the pool depth (none when the depth is not known)."""
    return [] if depth is None else [k for k in cutoffs if k > depth]


def sample_counts(ids: Sequence[str], qrels: Mapping[str, Any], cutoffs: Sequence[int]) -> dict[str, int]:
    """One ranking's unjudged documents in its top k, and how many it ranks there, for each of ``cutoffs``."""
    out: dict[str, int] = {}
    for k in cutoffs:
        top = ids[:k]
        out[f"{PREFIX}{k}"] = sum(1 for d in top if d not in qrels)
        out[f"ranked@{k}"] = len(top)
    return out


def column_counts(judged, starts, cutoffs: Sequence[int]) -> dict[str, Any]:
    """:func:`sample_counts` for a block of topics at once: ``judged`` (bool, one per ranked row, topics
    together in rank order) and ``starts`` (each topic's first row, then the end). Arrays, one value a topic."""
    import numpy as np

    lengths = np.diff(starts)
    unjudged = np.concatenate(([0], np.cumsum(~np.asarray(judged, dtype=bool), dtype=np.int64)))
    first = np.asarray(starts[:-1]) - int(starts[0])
    out: dict[str, Any] = {}
    for k in cutoffs:
        top = np.minimum(lengths, k)
        out[f"{PREFIX}{k}"] = unjudged[first + top] - unjudged[first]
        out[f"ranked@{k}"] = top
    return out


def statistics(details: Mapping[str, Any] | None) -> dict[str, int] | None:
    """A scored sample's counts, from its details (None when it has none)."""
    if not details:
        return None
    found = {k: int(v) for k, v in details.items() if k.startswith((PREFIX, "ranked@"))}
    return found or None


def shares(totals: Mapping[str, float]) -> dict[str, float]:
    """The corpus details: ``unjudged@k`` = u_k from a system's summed counts."""
    return {name: totals[name] / totals[f"ranked@{name[len(PREFIX):]}"] for name in totals
            if name.startswith(PREFIX) and totals.get(f"ranked@{name[len(PREFIX):]}")}


def warning(totals_by_system: Mapping[str, Mapping[str, float]], depth: int, outputs: Sequence[str]) -> str | None:
    """One sentence naming, per system and cutoff past ``depth``, how many of the top-k documents are unjudged."""
    parts = []
    for system, totals in sorted(totals_by_system.items()):
        for name in sorted((n for n in totals if n.startswith(PREFIX)), key=lambda n: int(n[len(PREFIX):])):
            k = name[len(PREFIX):]
            ranked = int(totals.get(f"ranked@{k}") or 0)
            if ranked:
                parts.append(f"{system} @{k}: {int(totals[name])} of {ranked} ({totals[name] / ranked:.0%})")
    if not parts:
        return None
    cut = sorted({int(n[len(PREFIX):]) for t in totals_by_system.values() for n in t if n.startswith(PREFIX)})
    named = [o for o in outputs if any(o.endswith(f"@{k}") for k in cut)]
    return (f"the qrels were pooled to depth {depth}, so the top {', '.join(map(str, cut))} documents hold unjudged "
            f"ones, counted as not relevant: {'; '.join(parts)}. {', '.join(named[:6])}"
            f"{' ...' if len(named) > 6 else ''} there measure the pool as much as the system (recall reaches 1 "
            f"when only the pooled runs are scored); label to depth {max(cut)} (genevals label --depth "
            f"{max(cut)}) or read the cutoffs up to {depth}")
