"""``--baseline`` cannot compare nothing and pass (issue 37): ``latest`` is the latest run of this input (by
content digest, else file name), a baseline sharing no question id with the run is exit 2 naming why, ``-q``
prints regressions only, and a copied input continues its trend. Every command is a real process on a real
history file (``GENEVALS_HISTORY``)."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest


def rows(n, wrong=(), first=0):
    """n questions q{first}.., answered with their reference except those in ``wrong``."""
    return [{"id": f"q{first + i}", "question": f"question {i}",
             "answer": "no idea at all" if i in wrong else f"answer {i}", "references": [f"answer {i}"],
             "contexts": [f"answer {i} is here"], "relevant": ["1"]} for i in range(n)]


def write(path, data):
    path.write_text("".join(json.dumps(r) + "\n" for r in data))
    return path


@pytest.fixture
def genevals(tmp_path):
    env = {**os.environ, "GENEVALS_HISTORY": str(tmp_path / "history.sqlite"), "HF_HUB_OFFLINE": "1"}
    counter = iter(range(1000))

    def run(*args, out=True):
        argv = [sys.executable, "-m", "genevals", *args]
        if out:
            argv += ["-o", str(tmp_path / f"out{next(counter)}"), "-m", "token_f1,mrr"]
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    return run


def test_latest_is_this_inputs_run_even_when_another_inputs_run_is_newer(tmp_path, genevals):
    answers = write(tmp_path / "answers.jsonl", rows(20))
    assert genevals("run", str(answers)).returncode == 0  # run 1
    other = write(tmp_path / "other.jsonl", rows(20, first=100))
    assert genevals("run", str(other)).returncode == 0  # run 2: newer, another input
    write(answers, rows(20, wrong=range(12)))  # edited in place: a new digest, the same name
    worse = genevals("run", str(answers), "-q", "--baseline", "latest", "--fail-under", "token_f1=0.1")  # run 3
    assert worse.returncode == 1, worse.stderr
    assert "token_f1 0.4000 vs 1.0000 in run #1 on 20 shared ids" in worse.stderr
    assert "REGRESSION (gated)" in worse.stderr
    assert genevals("run", str(other)).returncode == 0  # run 4
    # a copy keeps the digest: the same input as run 3, under another name
    copy = shutil.copy(answers, tmp_path / "copy.jsonl")
    same = genevals("run", str(copy), "--baseline", "latest", "--fail-under", "token_f1=0.1")
    assert same.returncode == 0, same.stderr
    assert "token_f1 0.4000 vs 0.4000 in run #3 on 20 shared ids" in same.stderr
    assert "identical on every sample (gated)" in same.stderr and "another input" not in same.stderr


def test_a_baseline_of_another_input_is_exit_2_naming_why(tmp_path, genevals):
    other = write(tmp_path / "other.jsonl", rows(30, first=100))
    assert genevals("run", str(other)).returncode == 0
    answers = write(tmp_path / "answers.jsonl", rows(20))
    done = genevals("run", str(answers), "-q", "--baseline", "1", "--fail-under", "token_f1=0.1")
    assert done.returncode == 2, done.stderr
    assert "genevals: error: --baseline 1: run #1 (" in done.stderr and "other.jsonl" in done.stderr
    assert "it has 30 question ids, this run 20, none shared; nothing would be compared" in done.stderr
    assert "Traceback" not in done.stderr
    # refused before scoring: nothing written, nothing recorded
    assert not list(tmp_path.glob("out1/*")) and "1 run in" in genevals("history", out=False).stdout
    # the same question ids in another file (another system's answers) are compared, with a note
    mine = write(tmp_path / "mine.jsonl", rows(30))
    assert genevals("run", str(mine)).returncode == 0  # run 2
    theirs = write(tmp_path / "theirs.jsonl", rows(30, wrong=range(20)))
    compared = genevals("run", str(theirs), "--baseline", "2", "--fail-under", "token_f1=0.1")
    assert compared.returncode == 1, compared.stderr
    assert "is of another input than this run's" in compared.stderr and "on 30 shared ids" in compared.stderr


def test_latest_with_no_run_of_this_input_is_exit_2(tmp_path, genevals):
    for name in ("one.jsonl", "two.jsonl"):
        assert genevals("run", str(write(tmp_path / name, rows(10, first=50)))).returncode == 0
    answers = write(tmp_path / "answers.jsonl", rows(10))
    done = genevals("run", str(answers), "-q", "--baseline", "latest")
    assert done.returncode == 2, done.stderr
    assert "--baseline latest: no earlier run of this input (" in done.stderr
    assert "#2 (" in done.stderr and "two.jsonl" in done.stderr
    assert not list(tmp_path.glob("out2/*")) and "2 runs in" in genevals("history", out=False).stdout
    # latest~N counts the runs of this input only
    assert genevals("run", str(answers)).returncode == 0  # run 3
    back = genevals("run", str(answers), "-q", "--baseline", "latest~1")
    assert back.returncode == 2 and "holds 1 earlier run of this input" in back.stderr, back.stderr
    assert genevals("run", str(answers)).returncode == 0  # run 4
    assert genevals("run", str(answers), "-q", "--baseline", "latest~1").returncode == 0


def test_quiet_prints_regressions_only(tmp_path, genevals):
    answers = write(tmp_path / "answers.jsonl", rows(20))
    assert genevals("run", str(answers)).returncode == 0
    quiet_same = genevals("run", str(answers), "-q", "--baseline", "latest")
    assert quiet_same.returncode == 0, quiet_same.stderr
    assert "genevals: baseline" not in quiet_same.stderr and "--baseline" not in quiet_same.stderr
    write(answers, rows(20, wrong=range(12)))
    quiet = genevals("run", str(answers), "-q", "--baseline", "1")
    assert quiet.returncode == 0, quiet.stderr
    lines = [line for line in quiet.stderr.splitlines() if "baseline" in line and "recorded as" not in line]
    assert lines and all("REGRESSION" in line for line in lines), quiet.stderr
    assert not any("mrr" in line for line in lines)  # unchanged: said only without -q
    loud = genevals("run", str(answers), "--baseline", "1")
    assert "mrr 1.0000 vs 1.0000" in loud.stderr and "identical on every sample" in loud.stderr, loud.stderr


def test_a_copied_input_continues_its_trend(tmp_path, genevals):
    answers = write(tmp_path / "answers.jsonl", rows(10))
    assert genevals("run", str(answers)).returncode == 0
    assert genevals("run", str(write(tmp_path / "other.jsonl", rows(10, first=50)))).returncode == 0
    copy = shutil.copy(answers, tmp_path / "elsewhere.jsonl")
    assert genevals("run", str(copy)).returncode == 0
    shown = genevals("history", "show", "latest", out=False)
    assert shown.returncode == 0, shown.stderr
    assert "trends across 2 runs of this input" in shown.stdout
    block = shown.stdout.split("token_f1:")[1]
    assert "#1 " in block and "#3 " in block and "#2 " not in block
    # the report's Trends tab takes the same runs
    report = tmp_path / "t.html"
    done = genevals("report", str(tmp_path / "out2"), "--history", "-o", str(report), out=False)
    assert done.returncode == 0, done.stderr
    embedded = re.search(r'<script type="application/json" id="genevals-data">(.*?)</script>', report.read_text(),
                         re.S).group(1)
    assert [run["id"] for run in json.loads(embedded)["history"]["runs"]] == [1, 3]
