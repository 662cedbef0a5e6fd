"""benchmarks/bench_generate_cranfield.py: its trivial generators and two-set tau by hand, and a tiny run end to
end on Cranfield (3 systems, 12 generated queries). Nothing here is timed."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks" / "bench_generate_cranfield.py"


def _bench():
    sys.path.insert(0, str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_generate_cranfield", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_trivial_generators_and_the_two_set_tau_by_hand():
    bench = _bench()
    docs = {"d1": {"title": "wing flutter .", "text": "wing flutter . the wing flutters at mach two . it breaks"}}
    assert bench.trivial("title", docs, ["d1"], 0) == ({"t0000": "wing flutter ."}, {"t0000": {"d1": 1.0}})
    assert bench.trivial("first_four_words", docs, ["d1"], 0)[0] == {"t0000": "wing flutter . the"}
    assert bench.trivial("random_sentence", docs, ["d1"], 0)[0] == {"t0000": "the wing flutters at mach two"}
    human = np.array([[0.9, 0.8], [0.5, 0.6], [0.1, 0.2]])  # systems x topics: means 0.85, 0.55, 0.15
    same = np.array([[0.7, 0.7, 0.7], [0.4, 0.4, 0.4], [0.2, 0.2, 0.2]])  # the same order, 3 topics
    assert bench.tau_two_sets(human, same, 0, 0)["tau"] == 1.0
    assert bench.tau_two_sets(human, same[::-1], 0, 0)["tau"] == -1.0
    # systems 1 and 2 swapped: pairs (0,1) and (0,2) concordant, (1,2) discordant: tau = (2 - 1) / 3
    swapped = same[[0, 2, 1]]
    assert bench.tau_two_sets(human, swapped, 0, 0)["tau"] == pytest.approx(1 / 3, abs=1e-4)
    figures = bench.tau_two_sets(human, same, 200, 0)
    assert figures["tau_ci95"] == [1.0, 1.0] and figures["boot"] == 200


def test_the_offline_card_is_the_stored_benchmark_run_and_says_what_it_measured():
    """genevals/generate/offline_card.json is card_of(benchmarks/generate_cranfield.json), the run recorded in
    RESULTS.md, and the words every offline card.json carries quote its numbers."""
    from genevals.generate.offline import CARD, measured

    bench = _bench()
    stored = json.loads((REPO / "benchmarks" / "generate_cranfield.json").read_text())
    assert json.loads(CARD.read_text()) == bench.card_of(stored)
    tau = stored["generators"]["genevals_offline"]["ndcg@10"]
    says = measured()["says"]
    assert f"nDCG@10 {tau['tau']} [{tau['tau_ci95'][0]}, {tau['tau_ci95'][1]}]" in says[0]
    assert f"BM25 has nDCG@10 {tau['means']['bm25']} and dense MiniLM {tau['means']['dense']}" in says[1]


@pytest.mark.slow
def test_a_tiny_run_end_to_end(shared_dir, tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(BENCH), "--n", "12", "--boot", "50", "--systems",
                           "bm25,bm25_4words,random", "--json", str(out)], capture_output=True, text=True,
                          timeout=900, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["n"] == 12 and report["systems"] == ["bm25", "bm25_4words", "random"]
    assert set(report["generators"]) == {"genevals_offline", "title", "random_sentence", "first_four_words"}
    for figures in report["generators"].values():
        assert -1 <= figures["ndcg@10"]["tau"] <= 1 and figures["ndcg@10"]["means"]["random"] < 0.2
