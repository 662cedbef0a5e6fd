"""`genevals compare RUN_A [RUN_B]` (issue 37): paired comparisons from run folders, and gates that exit 1 on a
planted regression and 0 without one; bad input is exit 2 naming why. Real `genevals run` and `genevals
compare` processes on the demo's three systems."""
import json

import pytest

from conftest import DEMO
from support.cli import genevals, write_jsonl

METRICS = "token_f1,mrr"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not DEMO.exists():
        pytest.skip("demo data not present")
    tmp = tmp_path_factory.mktemp("compare_cli")
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    planted = [dict(r, answer=r["answer"][: len(r["answer"]) // 2]) if r["system"] == "dense" else r for r in rows]
    for name, data in (("v1", DEMO), ("again", DEMO), ("v2", write_jsonl(tmp / "v2.jsonl", planted))):
        done = genevals("run", data, "--out", tmp / name, "-q", "--no-history", "--metrics", METRICS)
        assert done.returncode == 0, done.stderr
    return tmp


def test_a_planted_regression_across_runs_exits_1(runs):
    done = genevals("compare", runs / "v1", runs / "v2")
    assert done.returncode == 1, done.stderr
    worse = [line for line in done.stderr.splitlines() if line.startswith("genevals: significantly worse:")]
    assert len(worse) == 1 and worse[0].startswith("genevals: significantly worse: token_f1: v1/dense over v2/dense")
    assert "leaderboard" in done.stdout and "v2/dense" in done.stdout
    # the same system gated by name; another system of the same runs did not change
    assert genevals("compare", runs / "v1", runs / "v2", "--fail-if-worse", "dense").returncode == 1
    passed = genevals("compare", runs / "v1", runs / "v2", "--fail-if-worse", "hybrid")
    assert passed.returncode == 0 and "gate passed: hybrid is not significantly worse" in passed.stdout


def test_no_regression_exits_0(runs):
    done = genevals("compare", runs / "v1", runs / "again")
    assert done.returncode == 0, done.stderr
    assert "gate passed: RUN_B is not significantly worse on token_f1, mrr" in done.stdout
    # the improvement (v2 back to v1) is no regression either
    assert genevals("compare", runs / "v2", runs / "v1").returncode == 0


def test_within_one_run(runs):
    assert genevals("compare", runs / "v1").returncode == 0  # no gate asked: the leaderboard only
    # dense's mrr is significantly below hybrid's in the demo (p = 0.026); hybrid is worse than nobody
    worse = genevals("compare", runs / "v1", "--fail-if-worse", "dense", "-m", "mrr")
    assert worse.returncode == 1 and "mrr: hybrid over dense" in worse.stderr
    assert genevals("compare", runs / "v1", "--fail-if-worse", "hybrid", "-m", "mrr").returncode == 0
    planted = genevals("compare", runs / "v2", "--fail-if-worse", "dense", "-m", "token_f1", "-q")
    assert planted.returncode == 1 and planted.stdout == ""  # -q: the gate's result only (on stderr)


def test_json_equals_summary_json(runs):
    done = genevals("compare", runs / "v1", "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    summary = json.loads((runs / "v1" / "summary.json").read_text(encoding="utf-8"))
    assert got["comparisons"] == summary["comparisons"] and got["leaderboard"] == summary["leaderboard"]
    assert got["gate"] == {"system": None, "gated": False, "metrics": ["token_f1", "mrr"], "worse": [],
                           "failed": False}
    across = json.loads(genevals("compare", runs / "v1", runs / "v2", "--json").stdout)
    dense = next(c for c in across["comparisons"] if c["metric"] == "token_f1" and c["a"] == "v2/dense")
    assert dense["b"] == "v1/dense" and dense["mean_difference"] < 0 and dense["significant"]
    assert across["gate"]["failed"] and across["gate"]["worse"] == [dense]


def bad(*args):
    done = genevals("compare", *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stderr.strip()


def test_bad_input_is_exit_2_naming_why(runs, tmp_path):
    assert bad(runs / "agian") == f"genevals: error: RUN_A {runs / 'agian'}: no such folder; did you mean 'again'?"
    (tmp_path / "empty").mkdir()
    assert "no results.jsonl in it" in bad(tmp_path / "empty")
    assert "; did you mean 'dense'? (it has: dense, hybrid, sparse)" in bad(runs / "v1", "--fail-if-worse", "dens")
    assert "--metrics mr: not a metric of the run; did you mean 'mrr'?" in bad(runs / "v1", "-m", "mr")
    # rows without an id get their row number: the systems share none, a gate would compare nothing
    rows = [{"system": s, "question": f"q{i}", "answer": "a b", "references": ["a b c"]}
            for s in ("x", "y") for i in range(5)]
    done = genevals("run", write_jsonl(tmp_path / "noid.jsonl", rows), "--out", tmp_path / "noid", "-q",
                    "--no-history", "-m", "token_f1")
    assert done.returncode == 0, done.stderr
    assert "share no scored question id" in bad(tmp_path / "noid")
    assert "no system in common" in bad(runs / "v1", tmp_path / "noid", "-m", "token_f1")
    one = [{"id": f"q{i}", "question": "q", "answer": "a", "references": ["a"]} for i in range(3)]
    genevals("run", write_jsonl(tmp_path / "one.jsonl", one), "--out", tmp_path / "one", "-q", "--no-history", "-m",
             "token_f1")
    assert "holds one system, nothing to compare it with" in bad(tmp_path / "one", "--fail-if-worse", "default")
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("summary.json", "outputs.json"):
        (broken / name).write_bytes((runs / "v1" / name).read_bytes())
    lines = (runs / "v1" / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (broken / "results.jsonl").write_text("".join(lines[:5] + ["{not json\n"] + lines[5:]), encoding="utf-8")
    assert f"{broken / 'results.jsonl'}:6: not a result: not JSON" in bad(broken)
