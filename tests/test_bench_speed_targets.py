"""benchmarks/bench_speed_targets.py (issue 51) runs end to end on tiny sizes: every target's row, the values
checks against pytrec_eval and the direct loop, and the load. Nothing here is timed: no assertion is about speed."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # some 40 genevals and pytrec_eval processes

REPO = Path(__file__).resolve().parents[1]


def test_every_target_is_measured_and_its_values_checked(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_speed_targets.py"), "--rounds", "1",
                           "--queries", "120", "--trec", "40x60", "--pairs", "30", "--samples", "40",
                           "--keep", str(tmp_path)], cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| target")]
    names = [row.split(" | ")[0][2:] for row in rows]
    assert names == ["jsonl, 120 x 20", "csv, 120 x 20", "parquet, 120 x 20", "TREC, 2,400 lines",
                     "lexical (ROUGE-1/2/L, BLEU, token F1)", "BLEU alone",
                     "report's share, retrieval JSONL, 120 queries", "report's share, lexical JSONL, 40 samples"]
    assert all(row.endswith(("| yes |", "| no |")) for row in rows), rows
    # every value genevals wrote, per format and for the TREC files, against pytrec_eval's
    gaps = re.findall(r"(jsonl|csv|parquet|TREC): ([\d,]+) genevals values against pytrec_eval, largest "
                      r"difference ([\d.e+-]+)", out)
    assert [g[0] for g in gaps] == ["jsonl", "csv", "parquet", "TREC"], out
    assert all(int(n.replace(",", "")) > 0 and float(gap) < 1e-12 for _, n, gap in gaps), gaps
    assert out.count("pytrec_eval's child read the same dicts") == 3
    assert "every value of 30 pairs identical (==) to the direct loop's" in out
    assert "load before:" in out and "load after:" in out and "cores" in out
