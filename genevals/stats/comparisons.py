"""Which system is better, by how much, and is it real: the seeded paired comparisons between systems, the
headline metrics a leaderboard shows, and the leaderboard itself with its one-sentence finding.

One definition for every place that shows a comparison (summary.json, the terminal, ``genevals compare``, the
report's Compare tab and Overview), so their figures are equal by construction. Statistics only: it reads
values already scored, never scoring code, so the output room and the report may both import it.

A comparison of systems a and b on a metric takes the question ids both scored, in :func:`genevals.keys.id_digest`
order, and their differences :math:`d_i = a_i - b_i`; :func:`genevals.stats.paired_comparison_of_differences`
gives the mean difference, and the 95% CI and two-sided p-value from one paired bootstrap of
:data:`PAIRED_RESAMPLES` resamples with the run's seed, so "significant" (p < 0.05) is exactly "the CI
excludes 0". Fewer than :data:`genevals.stats.MIN_PAIRS` pairs get no test (no CI, p-value None, not
significant), and their ``test`` says "too few pairs to test". Two systems equal on every pair (differences
within float noise: :func:`genevals.stats.paired_differences`) are ``identical``: difference and CI exactly 0, p-value
1, no bootstrap, and their ``test`` says "identical on every sample". No multiple-comparison correction.

Metrics scored under different signatures (two runs' settings) are not compared at all: the callers leave them
out (``skip``) and name them, with why, in ``not_compared`` (:func:`genevals.signature.signature_difference`).
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from genevals.finite import num
from genevals.keys import id_digest
from genevals.stats.bootstrap import DEFAULT_SEED
from genevals.stats.cluster import paired_clustered_differences
from genevals.stats.headline import (HEADLINE_FAMILIES, LOWER_IS_BETTER, MAX_HEADLINE,  # noqa: F401 (re-exported)
                                     headline_metrics, higher_is_better)
from genevals.stats.paired import (IDENTICAL, MIN_PAIRS, TOO_FEW_PAIRS, paired_comparison_of_differences,
                                   paired_differences, paired_means_of, too_few_pairs_text)

#: Above this many systems, each is compared with the first only, not every pair.
ALL_PAIRS_MAX_SYSTEMS = 4
#: Bootstrap resamples for the paired test (resolution 1/5000 is ample for p < 0.05).
PAIRED_RESAMPLES = 5000

Differences = Callable[[int, int, str], "np.ndarray | None"]


def describe_test(seed: int, resamples: int = PAIRED_RESAMPLES) -> str:
    """What summary.json's comparisons say of their test."""
    return f"paired bootstrap, {resamples} resamples, seed {seed}"


# ---------------------------------------------------------------------------------------- which pairs

def _pairs_among(members: Sequence[int]) -> list[tuple[int, int]]:
    """Every pair of ``members`` up to :data:`ALL_PAIRS_MAX_SYSTEMS`, else each against the first."""
    if len(members) <= ALL_PAIRS_MAX_SYSTEMS:
        return list(combinations(members, 2))
    return [(members[0], b) for b in members[1:]]


def meaningful_pairs(groups: Sequence[tuple[Any, str]], all_pairs: bool = False) -> list[tuple[int, int]]:
    """The system pairs worth comparing, ``groups[i]`` being system i's (run, system name): the systems within
    one run, then the same system across runs (each run against the first that has it). ``all_pairs``: every
    pair, across runs and systems too, however many."""
    if all_pairs:
        return list(combinations(range(len(groups)), 2))
    by_run: dict[Any, list[int]] = {}
    by_name: dict[str, list[int]] = {}
    for i, (run, name) in enumerate(groups):
        by_run.setdefault(run, []).append(i)
        by_name.setdefault(name, []).append(i)
    pairs = [pair for members in by_run.values() for pair in _pairs_among(members)]
    pairs += [(members[0], b) for members in by_name.values() for b in members[1:]]
    return pairs


# ---------------------------------------------------------------------------------------- comparing

def _dict_differences(samples: Iterable[Mapping[str, Any]]) -> Differences:
    table: dict[int, dict[str, dict[str, float]]] = {}
    for s in samples:
        per_metric = table.setdefault(s["sys"], {})
        for name, value in s["v"].items():
            per_metric.setdefault(name, {})[s["id"]] = value

    def differences(a: int, b: int, metric: str) -> np.ndarray | None:
        va, vb = table.get(a, {}).get(metric), table.get(b, {}).get(metric)
        if not va or not vb:
            return None
        shared = [k for _, k in sorted((id_digest(k), k) for k in set(va) & set(vb))]
        return paired_differences(np.array([va[k] for k in shared], dtype=float),
                                  np.array([vb[k] for k in shared], dtype=float))

    return differences


#: the figures of one comparison, as the report's Compare tab and summary.json both hold them
_STORED = ("n_pairs", "mean_difference", "ci95", "p_value", "significant")


def compare_systems(samples: Differences | Iterable[Mapping[str, Any]], labels: Sequence[str],
                    metrics: Sequence[str], seed: int = DEFAULT_SEED,
                    groups: Sequence[tuple[Any, str]] | None = None,
                    all_pairs: bool = False,
                    known: Callable[[int, int, str], Mapping[str, Any] | None] | None = None,
                    clusters: Callable[[int, int, str], "np.ndarray | None"] | None = None,
                    skip: Callable[[int, int, str], bool] | None = None) -> list[dict[str, Any]]:
    """Seeded paired comparisons (one paired bootstrap for the CI and the p-value) on the question ids two
    systems share, for the :func:`meaningful_pairs` of ``groups`` (each system's (run, name); None: all
    systems are of one run). Systems are named by their index in ``labels``. ``known(a, b, metric)``: a
    comparison already made (a run's summary.json ``comparisons``, computed by this function with the same seed
    and resamples), taken as it is instead of bootstrapping again; None to compute it.

    ``samples`` gives the paired differences: a function ``(a, b, metric) -> differences in id_digest order``
    (the report's column store gives one), or sample dicts with ``sys`` (index), ``id`` and ``v`` (a metric
    name -> value mapping). Only one pair's values of one metric are gathered at a time. ``clusters(a, b,
    metric)`` gives each difference's conversation code (in the same order), or None: with codes, the bootstrap
    resamples conversations (:func:`genevals.stats.cluster.paired_clustered_differences`) and ``n_pairs`` counts
    them. ``skip(a, b, metric)``: true for a comparison not to make (scored under different signatures).
    """
    n = len(labels)
    if n < 2:
        return []
    differences = samples if callable(samples) else _dict_differences(samples)
    pairs = meaningful_pairs(groups if groups is not None else [(0, label) for label in labels], all_pairs)
    out: list[dict[str, Any] | None] = []
    for a, b in pairs:
        plain = []  # (slot in out, metric, differences) bootstrapped by pairs, each size's draws made once
        for metric in metrics:
            if skip is not None and skip(a, b, metric):
                continue
            stored = known(a, b, metric) if known is not None else None
            if stored is not None:
                out.append({"metric": metric, "a": a, "b": b, **{k: stored[k] for k in _STORED},
                            **({"identical": True} if stored.get("identical") is True else {})})
                continue
            diffs = differences(a, b, metric)
            if diffs is None:
                continue
            codes = clusters(a, b, metric) if clusters is not None else None
            if codes is not None:
                out.append(_entry(metric, a, b, paired_clustered_differences(
                    metric, labels[a], labels[b], diffs, codes, seed=seed, resamples=PAIRED_RESAMPLES)))
            else:
                plain.append((len(out), metric, diffs))
                out.append(None)
        made = paired_means_of([diffs for _, _, diffs in plain], seed=seed, resamples=PAIRED_RESAMPLES)
        for (slot, metric, diffs), means in zip(plain, made):
            out[slot] = _entry(metric, a, b, paired_comparison_of_differences(
                metric, labels[a], labels[b], diffs, seed=seed, resamples=PAIRED_RESAMPLES, means=means))
    return [entry for entry in out if entry is not None]


def _entry(metric: str, a: int, b: int, result: Any) -> dict[str, Any] | None:
    if result is None:
        return None
    d = result.to_dict()
    return {"metric": metric, "a": a, "b": b, "n_pairs": d["n_pairs"], "mean_difference": num(d["mean_difference"]),
            "ci95": [num(d["ci95"][0]), num(d["ci95"][1])], "p_value": num(d["p_value"]),
            "significant": bool(d["significant"]), **({"identical": True} if d["identical"] else {})}


Paired = Callable[[str, str, str], "tuple[np.ndarray, np.ndarray] | None"]


def paired_from_dicts(values: Mapping[str, Mapping[str, Mapping[str, float]]]) -> Paired:
    """``(a, b, metric) -> (a's values, b's values)`` on the ids both scored, in :func:`id_digest` order, from
    ``values[system][metric][question id]``."""
    def pair(a: str, b: str, metric: str) -> tuple[np.ndarray, np.ndarray] | None:
        va, vb = values.get(a, {}).get(metric), values.get(b, {}).get(metric)
        if not va or not vb:
            return None
        shared = [k for _, k in sorted((id_digest(k), k) for k in set(va) & set(vb))]
        return np.array([va[k] for k in shared], dtype=float), np.array([vb[k] for k in shared], dtype=float)

    return pair


def compare_named(values: Paired | Mapping[str, Mapping[str, Mapping[str, float]]], systems: Sequence[str],
                  metrics: Sequence[str], seed: int = DEFAULT_SEED,
                  clusters: Callable[[str, str, str], "np.ndarray | None"] | None = None) -> list[dict[str, Any]]:
    """summary.json's ``comparisons``: :func:`compare_systems` of every meaningful pair of ``systems`` (one
    run's, in run order) on each of ``metrics``, with systems named, the means of both over the pairs
    (``mean_a - mean_b == mean_difference``, up to rounding) and the test used. ``values`` pairs two systems'
    values (a :data:`Paired` function), or is ``values[system][metric][question id]`` (unscored ids absent).
    ``clusters(a, b, metric)`` (systems by name): the conversation code of each pair, to pair conversations."""
    pair = values if callable(values) else paired_from_dicts(values)
    means: dict[tuple[int, int, str], tuple[float, float]] = {}

    def differences(a: int, b: int, metric: str) -> np.ndarray | None:
        got = pair(systems[a], systems[b], metric)
        if got is None:
            return None
        va, vb = got
        if va.size:
            means[(a, b, metric)] = (float(va.mean()), float(vb.mean()))
        return paired_differences(va, vb)

    by_conversation: set[tuple[int, int, str]] = set()

    def codes(a: int, b: int, metric: str) -> np.ndarray | None:
        found = clusters(systems[a], systems[b], metric) if clusters is not None else None
        if found is not None:
            by_conversation.add((a, b, metric))
        return found

    out = []
    for c in compare_systems(differences, list(systems), metrics, seed, clusters=codes):
        mean_a, mean_b = means[(c["a"], c["b"], c["metric"])]
        test = describe_test(seed)
        if (c["a"], c["b"], c["metric"]) in by_conversation:
            test = test.replace("paired bootstrap", "paired bootstrap over conversations (n_pairs: conversations)")
        if c.get("identical"):
            test = f"{IDENTICAL}: no test (difference 0, p-value 1)"
        elif c["p_value"] is None:
            test += f"; {too_few_pairs_text(c['n_pairs'])}"
        out.append({"metric": c["metric"], "a": systems[c["a"]], "b": systems[c["b"]], "n_pairs": c["n_pairs"],
                    "mean_a": num(mean_a), "mean_b": num(mean_b),
                    "mean_difference": c["mean_difference"], "ci95": c["ci95"], "p_value": c["p_value"],
                    "significant": c["significant"], **({"identical": True} if c.get("identical") else {}),
                    "test": test})
    return out


# ---------------------------------------------------------------------------------------- leaderboard

def _cell(summary: Mapping[str, Any] | None) -> dict[str, Any]:
    summary = summary or {}
    n = summary.get("n", summary.get("scored"))
    ci = summary.get("ci95")
    ci = [num(ci[0]), num(ci[1])] if isinstance(ci, (list, tuple)) and len(ci) == 2 else None
    return {"mean": num(summary.get("mean")), "ci95": ci, "n": n,
            "coverage": num(summary.get("coverage"))}


def _p_text(p: float | None) -> str:
    if p is None:
        return TOO_FEW_PAIRS
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _versus(metric: str, best: str, other: str, comparisons: Sequence[Mapping[str, Any]]) -> dict | None:
    """The comparison of ``best`` with ``other`` on ``metric``, as best minus other."""
    for c in comparisons:
        if c["metric"] != metric or {c["a"], c["b"]} != {best, other} or best == other:
            continue
        sign = 1 if c["a"] == best else -1
        lo, hi = c["ci95"]
        ci = [num(sign * lo) if lo is not None else None, num(sign * hi) if hi is not None else None]
        return {"metric": metric, "system": other, "best": best,
                "mean_difference": num(sign * c["mean_difference"]) if c["mean_difference"] is not None else None,
                "ci95": ci if sign == 1 else ci[::-1], "p_value": c["p_value"],
                "significant": bool(c["significant"]), "n_pairs": c["n_pairs"],
                **({"identical": True} if c.get("identical") is True else {})}
    return None


def leaderboard(systems: Sequence[str], summaries: Mapping[str, Mapping[str, Mapping[str, Any]]],
                comparisons: Sequence[Mapping[str, Any]], headline: Sequence[str],
                directions: Mapping[str, str] | None = None,
                not_compared: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Systems as rows, ``headline`` metrics as columns (mean, ci95, n scored, coverage from ``summaries``,
    summary.json's per-system entries), the best system per metric (None on a tie of the best means, with
    no data, or with one system), each other system's paired comparison with the best (``versus_best``, the
    difference as best minus it, from ``comparisons``: :func:`compare_named`'s list), and one sentence saying
    what the run found. ``directions``: output -> declared direction (see :func:`higher_is_better`);
    ``not_compared``: metric -> why its rows were not compared (signatures that differ): no best, and said."""
    directions, not_compared = directions or {}, not_compared or {}
    rows = [{"system": s, "values": {m: _cell((summaries.get(s) or {}).get(m)) for m in headline}}
            for s in systems]
    best: dict[str, str | None] = {}
    versus: list[dict[str, Any]] = []
    for m in headline:
        means = [(row["values"][m]["mean"], row["system"]) for row in rows if row["values"][m]["mean"] is not None]
        best[m] = None
        if len(means) < 2 or m in not_compared:
            continue
        sign = 1 if higher_is_better(m, directions.get(m)) else -1
        top = max(sign * mean for mean, _ in means)
        leaders = [s for mean, s in means if sign * mean == top]
        if len(leaders) != 1:
            continue
        best[m] = leaders[0]
        versus += [v for _, s in means if s != leaders[0]
                   and (v := _versus(m, leaders[0], s, comparisons)) is not None]
    unscored = {m: not_scored(m, systems, summaries) for m in headline
                if all(row["values"][m]["mean"] is None for row in rows)}
    return {"metrics": list(headline), "rows": rows, "best": best, "versus_best": versus,
            "sentence": _sentence(systems, rows, headline, best, versus, directions, bool(comparisons), not_compared,
                                  unscored)}


def not_scored(metric: str, systems: Sequence[str], summaries: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """"bertscore_f1 not scored (unsupported_language 10)": a metric no system has a value of, and why (the
    statuses summary.json counts, most frequent first), so a headline never calls it a tie."""
    counts: dict[str, int] = {}
    for s in systems:
        statuses = ((summaries.get(s) or {}).get(metric) or {}).get("statuses")
        for status, n in (statuses.items() if isinstance(statuses, Mapping) else ()):
            if status != "ok" and isinstance(n, int) and not isinstance(n, bool) and n > 0:
                counts[str(status)] = counts.get(str(status), 0) + n
    why = ", ".join(f"{status} {n}" for status, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
    return f"not scored ({why or 'no sample was scored'})"


def _sentence(systems: Sequence[str], rows: Sequence[Mapping[str, Any]], headline: Sequence[str],
              best: Mapping[str, str | None], versus: Sequence[Mapping[str, Any]],
              directions: Mapping[str, str], compared: bool, not_compared: Mapping[str, str],
              unscored: Mapping[str, str]) -> str:
    if not headline:
        return f"{len(systems)} system{'s' if len(systems) != 1 else ''} scored; no metric to compare"
    if len(systems) == 1:
        values = rows[0]["values"]
        shown = ", ".join(f"{m} {values[m]['mean']:.2f}" for m in headline if values[m]["mean"] is not None)
        return f"one system ({systems[0]}), nothing to compare: {shown or 'no metric scored'}"
    # a metric nothing scored says so and why (never "no single leader"); one scored under other signatures, why
    apart = [f"{m} {unscored[m]}" if m in unscored else f"{m} not compared: {not_compared[m]}"
             for m in headline if m in unscored or m in not_compared]
    if not compared:
        return "; ".join(apart) or "no two systems could be compared (they share no scored question ids)"
    clauses, quiet, tied, missing, untested = [], [], [], [], []
    for m in headline:
        if m in not_compared or m in unscored:
            continue
        leader = best.get(m)
        if leader is None:
            scored = [row["system"] for row in rows if row["values"][m]["mean"] is not None]
            (tied if len(scored) > 1 else missing).append(m)
            continue
        mine = [v for v in versus if v["metric"] == m]
        if not mine:
            missing.append(m)
            continue
        significant = [v for v in mine if v["significant"]]
        if not significant:
            (untested if all(v["p_value"] is None for v in mine) else quiet).append(m)
            continue
        closest = min(significant, key=lambda v: abs(v["mean_difference"]))
        lower = "" if higher_is_better(m, directions.get(m)) else " (lower is better)"
        clause = (f"{leader} leads {m}{lower} by {abs(closest['mean_difference']):.2f} over {closest['system']}, "
                  f"{_p_text(closest['p_value'])}")
        level = [v["system"] for v in mine if not v["significant"] and v["p_value"] is not None]
        if level:
            clause += f" (not significantly over {', '.join(level)})"
        unknown = [v["system"] for v in mine if v["p_value"] is None]
        if unknown:
            clause += f" ({TOO_FEW_PAIRS} against {', '.join(unknown)})"
        clauses.append(clause)
    if quiet:
        clauses.append(f"{', '.join(quiet)} difference{'s are' if len(quiet) > 1 else ' is'} not significant")
    if untested:
        clauses.append(f"{', '.join(untested)}: {TOO_FEW_PAIRS} (fewer than {MIN_PAIRS} pairs)")
    if tied:
        clauses.append(f"no single leader on {', '.join(tied)}")
    if missing:
        clauses.append(f"{', '.join(missing)} not compared (no shared scored question ids)")
    return "; ".join(clauses + apart)
