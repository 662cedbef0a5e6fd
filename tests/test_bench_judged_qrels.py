"""benchmarks/bench_judged_qrels.py runs end to end on a tiny Cranfield (5 queries, 3 systems), and its tau is
1 when the judged qrels are the human qrels themselves. Nothing here is timed."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks" / "bench_judged_qrels.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_judged_qrels", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_tiny_run_gives_tau_1_for_the_human_qrels_and_writes_only_its_json(shared_dir, tmp_path):
    kept = {p: p.read_bytes() for p in (REPO / "benchmarks" / "RESULTS.md", REPO / "benchmarks" / "judged_qrels.json")
            if p.exists()}
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--collection", str(shared_dir / "datasets" / "cranfield"), "--topics", "5",
         "--systems", "bm25,tfidf,random", "--labellers", "human,human_pool,random", "--boot", "50",
         "--runs-dir", str(tmp_path / "runs"), "--json", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["systems"] == ["bm25", "tfidf", "random"]
    for measure in ("map", "ndcg@10"):
        same = report["agreement"]["human"][measure]
        assert same["tau"] == 1.0 and same["tau_ci95"] == [1.0, 1.0] and same["pearson"] == 1.0
        assert isinstance(report["agreement"]["random"][measure]["tau"], float)
        assert -1 <= report["agreement"]["human_pool"][measure]["tau"] <= 1
    # each system is a TREC run of 100 documents a topic
    for system in report["systems"]:
        lines = (tmp_path / "runs" / f"{system}.run").read_text().splitlines()
        assert len(lines) == 5 * 100 and lines[0].split()[1] == "Q0" and lines[0].split()[5] == system
    assert "| human | 1.000 [1.000, 1.000]" in done.stdout and "load average at start" in done.stdout
    assert {p: p.read_bytes() for p in kept} == kept, "a smoke run must not write RESULTS.md or judged_qrels.json"


def test_compare_tau_and_r_with_their_bootstrap_intervals():
    bench = _bench()
    rng = np.random.default_rng(1)
    human = rng.random((4, 30)) + np.arange(4)[:, None]  # four systems, clearly apart
    same = bench.compare(human, human.copy(), boot=100)
    assert same == {"tau": 1.0, "tau_ci95": [1.0, 1.0], "pearson": 1.0, "pearson_ci95": [1.0, 1.0]}
    flipped = bench.compare(human, -human, boot=100)
    assert flipped["tau"] == -1.0 and flipped["tau_ci95"] == [-1.0, -1.0]
    tied = bench.compare(human, np.ones_like(human), boot=10)  # every system equal: no ranking to correlate
    assert tied["tau"] is None and tied["pearson"] is None and tied["tau_ci95"] is None


def test_an_unknown_labeller_or_collection_is_a_clear_error(tmp_path):
    for args, expected in ((["--labellers", "offline,humna"], "unknown 'humna' (did you mean 'human'?)"),
                           (["--collection", str(tmp_path)], "no docs.jsonl, queries.tsv, qrels.txt there"),
                           (["--card", "--topics", "5"], "--card: the card is the whole run's")):
        done = subprocess.run([sys.executable, str(BENCH), *args], cwd=REPO, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
