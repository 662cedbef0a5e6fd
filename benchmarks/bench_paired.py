"""Paired comparison cost: the one-bootstrap procedure (CI and p-value from the same 5,000 paired resamples)
against the earlier pair of procedures (a 1,000-resample bootstrap CI plus a 5,000-draw sign-flip test), per
comparison, at 100 / 1,000 / 10,000 shared ids. Run: python benchmarks/bench_paired.py"""
import time, numpy as np, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from genevals.stats import paired_comparison_of_differences as new
def old(diffs, seed=12345, resamples=5000, block=2_000_000):
    from genevals.stats import bootstrap_ci
    observed = float(diffs.mean()); low, high = bootstrap_ci(diffs, seed=seed)
    rng = np.random.default_rng(seed); rows = max(1, block // diffs.size); hits = 0
    for start in range(0, resamples, rows):
        signs = rng.choice((-1.0, 1.0), size=(min(resamples, start + rows) - start, diffs.size))
        hits += int(np.sum(np.abs((signs * diffs).mean(axis=1)) >= abs(observed) - 1e-12))
    return (hits + 1) / (resamples + 1)
for n in (100, 1000, 10000):
    d = np.random.default_rng(0).random(n) - 0.5
    for name, f in (("old sign-flip + 1000-resample bootstrap", lambda: old(d)), ("new 5000-resample paired bootstrap", lambda: new("m","a","b",d,resamples=5000))):
        f(); t = time.perf_counter(); [f() for _ in range(3)]; print(f"n={n:>6} {name}: {(time.perf_counter()-t)/3*1000:.1f} ms")
