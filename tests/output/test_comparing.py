"""summary.json's ``comparisons`` and ``leaderboard`` (issue 37): written by a real `genevals run` of the demo's
three systems, and equal, figure for figure, to the comparisons the report's Compare tab computes from the same
run folder with the report's own builder; the same from the Python API, with no folder."""
import json
import subprocess
import sys

import pytest

from conftest import DEMO
from genevals.report.model import build_data

COMPARED = ("n_pairs", "mean_difference", "ci95", "p_value", "significant")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not DEMO.exists():
        pytest.skip("demo data not present")
    out = tmp_path_factory.mktemp("comparing") / "run"
    # map is gated (a --fail-under on it), so it is compared though it is no headline metric
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(DEMO), "--out", str(out), "-q",
                           "--no-history", "--fail-under", "map=0.01"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def test_summary_comparisons_equal_the_report_compare_tab(run):
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    found = summary["comparisons"]
    metrics = summary["leaderboard"]["metrics"]
    assert metrics[0] == "map" and "token_f1" in metrics and "mrr" in metrics
    # every pair of the three systems on every compared metric
    assert {(c["a"], c["b"]) for c in found} == {("dense", "hybrid"), ("dense", "sparse"), ("hybrid", "sparse")}
    assert len(found) == 3 * len(metrics)
    data = build_data([run])
    labels = [s["label"] for s in data["systems"]]
    tab = {(c["metric"], labels[c["a"]], labels[c["b"]]): c for c in data["comparisons"]}
    for c in found:
        assert c["test"] == f"paired bootstrap, 5000 resamples, seed {summary['seed']}"
        assert round(c["mean_a"] - c["mean_b"], 5) == round(c["mean_difference"], 5)
        page = tab[(c["metric"], c["a"], c["b"])]
        assert {k: c[k] for k in COMPARED} == {k: page[k] for k in COMPARED}, c["metric"]


def test_the_leaderboard_names_the_best_from_the_summary(run):
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    board = summary["leaderboard"]
    assert [r["system"] for r in board["rows"]] == ["dense", "hybrid", "sparse"]  # summary.json's order
    for m, best in board["best"].items():
        means = {s: summary["systems"][s][m]["mean"] for s in summary["systems"]}
        if best is not None:
            assert means[best] == max(means.values()), m
    mrr = [v for v in board["versus_best"] if v["metric"] == "mrr"]
    assert {v["best"] for v in mrr} == {"hybrid"} and {v["system"] for v in mrr} == {"dense", "sparse"}
    assert "hybrid leads mrr by 0.16 over dense, p = 0.026 (not significantly over sparse)" in board["sentence"]


def test_the_api_summary_compares_the_same_way(run):
    from genevals import evaluate

    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    results = evaluate(str(DEMO), meta={"fail_under": {"map": 0.01}})
    assert results.summary()["comparisons"] == summary["comparisons"]
    assert results.summary()["leaderboard"] == summary["leaderboard"]
