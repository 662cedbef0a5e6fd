"""The headline metrics a leaderboard shows (gated ones first, then a few per family), and which way is better
for an output (its declared direction, else by its name)."""
from __future__ import annotations

import re
from typing import Sequence

#: At most this many headline metrics besides the gated ones (a leaderboard must fit one screen).
MAX_HEADLINE = 6

#: The headline choice per family, in the order a leaderboard shows the families: judged answer quality, the
#: lexical overlap with references, semantic similarity, retrieval, citations. Within a family, best first.
#: :func:`headline_metrics` takes each present family's first choice, then each one's second, and so on.
HEADLINE_FAMILIES: tuple[tuple[str, ...], ...] = (
    ("answer_correctness", "answer_relevance"),
    ("faithfulness", "contradiction_rate"),
    ("context_relevance", "context_recall"),
    ("token_f1", "exact_match", "rougeL", "bleu"),
    ("bertscore_f1",),
    ("mrr", "recall@10", "ndcg@10", "hit_rate@1"),
    ("citation_recall", "citation_precision"),
    ("pairwise",),
)

#: Outputs where a lower value is better, for runs whose outputs.json does not say (every metric declares its
#: direction; :func:`higher_is_better` takes the declaration when it has one).
LOWER_IS_BETTER = frozenset({"first_relevant_rank", "contradiction_rate", "unverifiable_rate", "miscited",
                             "invented_claims", "latency", "latency_ms", "latency_s", "cost", "cost_usd"})
_LOWER_PATTERN = re.compile(r"(^|_)(rank|latency|cost|error_rate|hallucination_rate)(_|$)")


def higher_is_better(metric: str, direction: str | None = None) -> bool:
    """Whether a higher value of ``metric`` is better. ``direction`` is the metric's declared one (outputs.json's
    "higher", "lower" or "neither"); without it, ranks, latencies, costs and the error rates of
    :data:`LOWER_IS_BETTER` are lower-is-better and everything else higher-is-better."""
    if direction in ("higher", "lower"):
        return direction == "higher"
    return metric not in LOWER_IS_BETTER and not _LOWER_PATTERN.search(metric)


_CUTOFF = re.compile(r"^(.*)@(\d+)$")


def _nearest(wanted: str, present: Sequence[str]) -> str | None:
    """``wanted`` if present; for ``name@k``, the present cutoff of that name nearest below k, else above."""
    if wanted in present:
        return wanted
    match = _CUTOFF.match(wanted)
    if not match:
        return None
    stem, k = match.group(1), int(match.group(2))
    ks = {int(m.group(2)): name for name in present if (m := _CUTOFF.match(name)) and m.group(1) == stem}
    below = [c for c in ks if c <= k]
    return ks[max(below)] if below else (ks[min(ks)] if ks else None)


def headline_metrics(metric_names: Sequence[str], gated: Sequence[str] = ()) -> list[str]:
    """The metrics a leaderboard shows: the gated ones the run has (in the order given), then up to
    :data:`MAX_HEADLINE` chosen by :data:`HEADLINE_FAMILIES` (round by round, so each family present gets
    its first choice before any gets a second; shown in the families' order). A run with none of those shows
    its first metrics, as they come."""
    present = list(dict.fromkeys(metric_names))
    chosen = [m for m in dict.fromkeys(gated) if m in present]
    picks: list[tuple[int, int, str]] = []
    families = [[c for w in family if (c := _nearest(w, present)) is not None] for family in HEADLINE_FAMILIES]
    families = [list(dict.fromkeys(f)) for f in families]
    for rank in range(max((len(f) for f in families), default=0)):
        for order, family in enumerate(families):
            if rank < len(family) and len(picks) < MAX_HEADLINE:
                name = family[rank]
                if name not in chosen and all(name != p for _, _, p in picks):
                    picks.append((order, rank, name))
    if not picks:
        rest = [m for m in present if m not in chosen and m not in LOWER_IS_BETTER]
        return chosen + rest[:MAX_HEADLINE]
    return chosen + [name for _, _, name in sorted(picks)]
