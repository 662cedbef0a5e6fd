"""A tiny run of benchmarks/bench_cluster_bootstrap.py in a real process: the benchmark keeps working, and even
at 40 runs the cluster interval is the wider one on correlated turns."""
from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_the_benchmark_runs_and_widens_on_correlated_turns():
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_cluster_bootstrap.py"), "--runs", "40"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    rows = {tuple(cell.strip() for cell in line.split("|")[1:3]): line.split("|")[5].strip()
            for line in done.stdout.splitlines() if line.startswith("| ") and "x |" in line}
    for scenario in ("binary", "continuous"):
        assert float(rows[(scenario, "cluster bootstrap (genevals)")].rstrip("x")) > 1.2
