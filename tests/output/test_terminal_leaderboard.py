"""The run's terminal output (issue 37): the leaderboard (systems as rows side by side, headline metrics as
columns, the best marked), the significant paired differences and the one-sentence finding, before the caveats;
``-q`` prints the finding alone. Real `genevals run` processes on the demo's three systems."""
import subprocess
import sys

import pytest

from conftest import DEMO
from genevals.output.terminal import difference_line, leaderboard_lines, leaderboard_table


def genevals(*args):
    done = subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def demo():
    if not DEMO.exists():
        pytest.skip("demo data not present")
    return str(DEMO)


def test_a_run_prints_the_leaderboard_and_the_significant_differences(demo, tmp_path):
    out = genevals("run", demo, "--out", str(tmp_path / "run"), "--no-history").stdout.splitlines()
    start = out.index(next(line for line in out if line.startswith("leaderboard (^ best mean")))
    header, *rows = out[start + 1:start + 5]
    assert header.split() == ["system", "token_f1", "exact_match", "rougeL", "mrr", "recall@10", "ndcg@10"]
    cells = {row.split()[0]: row.split()[1:] for row in rows}
    assert set(cells) == {"dense", "hybrid", "sparse"}
    assert cells["hybrid"][3] == "0.8500^" and cells["dense"][0] == "0.5387^"  # mrr's and token_f1's best
    assert not any(c.endswith("^") for c in (cells[s][4] for s in cells))  # recall@10: a tie, no best
    assert out[start + 5] == "significant differences (1 of 18 compared):"
    assert out[start + 6] == "  mrr: hybrid over dense by +0.1583 [+0.0167, +0.3056], p = 0.026, 30 pairs"
    assert out[start + 7].startswith("finding: hybrid leads mrr by 0.16 over dense, p = 0.026")
    assert out[-1].startswith("wrote ")  # before the notes and caveats, which follow on stderr


def test_quiet_prints_errors_gate_results_and_the_finding_only(demo, tmp_path):
    """-q is errors, gate results and the answer (issue 52 point 8, as docs/how-to/compare-systems.md says): no
    table, no leaderboard, no warning; with two systems, the one-sentence finding on stdout."""
    done = genevals("run", demo, "--out", str(tmp_path / "run"), "--no-history", "-q")
    assert done.returncode == 0 and done.stderr == ""
    assert [line for line in done.stdout.splitlines()] == [done.stdout.splitlines()[0]]
    assert done.stdout.startswith("finding: ")
    missed = subprocess.run([sys.executable, "-m", "genevals", "run", demo, "--out", str(tmp_path / "gated"),
                             "--no-history", "-q", "--fail-under", "mrr=0.99"], capture_output=True, text=True,
                            timeout=300)
    assert missed.returncode == 1 and "genevals: threshold missed:" in missed.stderr
    assert len(missed.stdout.splitlines()) == 1 and missed.stdout.startswith("finding: ")


def test_one_system_prints_no_table_and_quiet_nothing():
    summary = {"leaderboard": {"metrics": ["m"], "rows": [{"system": "s", "values": {"m": {"mean": 0.5}}}],
                               "best": {"m": None}, "versus_best": [],
                               "sentence": "one system (s), nothing to compare: m 0.50"}}
    assert leaderboard_lines(summary) == ["finding: one system (s), nothing to compare: m 0.50"]
    assert leaderboard_lines(summary, quiet=True) == []
    assert leaderboard_lines({"systems": {}}) == []


def test_the_table_marks_the_best_and_partial_coverage_and_escapes_names():
    board = {"metrics": ["m\x1b"], "best": {"m\x1b": "b"},
             "rows": [{"system": "a\u202e", "values": {"m\x1b": {"mean": 0.25, "coverage": 0.5}}},
                      {"system": "b", "values": {"m\x1b": {"mean": 0.75, "coverage": 1.0}}}]}
    assert leaderboard_table(board) == ["system          m\\x1b",
                                        "a\\u202e  0.2500 (50%)",
                                        "b             0.7500^"]


def test_a_difference_is_said_from_the_better_side():
    c = {"metric": "first_relevant_rank", "a": "x", "b": "y", "mean_difference": 1.5, "ci95": [0.5, 2.5],
         "p_value": 0.0002, "n_pairs": 12}
    # lower is better: y (1.5 lower) is the better one; the difference is y - x
    assert difference_line(c) == "first_relevant_rank: y over x by -1.5000 [-2.5000, -0.5000], p < 0.001, 12 pairs"
    c["metric"] = "mrr"
    assert difference_line(c) == "mrr: x over y by +1.5000 [+0.5000, +2.5000], p < 0.001, 12 pairs"
    assert difference_line(c, {"mrr": "lower"}).startswith("mrr: y over x")


def _untested(metric, a, b, d):
    return {"metric": metric, "a": a, "b": b, "mean_difference": d, "ci95": [None, None], "p_value": None,
            "n_pairs": 4, "significant": False}


def test_comparisons_with_too_few_pairs_take_a_few_lines_not_one_each():
    """Three systems x four metrics over 4 ids: 12 untested comparisons. The run shows the 3 largest differences
    (none that rounds to 0, never "-0.0000") and says how many more summary.json holds."""
    board = {"metrics": ["m"], "best": {"m": None}, "sentence": "no single leader on m",
             "rows": [{"system": s, "values": {"m": {"mean": 0.5}}} for s in "abc"]}
    found = [_untested(f"m{i}", "a", "b", d) for i, d in enumerate([0.0, -1e-17, 0.25, -0.5, 0.1, 0.05] * 2)]
    lines = leaderboard_lines({"leaderboard": board, "comparisons": found})
    at = lines.index("too few pairs to test (12 of 12, 4 pairs each; a paired test needs at least 6):")
    assert [line.split(",")[0] for line in lines[at + 1:at + 4]] == ["  m3: b vs a", "  m9: b vs a", "  m2: a vs b"]
    assert lines[at + 4] == "  9 more in summary.json's comparisons and the report" and len(lines) == at + 6
    flat = [_untested(f"m{i}", "a", "b", d) for i, d in enumerate([0.0, -1e-17] * 6)]
    lines = leaderboard_lines({"leaderboard": board, "comparisons": flat})
    assert lines[-2:] == ["too few pairs to test (12 of 12, 4 pairs each; a paired test needs at least 6; every "
                          "difference rounds to 0)", "finding: no single leader on m"]
    assert "-0.0000" not in difference_line(_untested("m", "a", "b", -1e-17))


def test_identical_systems_are_said_to_be_identical_not_a_difference():
    """Issue 52: equal on every pair is no "+0.0000 [...], p = 1.000"."""
    c = {"metric": "token_f1", "a": "x", "b": "y", "n_pairs": 12, "mean_difference": 0.0, "ci95": [0.0, 0.0],
         "p_value": 1.0, "significant": False, "identical": True}
    assert difference_line(c) == "token_f1: x and y identical on every sample (12 pairs)"
