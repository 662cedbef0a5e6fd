"""Paired comparison cost: the one-bootstrap procedure (CI and p-value from the same 5,000 paired resamples)
against the earlier pair of procedures (a 1,000-resample bootstrap CI plus a 5,000-draw sign-flip test), per
comparison, at 100 / 1,000 / 10,000 shared ids. Run: ``python benchmarks/bench_paired.py``."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from genevals.stats import bootstrap_ci, paired_comparison_of_differences  # noqa: E402


def before(diffs: np.ndarray, seed: int = 12345, resamples: int = 5000, block: int = 2_000_000) -> float:
    """The earlier procedure: a bootstrap CI of the mean, and a separate sign-flip p-value."""
    observed = float(diffs.mean())
    bootstrap_ci(diffs, seed=seed)
    rng = np.random.default_rng(seed)
    rows, hits = max(1, block // diffs.size), 0
    for start in range(0, resamples, rows):
        signs = rng.choice((-1.0, 1.0), size=(min(resamples, start + rows) - start, diffs.size))
        hits += int(np.sum(np.abs((signs * diffs).mean(axis=1)) >= abs(observed) - 1e-12))
    return (hits + 1) / (resamples + 1)


def now(diffs: np.ndarray) -> float:
    return paired_comparison_of_differences("m", "a", "b", diffs, resamples=5000).p_value


def main() -> None:
    for n in (100, 1000, 10000):
        diffs = np.random.default_rng(0).random(n) - 0.5
        for name, run in (("before: bootstrap CI + sign-flip p", before), ("now: one paired bootstrap", now)):
            run(diffs)
            start = time.perf_counter()
            for _ in range(3):
                run(diffs)
            print(f"n={n:>6} {name}: {(time.perf_counter() - start) / 3 * 1000:.1f} ms")


if __name__ == "__main__":
    main()
