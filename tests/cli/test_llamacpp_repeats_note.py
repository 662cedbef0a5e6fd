"""``--judge-repeats N`` at temperature 0 with llama.cpp in process asks once and says so: greedy decoding gives
the same reply whatever the seed (the backend's ``repeats_vary_at_zero``), in a real ``genevals`` process (a dry
run: the model is not loaded)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_llamacpp_repeats_at_zero_are_asked_once(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join((REPO / "datasets" / "demo" / "demo.jsonl").read_text().splitlines(True)[:2]))
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(rows), "-m", "faithfulness",
                           "--judge-backend", "llamacpp", "--judge-repeats", "3", "--dry-run", "--no-history",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--judge-repeats 3 asked once: at temperature 0 the llamacpp judge" in " ".join(done.stderr.split())
