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
    # the report reuses summary.json's comparisons (below): here it computes its own, from a copy of the folder
    # whose summary has none, so the two are computed independently
    import shutil

    bare = run.parent / "bare"
    if not bare.exists():
        shutil.copytree(run, bare)
        stripped = {k: v for k, v in summary.items() if k not in ("comparisons", "leaderboard")}
        (bare / "summary.json").write_text(json.dumps(stripped), encoding="utf-8")
    data = build_data([bare])
    labels = [s["label"] for s in data["systems"]]
    tab = {(c["metric"], labels[c["a"]], labels[c["b"]]): c for c in data["comparisons"]}
    for c in found:
        assert c["test"] == (f"paired bootstrap, 5000 resamples, seed {summary['seed']}" if not c.get("identical")
                             else "identical on every sample: no test (difference 0, p-value 1)")
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


def test_the_compare_tab_takes_the_summary_s_comparisons_instead_of_computing_them(run, monkeypatch):
    """The Compare tab reads summary.json's comparisons for a run's own systems: no paired bootstrap is run
    again for them, and the figures are the summary's."""
    from genevals.stats import comparisons

    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    calls = []
    real = comparisons.paired_comparison_of_differences
    monkeypatch.setattr(comparisons, "paired_comparison_of_differences",
                        lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    data = build_data([run])
    labels = [s["label"] for s in data["systems"]]
    tab = {(c["metric"], labels[c["a"]], labels[c["b"]]): c for c in data["comparisons"]}
    for c in summary["comparisons"]:
        assert {k: c[k] for k in COMPARED} == {k: tab[(c["metric"], c["a"], c["b"])][k] for k in COMPARED}
    stored = {c["metric"] for c in summary["comparisons"]}
    assert calls and not stored & set(calls)  # only the metrics the summary did not compare are bootstrapped
