"""Too few pairs to test (issue 38/39 follow-up): with fewer shared question ids than a paired test needs to reach
p < 0.05 (genevals.stats.MIN_PAIRS = 6: n pairs of one sign have the exact sign-flip p-value 1/2^(n-1)), summary.json,
`genevals run`, `genevals compare` and `genevals run --baseline` say "too few pairs to test", give no p-value and
never call the difference significant or a regression. Before the rule, three pairs of one sign were significant at
p < 0.001 and gated runs exited 1. Real `genevals` processes."""
import json

import pytest

from support.cli import genevals, write_jsonl

GOOD = [{"id": f"q{i}", "question": f"question {i}", "answer": f"answer {i}", "references": [f"answer {i}"]}
        for i in range(3)]
BAD = [dict(r, answer="no idea at all") for r in GOOD]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("few_pairs")
    two = write_jsonl(tmp / "two.jsonl", [dict(r, system="good") for r in GOOD] + [dict(r, system="bad") for r in BAD])
    v1, v2 = write_jsonl(tmp / "v1.jsonl", GOOD), write_jsonl(tmp / "v2.jsonl", BAD)
    for name, data in (("two", two), ("v1", v1), ("v2", v2)):
        done = genevals("run", data, "-o", tmp / name, "-m", "token_f1", "--no-history")
        assert done.returncode == 0, done.stderr
        (tmp / f"{name}.stdout").write_text(done.stdout)
    return tmp


def test_summary_and_run_output_say_too_few_pairs(runs):
    summary = json.loads((runs / "two" / "summary.json").read_text())
    [c] = summary["comparisons"]
    assert (c["a"], c["b"], c["n_pairs"], c["mean_difference"]) == ("bad", "good", 3, -1.0)
    assert c["p_value"] is None and c["ci95"] == [None, None] and c["significant"] is False
    assert "too few pairs to test: 3 pairs, the smallest p-value possible is 1/2^2 = 0.25" in c["test"]
    assert "token_f1: too few pairs to test" in summary["leaderboard"]["sentence"]
    [versus] = summary["leaderboard"]["versus_best"]
    assert versus["p_value"] is None and not versus["significant"]
    printed = (runs / "two.stdout").read_text()
    assert "too few pairs to test (1 of 1, 3 pairs each; a paired test needs at least 6):" in printed
    assert "token_f1: good vs bad, difference +1.0000, too few pairs to test (3 pairs)" in printed
    assert "significant differences" not in printed


def test_compare_prints_it_and_the_gates_do_not_fail_on_it(runs):
    within = genevals("compare", runs / "two", "--fail-if-worse", "bad")
    assert within.returncode == 0, within.stderr
    assert "too few pairs to test (3 pairs)" in within.stdout
    assert "gate passed: bad is not significantly worse on token_f1 (too few pairs to test on token_f1)" in within.stdout
    across = genevals("compare", runs / "v1", runs / "v2")
    assert across.returncode == 0, across.stderr
    assert "significantly worse" not in across.stderr and "too few pairs to test on token_f1" in across.stdout
    data = json.loads(genevals("compare", runs / "v1", runs / "v2", "--json").stdout)
    [c] = data["comparisons"]
    assert c["p_value"] is None and c["significant"] is False and data["gate"]["failed"] is False


def test_a_baseline_of_three_ids_is_no_regression(runs, tmp_path):
    h = ["--history", tmp_path / "h.sqlite", "-m", "token_f1"]
    assert genevals("run", runs / "v1.jsonl", "-o", tmp_path / "a", *h).returncode == 0
    gated = genevals("run", runs / "v2.jsonl", "-o", tmp_path / "b", *h, "--baseline", "1", "--fail-under",
                     "token_f1=0")
    assert gated.returncode == 0, gated.stderr
    assert ("token_f1 0.0000 vs 1.0000 in run #1 on 3 shared ids: difference -1.0000: too few pairs to test: "
            "3 pairs") in gated.stderr and "(gated)" in gated.stderr
    assert "REGRESSION" not in gated.stderr
