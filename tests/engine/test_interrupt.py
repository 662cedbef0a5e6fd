"""Ctrl-C ends a run cleanly: exit 130, partial results kept, a summary written for them."""
import json
import signal
import subprocess
import sys
import time

import pytest
from support.runs import ctrl_c_heard, write_long_input


@pytest.mark.parametrize("workers", ["1", "2"])  # 2: worker processes read, score and write whole chunks
def test_ctrl_c_writes_partial_results_and_summary(tmp_path, workers):
    data = write_long_input(tmp_path / "big.jsonl")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "-q",
                             "--metrics", "rouge", "--workers", workers], stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_heard)
    results = out / "results.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and not (results.exists() and results.stat().st_size > 0):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stderr = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    done = results.read_text().splitlines()
    assert 0 < len(done) < 30_000
    summary = json.loads((out / "summary.json").read_text())
    assert summary["meta"]["interrupted"] is True
    assert summary["systems"]["default"]["rouge1"]["scored"] == len(done)
