"""tests/support/forked.py: a ``python -m genevals`` call forked from the warm server gives what a cold interpreter
gives (exit code, stdout, stderr, files), with the caller's arguments, working folder and environment, and its
time limit; calls that need a fresh interpreter are not forked."""
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import DEMO
from support import forked

GENEVALS = [sys.executable, "-m", "genevals"]


def both(args, **kwargs):
    """The call forked and cold; a fork server of this test's own (the suite's may be off)."""
    return forked.forked_run([*GENEVALS, *args], **kwargs), forked._REAL_RUN([*GENEVALS, *args], **kwargs)


def test_a_run_forked_gives_what_a_cold_interpreter_gives(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    runs = [forked.forked_run([*GENEVALS, "run", str(DEMO), "-m", "token_f1", "--out", "out", "--fail-under",
                               "token_f1=0.99"], capture_output=True, text=True, timeout=120, cwd=tmp_path / "a"),
            forked._REAL_RUN([*GENEVALS, "run", str(DEMO), "-m", "token_f1", "--out", "out", "--fail-under",
                              "token_f1=0.99"], capture_output=True, text=True, timeout=120, cwd=tmp_path / "b")]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout
    assert re.sub(r"run #\d+", "run #N", runs[0].stderr.replace("/a/", "/b/")) == re.sub(r"run #\d+", "run #N",
                                                                                      runs[1].stderr)
    summaries = [json.loads((tmp_path / name / "out" / "summary.json").read_text()) for name in ("a", "b")]
    assert summaries[0]["systems"] == summaries[1]["systems"] and summaries[0]["comparisons"] == summaries[1][
        "comparisons"]


def test_usage_errors_and_the_environment_reach_the_child(tmp_path):
    fork, cold = both(["run", "--no-such-option"], capture_output=True, text=True, timeout=60)
    assert (fork.returncode, fork.stdout, fork.stderr) == (cold.returncode, cold.stdout, cold.stderr) != (0, "", "")
    rows = "".join(json.dumps({"id": str(i), "answer": "Oslo", "references": ["Oslo"]}) + "\n" for i in range(3))
    env = dict(os.environ, GENEVALS_HISTORY=str(tmp_path / "mine.sqlite"))
    data = tmp_path / "d.jsonl"
    data.write_text(rows)
    done = forked.forked_run([*GENEVALS, "run", str(data), "-m", "exact_match", "--out", str(tmp_path / "h")],
                             capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mine.sqlite").is_file()  # the history the caller's environment names, not the server's


def test_merged_streams_check_and_the_time_limit():
    fork, cold = both(["run", "--no-such-option"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                      timeout=60)
    assert fork.stdout == cold.stdout and "--no-such-option" in fork.stdout and fork.stderr is None
    with pytest.raises(subprocess.CalledProcessError):
        forked.forked_run([*GENEVALS, "run", "--no-such-option"], capture_output=True, check=True, timeout=60)

def test_a_child_past_its_time_limit_is_killed(tmp_path):
    made = forked.forked_run([*GENEVALS, "run", str(DEMO), "-m", "exact_match", "--out", str(tmp_path / "run"), "-q"],
                             capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    with pytest.raises(subprocess.TimeoutExpired):  # `review` serves until stopped
        forked.forked_run([*GENEVALS, "review", str(tmp_path / "run"), "--port", "0"], capture_output=True,
                          timeout=3)


def test_only_calls_a_fresh_interpreter_would_answer_the_same_are_forked():
    server = forked.server_env()
    plain = {"capture_output": True, "text": True}
    assert forked.forkable([*GENEVALS, "run"], (), plain, server)
    assert not forked.forkable([sys.executable, "-c", "print(1)"], (), plain, server)
    assert not forked.forkable([sys.executable, "-X", "importtime", "-m", "genevals"], (), plain, server)
    assert not forked.forkable([*GENEVALS, "run"], (), {}, server)  # output not captured
    assert not forked.forkable([*GENEVALS, "run"], (), {**plain, "input": "rows"}, server)
    assert not forked.forkable([*GENEVALS, "run"], (), {**plain, "start_new_session": True}, server)
    for name, value in (("PYTHONPATH", "/somewhere/else"), ("PYTHONHASHSEED", "7"), ("LC_ALL", "C"),
                        ("PYTHONPATH", os.pathsep.join(["/a/checkout", os.environ.get("PYTHONPATH", "")]))):
        assert not forked.forkable([*GENEVALS, "run"], (), {**plain, "env": {**server, name: value}}, server)
    assert forked.forkable([*GENEVALS, "run"], (), {**plain, "env": {**server, "GENEVALS_X": "1"}}, server)
