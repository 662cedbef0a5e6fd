"""Thresholds in both directions, as a user runs them: the wrong flag, an unknown or uncomputed metric and a
value outside the declared range exit 2 before anything is scored, naming the right flag; a missed one exits 1."""
import json
import subprocess
import sys

import pytest

from conftest import DEMO

METRICS = "token_f1,rouge,retrieval"


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("flags, message", [
    (["--fail-under", "tokenf1=0.5"], "unknown metric 'tokenf1'; did you mean 'token_f1'?"),
    (["--fail-under", "token_f1=1.5"], "1.5 is outside token_f1's range [0, 1]"),
    (["--fail-under", "first_relevant_rank=2"],
     "first_relevant_rank is lower-is-better; use --fail-over first_relevant_rank=2"),
    (["--fail-over", "mrr=0.2"], "mrr is higher-is-better; use --fail-under mrr=0.2"),
    (["--fail-over", "first_relevant_rank=0.5"], "0.5 is outside first_relevant_rank's range [1, inf]"),
    (["--fail-under", "contradiction_rate=0.1"],
     "contradiction_rate is not computed in this run (it computes"),
    (["--fail-under", "contradiction_rate=0.1"], "it takes --fail-over"),
])
def test_a_bad_threshold_exits_2_before_scoring(tmp_path, flags, message):
    out = tmp_path / "out"
    done = genevals("run", str(DEMO), "--out", str(out), "-q", "--metrics", METRICS, *flags)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()  # nothing was scored or written


def test_fail_over_on_an_error_rate_and_a_rank(tmp_path):
    out = tmp_path / "out"
    done = genevals("run", str(DEMO), "--out", str(out), "-q", "--metrics", METRICS,
                    "--fail-over", "first_relevant_rank=1.2", "--fail-under", "mrr=0.5")
    assert done.returncode == 1, done.stderr
    # dense 1.7037 and sparse 1.2963 are above the maximum; hybrid 1.1111 is within it
    assert "dense: first_relevant_rank = 1.7037 > 1.2 (--fail-over)" in done.stderr
    assert "sparse: first_relevant_rank = 1.2963 > 1.2 (--fail-over)" in done.stderr
    assert "hybrid: first_relevant_rank" not in done.stderr and "mrr" not in done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["meta"]["fail_over"] == {"first_relevant_rank": 1.2}
    assert summary["meta"]["fail_under"] == {"mrr": 0.5}
    passed = genevals("report", str(out), "--fail-over", "first_relevant_rank=2")
    assert passed.returncode == 0, passed.stderr


def test_report_checks_thresholds_and_config_files_the_same_way(tmp_path):
    out = tmp_path / "out"
    assert genevals("run", str(DEMO), "--out", str(out), "-q", "--metrics", METRICS).returncode == 0
    wrong = genevals("report", str(out), "--fail-under", "first_relevant_rank=2")
    assert wrong.returncode == 2 and "use --fail-over first_relevant_rank=2" in wrong.stderr
    typo = genevals("report", str(out), "--fail-under", "tokenf1=0.5")
    assert typo.returncode == 2 and "did you mean 'token_f1'?" in typo.stderr
    config = tmp_path / "t.json"
    config.write_text(json.dumps({"first_relevant_rank": 1.5}))  # a flat config holds minimums
    flat = genevals("report", str(out), "--config", str(config))
    assert flat.returncode == 2 and "use --fail-over first_relevant_rank=1.5" in flat.stderr
    config.write_text(json.dumps({"fail_over": {"first_relevant_rank": 1.5}, "fail_under": {"token_f1": 0.4}}))
    missed = genevals("report", str(out), "--config", str(config))
    assert missed.returncode == 1, missed.stderr
    assert "dense: first_relevant_rank = 1.7037 > 1.5 (--fail-over)" in missed.stderr
    config.write_text(json.dumps({"fail_over": {"token_f1": 2}}))
    both = genevals("report", str(out), "--config", str(config))
    assert both.returncode == 2 and "use --fail-under token_f1=2" in both.stderr
    missing = genevals("report", str(out), "--config", str(tmp_path / "nosuch.json"))
    assert missing.returncode == 2 and f"--config {tmp_path / 'nosuch.json'}: file not found" in missing.stderr
