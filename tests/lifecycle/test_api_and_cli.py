"""One run, two drivers (issue 48): ``genevals.evaluate(..., out_dir=, report=True, history=, fail_under=)`` and
``genevals run`` with the same options write byte-identical results.jsonl and summary.json, the same history row
(but for when it ran and where), and reach the same verdict: the API's ``results.verdict.exit_code`` is the
command's exit code, for a pass, a missed threshold, a judge that failed (the fault-injecting server) and a judge
that failed its agreement gate (the offline checker against people's labels). The commands run in real
processes; the history is a real SQLite file."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.agreement_data import labels, rows, write_jsonl
from support.fault_server import FaultServer

import genevals

pytestmark = pytest.mark.slow  # real `genevals run` processes, and the offline checker's model

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"
#: the history's columns that say when and where a run happened, not what it found
WHEN = {"id", "started", "finished", "seconds", "out_dir"}


def command(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run([sys.executable, "-m", "genevals", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=600, env=env, cwd=cwd, check=False)


def history_rows(path):
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        found = {}
        for table in tables:
            found[table] = [{k: r[k] for k in r.keys() if k not in WHEN} for r in db.execute(f"SELECT * FROM {table}")]
        return found


def same_files(a, b):
    for name in ("results.jsonl", "summary.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert (a / "report.html").is_file() and (b / "report.html").is_file()


@pytest.fixture()
def demo(tmp_path):
    """The demo file copied where both drivers name it alike (summary.json records the input as given)."""
    shutil.copy(DEMO, tmp_path / "demo.jsonl")
    return tmp_path


def test_a_passing_run_writes_the_same_files_and_history_row(demo, monkeypatch):
    monkeypatch.chdir(demo)
    done = command("demo.jsonl", "-o", "cli", "-m", "token_f1,rouge", "--history", "cli.sqlite",
                   "--fail-under", "token_f1=0.1", cwd=demo)
    assert done.returncode == 0, done.stderr
    results = genevals.evaluate("demo.jsonl", ["token_f1", "rouge"], out_dir="api", report=True,
                                history="api.sqlite", fail_under={"token_f1": 0.1})
    assert results.verdict.exit_code == done.returncode == 0 and results.verdict.passed
    same_files(demo / "cli", demo / "api")
    cli, api = history_rows(demo / "cli.sqlite"), history_rows(demo / "api.sqlite")
    assert cli == api and sum(len(rows) for rows in cli.values()) > 0
    assert any(m.text.startswith("genevals: recorded as run #1 in ") for m in results.verdict.messages)


def test_a_missed_threshold_is_exit_1_on_both(demo, monkeypatch):
    monkeypatch.chdir(demo)
    done = command("demo.jsonl", "-o", "cli", "-m", "token_f1", "--no-history", "--fail-under", "token_f1=0.99",
                   cwd=demo)
    results = genevals.evaluate("demo.jsonl", ["token_f1"], out_dir="api", report=True,
                                fail_under={"token_f1": 0.99})
    assert done.returncode == results.verdict.exit_code == 1
    missed = [line for line in done.stderr.splitlines() if "threshold missed" in line]
    assert missed and missed == [m.text for m in results.verdict.messages if "threshold missed" in m.text]
    assert results.verdict.missed and not results.verdict.passed
    same_files(demo / "cli", demo / "api")


JUDGED = [{"id": "ok", "answer": "Paris is in France.", "contexts": ["Paris is in France."]},
          {"id": "bad", "answer": "Paris is in France. FAULT500", "contexts": ["Paris is in France."]}]


def test_a_judge_that_failed_is_exit_3_on_both(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = write_jsonl(tmp_path / "judged.jsonl", JUDGED)
    with FaultServer() as server:
        done = command(data.name, "-o", "cli", "-m", "faithfulness", "--no-history", "--judge-base-url",
                       server.base_url, "--judge-model", "judge", "--judge-retries", "0", "--no-judge-cache",
                       "--no-preflight", cwd=tmp_path)
        results = genevals.evaluate(data.name, ["faithfulness"], out_dir="api",
                                    judge={"base_url": server.base_url, "model": "judge", "max_retries": 0,
                                           "cache": False})
    assert done.returncode == results.verdict.exit_code == 3, done.stderr
    assert results.verdict.judge_failed
    assert "more than --max-judge-errors 0.05" in done.stderr
    assert any("more than --max-judge-errors 0.05" in m.text for m in results.verdict.messages)
    # allowed failures: the same run passes on both
    loose = genevals.evaluate(data.name, ["faithfulness"], max_judge_errors=1.0,
                              judge={"base_url": "http://127.0.0.1:9/v1", "model": "m", "max_retries": 0,
                                     "cache": False})
    assert loose.verdict.exit_code == 1 and loose.verdict.unscored  # nothing scored: exit 1, not 3


def test_a_judge_that_failed_its_agreement_gate_is_exit_3_on_both(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(key)  # the offline checker judges
    data = rows(30)
    for row in data:
        row["references"] = [row["contexts"][0]]
    write_jsonl(tmp_path / "data.jsonl", data)
    write_jsonl(tmp_path / "disagree.jsonl", labels(data, flip=12))
    done = command("data.jsonl", "-o", "cli", "-m", "faithfulness,token_f1", "--no-history",
                   "--require-agreement", "disagree.jsonl", "--fail-under", "faithfulness=0.4", cwd=tmp_path)
    results = genevals.evaluate("data.jsonl", ["faithfulness", "token_f1"], out_dir="api", report=True,
                                require_agreement="disagree.jsonl", fail_under={"faithfulness": 0.4})
    assert done.returncode == results.verdict.exit_code == 3, done.stderr
    assert not results.verdict.agreement.passed and results.verdict.agreement.kappa == pytest.approx(0.2, abs=0.01)
    assert [t.metric for t in results.verdict.set_aside] == ["faithfulness"]
    assert json.loads((tmp_path / "api" / "summary.json").read_text())["meta"]["judge_agreement"]["outcome"] == \
        "below_minimum"
    same_files(tmp_path / "cli", tmp_path / "api")


def test_what_needs_a_folder_is_refused_without_one():
    with pytest.raises(genevals.InputError, match="history: needs out_dir"):
        genevals.evaluate([{"id": "a", "answer": "x", "references": ["x"]}], ["token_f1"], history=True)


def test_a_run_in_memory_still_gets_a_verdict():
    results = genevals.evaluate([{"id": "a", "answer": "x y", "references": ["x"]}], ["token_f1"],
                                fail_under={"token_f1": 0.9})
    assert results.verdict.exit_code == 1 and results.verdict.report is None
    assert results.verdict.missed == ("default: token_f1 = 0.6667 < 0.9 (--fail-under)",)
