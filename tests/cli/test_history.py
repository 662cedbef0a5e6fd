"""The run history as a user meets it (issue 26): `genevals run` records itself, `genevals history` lists and
shows runs, `--baseline` fails a run whose gated metric regressed; two runs at once, and a run killed with
SIGKILL, leave the history whole. Every command runs in a real process."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from support.fault_server import FaultServer


def genevals(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300,
                          env=env, **kw)


def rows(n, wrong=(), system=None):
    """n questions, answered with their reference except those in ``wrong``."""
    out = []
    for i in range(n):
        row = {"id": f"q{i}", "question": f"question {i}", "answer": "no idea at all" if i in wrong else f"answer {i}",
               "references": [f"answer {i}"], "contexts": [f"answer {i} is here"], "relevant": ["1"]}
        if system:
            row["system"] = system
        out.append(row)
    return out


def write(path, data):
    path.write_text("".join(json.dumps(r) + "\n" for r in data))
    return path


def runs_in(path):
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return db.execute("SELECT id, out_dir FROM runs ORDER BY id").fetchall()


@pytest.fixture
def history(tmp_path):
    return tmp_path / "h" / "history.sqlite"


def test_a_run_is_recorded_listed_and_shown(tmp_path, history):
    data = write(tmp_path / "d.jsonl", rows(6))
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-m", "token_f1,mrr", "--history",
                    str(history))
    assert done.returncode == 0, done.stderr
    assert f"recorded as run #1 in {history}" in done.stderr  # a note: -q leaves it out
    with sqlite3.connect(history) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
        input_digest, summary = db.execute("SELECT input_digest, summary FROM runs").fetchone()
        stored = {m for (m,) in db.execute("SELECT metric FROM sample_values")}
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert input_digest == manifest["input_digest"]
    assert json.loads(summary)["default"]["token_f1"]["mean"] == 1.0
    assert {"token_f1", "mrr"} <= stored
    listed = genevals("history", "--history", str(history))
    assert listed.returncode == 0 and "#1 " in listed.stdout and "6 samples" in listed.stdout
    shown = genevals("history", "show", "1", "--history", str(history))
    assert shown.returncode == 0, shown.stderr
    assert "token_f1:" in shown.stdout and "1.0000 [1.00, 1.00]" in shown.stdout
    missing = genevals("history", "show", "7", "--history", str(history))
    assert missing.returncode == 2 and "run '7': not in the history" in missing.stderr and "(run 1)" in missing.stderr


def test_no_history_records_nothing_and_the_environment_names_the_default(tmp_path):
    data = write(tmp_path / "d.jsonl", rows(3))
    env = {**os.environ, "GENEVALS_HISTORY": str(tmp_path / "env.sqlite")}
    assert genevals("run", str(data), "-o", str(tmp_path / "a"), "-q", "--no-history", env=env).returncode == 0
    assert not (tmp_path / "env.sqlite").exists()
    assert genevals("run", str(data), "-o", str(tmp_path / "b"), "-q", env=env).returncode == 0
    assert len(runs_in(tmp_path / "env.sqlite")) == 1
    # without GENEVALS_HISTORY: the user's data folder
    env = {k: v for k, v in os.environ.items() if k != "GENEVALS_HISTORY"} | {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert genevals("run", str(data), "-o", str(tmp_path / "c"), "-q", env=env).returncode == 0
    assert len(runs_in(tmp_path / "xdg" / "genevals" / "history.sqlite")) == 1


def test_baseline_fails_on_a_significant_regression_of_a_gated_metric(tmp_path, history):
    good, worse = write(tmp_path / "good.jsonl", rows(20)), write(tmp_path / "worse.jsonl", rows(20, range(12)))
    h = ["--history", str(history), "-q", "-m", "token_f1,mrr"]
    assert genevals("run", str(good), "-o", str(tmp_path / "a"), *h).returncode == 0
    gated = genevals("run", str(worse), "-o", str(tmp_path / "b"), *h, "--baseline", "1",
                     "--fail-under", "token_f1=0.1")
    assert gated.returncode == 1, gated.stderr
    assert "token_f1 0.4000 vs 1.0000 in run #1 on 20 shared ids" in gated.stderr
    assert "REGRESSION (gated)" in gated.stderr and "threshold missed" not in gated.stderr
    # the same regression of a metric that is not gated is reported, and does not fail the run
    ungated = genevals("run", str(worse), "-o", str(tmp_path / "c"), *h, "--baseline", "1",
                       "--fail-under", "mrr=0.5")
    assert ungated.returncode == 0, ungated.stderr
    assert "token_f1 0.4000 vs 1.0000" in ungated.stderr and "REGRESSION" in ungated.stderr
    # against itself: no change (issue 52: identical on every sample, no test), exit 0
    same = genevals("run", str(good), "-o", str(tmp_path / "d"), *[a for a in h if a != "-q"], "--baseline", "1",
                    "--fail-under", "token_f1=0.1")
    assert same.returncode == 0 and "identical on every sample (gated)" in same.stderr
    assert [row[0] for row in runs_in(history)] == [1, 2, 3, 4]


def test_a_baseline_the_history_lacks_is_bad_input_before_scoring(tmp_path, history):
    data = write(tmp_path / "d.jsonl", rows(3))
    done = genevals("run", str(data), "-o", str(tmp_path / "o"), "-q", "--history", str(history), "--baseline", "3")
    assert done.returncode == 2 and "--baseline: run '3': not in the history" in done.stderr
    assert not (tmp_path / "o" / "results.jsonl").exists()
    wrong = genevals("run", str(data), "-o", str(tmp_path / "o"), "-q", "--history", str(history), "--baseline", "x")
    assert wrong.returncode == 2 and "expected a run id, latest or latest~N" in wrong.stderr


def test_a_newer_schema_or_another_file_is_refused_by_name(tmp_path, history):
    data = write(tmp_path / "d.jsonl", rows(2))
    history.parent.mkdir()
    with sqlite3.connect(history) as db:
        db.execute("PRAGMA user_version = 99")
    done = genevals("run", str(data), "-o", str(tmp_path / "o"), "-q", "--history", str(history))
    assert done.returncode == 2 and "written by a newer genevals (schema 99" in done.stderr
    other = tmp_path / "notes.txt"
    other.write_text("not a database, just text " * 100)
    done = genevals("history", "--history", str(other))
    assert done.returncode == 2 and f"{other}: not a genevals history" in done.stderr


def test_two_runs_at_once_lose_nothing(tmp_path, history):
    """Both processes record into one history at the same moment (they start together on the same data); each is
    there, whole, and the file passes SQLite's integrity check."""
    data = write(tmp_path / "d.jsonl", rows(30))
    args = ["--history", str(history), "-q", "-m", "token_f1,exact_match,mrr"]
    for round_ in range(2):
        procs = [subprocess.Popen([sys.executable, "-m", "genevals", "run", str(data), "-o",
                                   str(tmp_path / f"o{round_}{i}"), *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for i in range(3)]
        for proc in procs:
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err
    found = runs_in(history)
    assert len(found) == 6
    assert {out.rsplit("/", 1)[-1] for _, out in found} == {f"o{r}{i}" for r in range(2) for i in range(3)}
    with sqlite3.connect(history) as db:  # each run's per-sample values are there with it
        assert db.execute("SELECT COUNT(DISTINCT run_id) FROM sample_values").fetchone()[0] == 6


def test_a_run_killed_mid_run_leaves_the_history_as_it_was(tmp_path, history):
    data = write(tmp_path / "d.jsonl", rows(4))
    assert genevals("run", str(data), "-o", str(tmp_path / "first"), "-q", "--history", str(history)).returncode == 0
    slow = write(tmp_path / "slow.jsonl", [{"id": f"s{i}", "answer": f"Claim {i}.", "contexts": [f"Claim {i}."]}
                                           for i in range(40)])
    with FaultServer(latency=0.3, slots=1) as server:
        proc = subprocess.Popen([sys.executable, "-m", "genevals", "run", str(slow), "-o", str(tmp_path / "killed"),
                                 "-q", "-m", "faithfulness", "--judge-base-url", server.base_url, "--judge-model",
                                 "judge", "--no-judge-cache", "--history", str(history)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while server.total < 4 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert [out.rsplit("/", 1)[-1] for _, out in runs_in(history)] == ["first"]
    assert genevals("run", str(data), "-o", str(tmp_path / "after"), "-q", "--history", str(history)).returncode == 0
    assert [out.rsplit("/", 1)[-1] for _, out in runs_in(history)] == ["first", "after"]


def test_the_judge_key_and_url_credentials_never_reach_the_history(tmp_path, history):
    """The key in a system name and an output folder (where a careless script may put it), with a judge that
    echoes it: the history holds it nowhere, the WAL included."""
    key = "sk-history-key-0123456789ABCDEF"
    data = write(tmp_path / "d.jsonl", [{"id": "1", "answer": "Marie Curie was born in Warsaw. FAULTECHO.",
                                         "contexts": ["Marie Curie was born in Warsaw."], "system": f"sys-{key}"}])
    env = {**os.environ, "OPENAI_API_KEY": key}
    with FaultServer() as server:
        done = genevals("run", str(data), "-o", str(tmp_path / f"out-{key}"), "-q", "-m", "faithfulness,token_f1",
                        "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache",
                        "--history", str(history), env=env)
    assert done.returncode in (0, 1), done.stderr
    assert runs_in(history)
    files = list(history.parent.iterdir())
    assert files and all(key.encode() not in path.read_bytes() for path in files)
    with sqlite3.connect(history) as db:
        systems, out_dir = db.execute("SELECT systems, out_dir FROM runs").fetchone()
    assert json.loads(systems) == ["sys-***"] and out_dir.endswith("out-***")
