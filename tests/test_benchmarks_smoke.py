"""The benchmark suite runs end to end (``benchmarks/run.py --smoke``) and prints its one table.

This is the only benchmark CI runs. Nothing here is timed: no assertion is about speed.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "RESULTS.md"


def test_run_smoke_prints_the_table_and_writes_nothing(shared_dir):
    # shared_dir: the lexical, retrieval and BERTScore workloads are RAGTruth and SummaC texts (skips without)
    before = RESULTS.read_bytes() if RESULTS.exists() else None
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py"), "--smoke"], cwd=REPO,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "## Summary table" in out
    header = next(line for line in out.splitlines() if line.startswith("| workload |"))
    columns = header.count("|")
    rows = [line for line in out.splitlines() if line.startswith("| ")
            and not line.startswith("| workload")]
    for name in ("lexical:", "retrieval:", "BERTScore", "faithfulness judge (concurrency 1,",
                 "faithfulness judge (concurrency 8,"):
        row = next((r for r in rows if r.startswith(f"| {name}")), None)
        assert row is not None, f"no row for {name}:\n{out}"
        assert row.count("|") == columns, row
    # ~2 judge requests per answer (decompose + verify) on the demo rows
    assert "2.00 requests" in out
    assert "Machine:" in out and "Load average at start" in out
    after = RESULTS.read_bytes() if RESULTS.exists() else None
    assert after == before, "--smoke must not write RESULTS.md"
