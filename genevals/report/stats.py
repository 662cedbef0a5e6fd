"""The report's statistics over every sample, embedded on the page or not: histograms, rank and verdict
counts, summaries for runs without summary.json, and seeded paired comparisons between systems.

All of them read :class:`~genevals.report.values.SampleValues` one metric column at a time, so memory stays
flat in the number of samples.

Paired comparisons are :func:`genevals.stats.comparisons.compare_systems` (the one definition summary.json, the
terminal and ``genevals compare`` use too) on the question ids two systems share, matched here through their
64-bit digests and taken in digest order: the same figures as summary.json's ``comparisons``. Only meaningful
pairs are compared: systems of the same run, and the same system across runs (see :func:`meaningful_pairs`).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from genevals.stats import comparisons
# re-exported: the report's callers (and the history's baseline) name them here
from genevals.stats.comparisons import ALL_PAIRS_MAX_SYSTEMS, PAIRED_RESAMPLES, Differences, meaningful_pairs  # noqa: F401
from genevals.report.clean import page_summary
from genevals.report.values import SampleValues
from genevals.stats import DEFAULT_SEED, paired_differences, summarise
from genevals.types import VERDICT_LABELS

#: The metric drawn as rank bars (1-10, >10, not found) rather than as a histogram.
RANK_METRIC = "first_relevant_rank"


def _owners(store: SampleValues) -> np.ndarray:
    return np.frombuffer(store.sys, dtype=np.int32) if len(store) else np.empty(0, dtype=np.int32)


def seen_range(store: SampleValues, m: int) -> tuple[float, float] | None:
    """The smallest and largest value of metric ``m`` over every sample; None when it has none."""
    col = store.column(m)
    col = col[~np.isnan(col)]
    return (float(col.min()), float(col.max())) if col.size else None


def histograms(store: SampleValues, metrics: Sequence[Mapping[str, Any]], n_systems: int, bins: int = 10) -> dict:
    """Per metric (the page's entries, in store order), ``bins`` equal bins (0-1 for a metric on the unit
    scale, else min-max) of every sample's value, counted per system."""
    systems = _owners(store)
    out = {}
    for m, facts in enumerate(metrics):
        name = facts["name"]
        if name == RANK_METRIC:
            continue
        col = np.round(store.column(m), 6)
        mask = ~np.isnan(col)
        if not mask.any():
            continue
        values, owners = col[mask], systems[mask]
        lo, hi = 0.0, 1.0
        if not facts["unit"]:
            lo, hi = float(values.min()), float(values.max())
            if hi == lo:
                hi = lo + 1
        width = (hi - lo) / bins
        index = np.clip(np.floor((values - lo) / width), 0, bins - 1).astype(np.int64)
        counts = np.zeros((n_systems, bins), dtype=np.int64)
        np.add.at(counts, (owners, index), 1)
        out[name] = {"lo": lo, "hi": hi, "n": int(values.size), "counts": counts.tolist()}
    return out


def ranks(store: SampleValues, m: int | None, n_systems: int) -> dict | None:
    """The rank metric (position ``m``) per system in 12 bins (1-10, >10, not found), and how many samples
    were unscored for another reason (no relevance labels)."""
    if m is None:
        return None
    counts = np.zeros((n_systems, 12), dtype=np.int64)
    systems = _owners(store)
    values = store.column(m)
    scored = ~np.isnan(values)
    bins = np.where(values[scored] > 10, 10, np.maximum(0, np.floor(values[scored] + 0.5).astype(np.int64) - 1))
    np.add.at(counts, (systems[scored], bins), 1)
    codes = store.status_codes(m)
    other = 0
    if codes is not None:
        not_found = np.isin(codes, [c for c, (status, _) in enumerate(store.status_table) if status == "not_found"])
        not_found &= codes > 0
        np.add.at(counts[:, 11], systems[not_found], 1)
        other = int(((codes > 0) & ~not_found).sum())
    return {"counts": counts.tolist(), "other": other}


def verdict_totals(store: SampleValues, n_systems: int) -> list[dict[str, int]]:
    """Per system: samples with judge claims, and their claims by verdict."""
    out = [{"judged": 0, **{label: 0 for label in VERDICT_LABELS}} for _ in range(n_systems)]
    for k in range(len(store)):
        counts = store.verdicts(k)
        if counts is not None:
            totals = out[store.sys[k]]
            totals["judged"] += 1
            for label, c in zip(VERDICT_LABELS, counts):
                totals[label] += c
    return out


def summaries_from_samples(store: SampleValues, metric_names: Sequence[str], systems: Iterable[int]) -> dict:
    """System index -> its page summary computed from its samples, the way the runner summarises (for runs
    without summary.json)."""
    wanted = list(systems)
    owners = _owners(store)
    summaries: dict[int, dict[str, Any]] = {index: {} for index in wanted}
    for m, name in enumerate(metric_names):
        values, codes = store.column(m), store.status_codes(m)
        for index in wanted:
            mine = owners == index
            scored = values[mine & ~np.isnan(values)]
            unscored = codes[mine & (codes > 0)].tolist() if codes is not None else []
            if not scored.size and not unscored:
                continue
            statuses = {"ok": int(scored.size)} if scored.size else {}
            for code in unscored:
                status = store.status_table[code][0]
                statuses[status] = statuses.get(status, 0) + 1
            summaries[index][name] = summarise(scored, statuses).to_dict()
    return {index: page_summary(summary) for index, summary in summaries.items()}


def _store_differences(store: SampleValues, metrics: Sequence[str], n: int) -> Differences:
    owners = np.frombuffer(store.sys, dtype=np.int32)
    keys = np.frombuffer(store.key, dtype=np.uint64)
    members = {s: np.flatnonzero(owners == s) for s in range(n)}

    def differences(a: int, b: int, metric: str) -> np.ndarray | None:
        if metric not in metrics:
            return None
        col = store.column(metrics.index(metric))
        ka, kb = members[a][~np.isnan(col[members[a]])], members[b][~np.isnan(col[members[b]])]
        if not ka.size or not kb.size:
            return None
        _, ia, ib = np.intersect1d(keys[ka], keys[kb], assume_unique=True, return_indices=True)
        return paired_differences(col[ka[ia]], col[kb[ib]])

    return differences


def unshared_pairs(store: SampleValues, pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ``pairs`` of systems whose samples share no question id at all: nothing of theirs can be paired.
    This is what ids defaulted to row numbers give (rows of a multi-system file never share a number)."""
    owners = _owners(store)
    keys = np.frombuffer(store.key, dtype=np.uint64) if len(store) else np.empty(0, dtype=np.uint64)
    return [(a, b) for a, b in pairs
            if not np.intersect1d(keys[owners == a], keys[owners == b], assume_unique=True).size]


def compare_systems(samples: SampleValues | Iterable[Mapping[str, Any]], labels: Sequence[str],
                    metrics: Sequence[str], seed: int = DEFAULT_SEED,
                    groups: Sequence[tuple[Any, str]] | None = None,
                    all_pairs: bool = False, known: Any = None, skip: Any = None) -> list[dict[str, Any]]:
    """:func:`genevals.stats.comparisons.compare_systems` of a :class:`SampleValues` (values by metric position in
    ``metrics``) or of sample dicts with ``sys``, ``id`` and ``v`` (a metric name -> value mapping); ``known``:
    the comparisons the runs' summaries already hold; ``skip(a, b, metric)``: true for one not to make."""
    if isinstance(samples, SampleValues):
        samples = _store_differences(samples, metrics, len(labels))
    return comparisons.compare_systems(samples, labels, metrics, seed, groups, all_pairs, known, skip=skip)
