"""The Compare tab (issue 12): one paired bootstrap gives each comparison's CI and p-value, so "significant"
never contradicts the interval; only meaningful pairs are listed (the systems within a run, the same system
across runs), and `--all-pairs` lists every pair. Real `genevals run` and `genevals report` processes on two
runs of the demo's three systems."""
import json
import re
import subprocess
import sys
from itertools import combinations

import pytest

from conftest import DEMO

METRICS = ["token_f1", "mrr"]


def genevals(*args):
    done = subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def embedded(path):
    html = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="genevals-data">(.*?)</script>', html,
                                re.S).group(1))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not DEMO.exists():
        pytest.skip("demo data not present")
    tmp = tmp_path_factory.mktemp("compare")
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:  # v2: the dense system's answers lose their second half
        if row["system"] == "dense":
            row["answer"] = row["answer"][: len(row["answer"]) // 2]
    (tmp / "v2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for name, data in (("v1", DEMO), ("v2", tmp / "v2.jsonl")):
        genevals("run", str(data), "--out", str(tmp / name), "-q", "--metrics", ",".join(METRICS))
    return tmp


def test_only_meaningful_pairs_and_the_ci_agrees_with_p(runs):
    genevals("report", str(runs / "v1"), str(runs / "v2"), "-o", str(runs / "compare.html"))
    data = embedded(runs / "compare.html")
    systems = [(s["run"], s["system"]) for s in data["systems"]]
    labels = [s["label"] for s in data["systems"]]
    pairs = {(labels[c["a"]], labels[c["b"]]) for c in data["comparisons"]}
    assert len(labels) == 6 and len(pairs) == 3 + 3 + 3  # within v1, within v2, each system across the runs
    for c in data["comparisons"]:
        (run_a, sys_a), (run_b, sys_b) = systems[c["a"]], systems[c["b"]]
        assert run_a == run_b or sys_a == sys_b, (labels[c["a"]], labels[c["b"]])
        excludes_zero = c["ci95"][0] > 0 or c["ci95"][1] < 0
        assert c["significant"] == (c["p_value"] < 0.05) == excludes_zero, c
    dense = [c for c in data["comparisons"] if {labels[c["a"]], labels[c["b"]]} == {"v1/dense", "v2/dense"}]
    token_f1 = next(c for c in dense if c["metric"] == "token_f1")
    assert token_f1["significant"] and token_f1["n_pairs"] == 30  # halving the answers is a real change
    assert next(c for c in dense if c["metric"] == "mrr")["mean_difference"] == 0  # retrieval did not change
    assert data["comparison_pairs"] == "meaningful"


def test_all_pairs_on_request(runs):
    genevals("report", str(runs / "v1"), str(runs / "v2"), "-o", str(runs / "all.html"), "--all-pairs")
    data = embedded(runs / "all.html")
    assert {(c["a"], c["b"]) for c in data["comparisons"]} == set(combinations(range(6), 2))
    assert data["comparison_pairs"] == "all"
