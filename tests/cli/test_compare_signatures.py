"""Issue 52, point 2: scores made under different signatures (other settings, language handling) are never
compared, by `genevals compare`, by `run --baseline` or by the report of two runs; each says why, and none exits 1
(a regression) for a metric it did not compare. Real `genevals` processes on the demo data: ROUGE with and without
Porter stemming (a significant "regression" of hybrid's rougeL on main), and `--language en` against `auto`."""
import json

import pytest

from conftest import DEMO
from support.cli import genevals
from support.runs import embedded

pytestmark = pytest.mark.slow  # about 11 s of CPU: eight `genevals` runs and reports

STEMMED = "signatures differ (stemmer:porter-en-only vs stemmer:no)"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not DEMO.exists():
        pytest.skip("demo data not present")
    tmp = tmp_path_factory.mktemp("signatures")
    for name, extra in (("stemmed", ("--set", "rouge.use_stemmer=true")), ("plain", ()),
                        ("english", ("--language", "en"))):
        done = genevals("run", DEMO, "--out", tmp / name, "-q", "--no-history", "--metrics", "token_f1,rouge", *extra)
        assert done.returncode == 0, done.stderr
    return tmp


def test_compare_leaves_out_a_metric_scored_under_other_settings_and_says_why(runs):
    done = genevals("compare", runs / "stemmed", runs / "plain")
    assert done.returncode == 0, done.stderr  # main: exit 1, "significantly worse: rougeL: stemmed/hybrid ..."
    assert "significantly worse" not in done.stderr
    assert f"not compared: rougeL: {STEMMED}" in done.stdout
    assert f"rougeL not compared: {STEMMED}" in done.stdout  # the finding
    assert "not compared (signatures differ): rougeL" in done.stdout  # the gate's line
    as_json = json.loads(genevals("compare", runs / "stemmed", runs / "plain", "--json").stdout)
    assert [(e["metric"], e["why"]) for e in as_json["not_compared"]] == [("rougeL", STEMMED)]
    assert {c["metric"] for c in as_json["comparisons"]} == {"token_f1"}
    assert as_json["leaderboard"]["best"]["rougeL"] is None


def test_compare_with_nothing_comparable_is_bad_input_not_a_regression(runs):
    done = genevals("compare", runs / "stemmed", runs / "plain", "--metrics", "rougeL")
    assert done.returncode == 2, done.stderr
    assert f"nothing was compared: rougeL not compared: {STEMMED}" in done.stderr


def test_the_language_handling_is_part_of_the_signature(runs):
    done = genevals("compare", runs / "plain", runs / "english")
    assert done.returncode == 2, done.stderr  # every metric differs: nothing was compared
    assert ("nothing was compared: token_f1 not compared: signatures differ (lang:auto vs lang:en); "
            "rougeL not compared: signatures differ (lang:auto vs lang:en)") in done.stderr


def test_the_genevals_version_alone_is_no_difference(runs, tmp_path):
    import shutil

    copy = tmp_path / "newer"
    shutil.copytree(runs / "plain", copy)
    summary = json.loads((copy / "summary.json").read_text(encoding="utf-8"))
    summary["signatures"] = {k: v.replace("|genevals:", "|genevals:99.") for k, v in summary["signatures"].items()}
    (copy / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    done = genevals("compare", runs / "plain", copy, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["not_compared"] == []


def test_the_report_of_two_runs_does_not_compare_them_either(runs, tmp_path):
    done = genevals("report", runs / "stemmed", runs / "plain", "-o", tmp_path / "r.html")
    assert done.returncode == 0, done.stderr
    data = embedded((tmp_path / "r.html").read_text(encoding="utf-8"))
    labels = [s["label"] for s in data["systems"]]
    apart = {(labels[n["a"]], labels[n["b"]], n["metric"]): n["why"] for n in data["not_compared"]}
    assert apart[("stemmed/hybrid", "plain/hybrid", "rougeL")] == STEMMED
    across = [c for c in data["comparisons"] if labels[c["a"]].split("/")[0] != labels[c["b"]].split("/")[0]]
    assert across and not [c for c in across if c["metric"].startswith("rouge")]
    assert "rougeL not compared: " + STEMMED in data["leaderboard"]["sentence"]


def test_baseline_with_other_settings_is_no_regression(tmp_path):
    if not DEMO.exists():
        pytest.skip("demo data not present")
    history = tmp_path / "history.sqlite"
    gates = ("--fail-under", "rougeL=0.1", "--history", history)
    first = genevals("run", DEMO, "--out", tmp_path / "a", "--metrics", "rouge,token_f1", "--set",
                     "rouge.use_stemmer=true", "--fail-under", "token_f1=0.1", *gates)
    assert first.returncode == 0, first.stderr
    # main: "hybrid: rougeL ... p = 0.0112: REGRESSION (gated)", exit 1
    alone = genevals("run", DEMO, "--out", tmp_path / "b", "--metrics", "rouge", "--baseline", "latest", *gates)
    assert alone.returncode == 2, alone.stderr
    assert "REGRESSION" not in alone.stderr
    assert "nothing was compared: rougeL not compared: signatures differ (stemmer:no vs stemmer:porter-en-only)" \
        in alone.stderr
    both = genevals("run", DEMO, "--out", tmp_path / "c", "--metrics", "rouge,token_f1", "--baseline", "1",
                    "--fail-under", "token_f1=0.1", *gates)
    assert both.returncode == 0, both.stderr
    lines = [line for line in both.stderr.splitlines() if line.startswith("genevals: baseline: hybrid: rougeL")]
    assert lines and lines[0].endswith("not compared: signatures differ (stemmer:no vs stemmer:porter-en-only) "
                                       "(gated)"), lines
