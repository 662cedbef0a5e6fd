"""A trace export whose systems share no question id: the run's hint (``--map id=question``) works with ``--from``
(it was refused), says why trace ids differ, and pairs the systems' traces by question; ``--show-mapping`` reads
the trace export too. ``--map`` with TREC runs is still refused."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGSMITH = ROOT / "tests" / "data" / "traces" / "langsmith_runs.jsonl"
TRACE = ["--from", "langsmith", "--system-from", "extra.metadata.system"]


def genevals(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def two_systems(tmp_path):
    """The same traces answered by a second system: other trace ids, same questions."""
    text = LANGSMITH.read_text()
    path = tmp_path / "runs.jsonl"
    path.write_text(text + text.replace("6f1c0a52", "7f1c0a52").replace('"system": "dense"', '"system": "sparse"'))
    return str(path)


def test_the_hint_for_traces_works(tmp_path):
    data = two_systems(tmp_path)
    first = genevals("run", data, *TRACE, "-o", str(tmp_path / "a"), "-m", "token_f1", "--no-history")
    [hint] = [line for line in first.stderr.splitlines() if "share no question id" in line]
    assert "A trace's id is its trace id" in hint and "run again with --map id=question" in hint
    assert "row number" not in hint
    again = genevals("run", data, *TRACE, "-o", str(tmp_path / "b"), "-m", "token_f1", "--no-history",
                     "--map", "id=question")
    assert again.returncode != 2, again.stderr
    assert "--from" not in again.stderr and "share no question id" not in again.stderr, again.stderr
    rows = [json.loads(line) for line in (tmp_path / "b" / "results.jsonl").read_text().splitlines()]
    by_system = {}
    for row in rows:
        by_system.setdefault(row["system"], set()).add(row["id"])
    assert {"dense", "sparse"} <= set(by_system) and by_system["dense"] & by_system["sparse"]
    assert all(row["id"] == row["question"] for row in rows)


def test_show_mapping_reads_the_trace_export(tmp_path):
    done = genevals("run", two_systems(tmp_path), *TRACE, "--map", "id=question", "--show-mapping")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.split("\n", 1)[1])
    assert shown["id"] == shown["question"] == "What is the capital of France?"
    wrong = genevals("run", two_systems(tmp_path), *TRACE, "--map", "id=questoin", "--show-mapping")
    assert wrong.returncode == 2 and "did you mean 'question'?" in wrong.stderr


def test_map_with_trec_runs_is_still_refused(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 1.0 x\n")
    done = genevals("run", "--qrels", str(qrels), "--run", str(run), "--map", "id=question", "-o", str(tmp_path / "o"))
    assert done.returncode == 2 and "not to --run input" in done.stderr
