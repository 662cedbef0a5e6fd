"""Issue 38: the cluster bootstrap over conversations against the naive per-turn bootstrap (and, for reference,
the analytic cluster-robust standard error of survey statistics), on simulated conversations whose turns are
correlated: coverage of the true mean and width of the 95% interval over many simulated runs.

    PYTHONPATH=. python benchmarks/bench_cluster_bootstrap.py [--runs 500] [--conversations 30] [--seed 7]

Each simulated run draws K conversations; conversation c has 2-12 turns and its own quality p_c ~ Beta(3, 2)
(mean 0.6: the true turn-level mean, as turn counts do not depend on p_c). Scenarios: "binary" (each turn's
score is 1 with probability p_c, as a faithfulness verdict), "continuous" (each turn's score ~ Beta around p_c
with concentration 20) and "independent" (every turn's p is drawn anew: no correlation, the control). The three
intervals are computed in the same loop on the same data (interleaved), and the machine's load is recorded.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.machine import machine  # noqa: E402
from genevals.stats import bootstrap_ci  # noqa: E402
from genevals.stats.cluster import cluster_bootstrap_ci  # noqa: E402

TRUE_MEAN = 0.6
SCENARIOS = ("binary", "continuous", "independent")


def simulate(rng: np.random.Generator, k: int, scenario: str) -> tuple[np.ndarray, np.ndarray]:
    sizes = rng.integers(2, 13, size=k)
    codes = np.repeat(np.arange(k), sizes).astype(float)
    if scenario == "independent":
        p = rng.beta(3, 2, size=sizes.sum())
    else:
        p = np.repeat(rng.beta(3, 2, size=k), sizes)
    if scenario == "continuous":
        values = rng.beta(np.clip(p * 20, 1e-3, None), np.clip((1 - p) * 20, 1e-3, None))
    else:
        values = (rng.random(p.size) < p).astype(float)
    return values, codes


def cluster_robust(values: np.ndarray, codes: np.ndarray) -> tuple[float, float]:
    """mean +- 1.96 x the cluster-robust (CR1) standard error of a mean: the textbook analytic interval."""
    mean = values.mean()
    _, inverse = np.unique(codes, return_inverse=True)
    resid = np.bincount(inverse, weights=values - mean)
    k, n = resid.size, values.size
    se = np.sqrt(k / (k - 1) * np.sum(resid ** 2)) / n
    return mean - 1.96 * se, mean + 1.96 * se


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--conversations", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    methods = {"naive bootstrap (turns)": lambda v, c, s: bootstrap_ci(v, seed=s),
               "cluster bootstrap (genevals)": lambda v, c, s: cluster_bootstrap_ci(v, c, seed=s),
               "cluster-robust SE (analytic)": lambda v, c, s: cluster_robust(v, c)}
    before = machine()
    print(f"# machine: {before['nproc']} CPUs, {before['cpu']}, load {before['load']}")
    print(f"{args.runs} runs x {args.conversations} conversations of 2-12 turns; true mean {TRUE_MEAN}\n")
    print("| scenario | interval | coverage of the true mean | mean width | width vs naive | ms per interval |")
    print("|---|---|---:|---:|---:|---:|")
    for scenario in SCENARIOS:
        rng = np.random.default_rng(args.seed)
        covered = {m: 0 for m in methods}
        widths = {m: [] for m in methods}
        spent = {m: 0.0 for m in methods}
        for run in range(args.runs):
            values, codes = simulate(rng, args.conversations, scenario)
            for name, method in methods.items():  # interleaved: the same data, one after the other
                start = time.perf_counter()
                low, high = method(values, codes, run)
                spent[name] += time.perf_counter() - start
                covered[name] += low <= TRUE_MEAN <= high
                widths[name].append(high - low)
        naive = float(np.mean(widths["naive bootstrap (turns)"]))
        for name in methods:
            width = float(np.mean(widths[name]))
            print(f"| {scenario} | {name} | {covered[name] / args.runs:.1%} | {width:.4f} | {width / naive:.2f}x | "
                  f"{1000 * spent[name] / args.runs:.2f} |")
    print(f"\nload after: {machine()['load']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
