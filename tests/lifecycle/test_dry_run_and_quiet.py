"""Issue 52, points 7 and 8, in real processes: a dry run (the judge priced, not called) exits 0, names the
thresholds it cannot check, and never touches the history; ``-q`` prints no history line, and with two systems
prints the sentence that says which is better (the docs' promise)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # real `genevals run` processes

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"
#: nothing listens there: a dry run must not call it
UNREACHABLE = "http://127.0.0.1:9/v1"


def genevals(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run([sys.executable, "-m", "genevals", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=600, env=env, cwd=cwd, check=False)


@pytest.fixture()
def demo(tmp_path):
    shutil.copy(DEMO, tmp_path / "demo.jsonl")
    return tmp_path


def test_a_dry_run_exits_0_and_is_not_recorded(demo):
    done = genevals("demo.jsonl", "-o", "dry", "-m", "faithfulness,token_f1", "--dry-run", "--judge-base-url",
                    UNREACHABLE, "--judge-model", "m", "--history", "h.sqlite", "--fail-under", "faithfulness=0.5",
                    "--fail-under", "token_f1=0.1", cwd=demo)
    assert done.returncode == 0, done.stderr
    assert "genevals: error" not in done.stderr
    assert "threshold not checked on a dry run: faithfulness" in done.stderr
    assert "a dry run is not recorded in the history" in done.stderr
    assert not (demo / "h.sqlite").exists()
    assert (demo / "dry" / "results.jsonl").is_file()


def test_a_dry_run_still_fails_a_threshold_it_can_check(demo):
    done = genevals("demo.jsonl", "-o", "dry", "-m", "faithfulness,token_f1", "--dry-run", "--judge-base-url",
                    UNREACHABLE, "--judge-model", "m", "--no-history", "--fail-under", "token_f1=0.99", "-q",
                    cwd=demo)
    assert done.returncode == 1, done.stderr
    assert "genevals: threshold missed: dense: token_f1 = 0.5387 < 0.99 (--fail-under)" in done.stderr


def test_quiet_prints_the_finding_and_no_history_line(demo):
    done = genevals("demo.jsonl", "-o", "q", "-m", "token_f1", "--history", "h.sqlite", "-q", cwd=demo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["finding: token_f1 difference is not significant"]
    assert done.stderr == ""
    assert (demo / "h.sqlite").is_file()  # recorded all the same
