"""A ``genevals generate`` killed with SIGKILL mid-run resumes from its journal: the finished files equal an
uninterrupted run's, byte for byte, and no item is made twice. Offline on Cranfield's documents, the qrels
file is scored by ``genevals run --qrels``."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import genevals, write_jsonl

pytestmark = pytest.mark.slow

FILES = ("testset.jsonl", "rejected.jsonl", "qrels.txt", "card.json")
CRANFIELD = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "cranfield" / "docs.jsonl"


def _rows(n):
    import random

    rng = random.Random(4)
    vocabulary = [f"w{i}" for i in range(3000)]
    return [{"id": f"d{d}", "text": " ".join(f"Part P{d}x{s} " + " ".join(rng.choices(vocabulary, k=12)) + "."
                                             for s in range(3))} for d in range(n)]


def test_a_killed_run_resumes_without_duplicating_items(tmp_path):
    docs = write_jsonl(tmp_path / "docs.jsonl", _rows(400))
    args = ["generate", str(docs), "-n", "400", "--seed", "2", "--no-embeddings"]
    whole = genevals(*args, "--out", tmp_path / "whole")
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "killed"
    journal = out / ".journal.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                                   os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-m", "genevals", *args, "--out", str(out)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") > 30:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    attempts = journal.read_bytes().count(b"\n") - 1
    assert 30 <= attempts < 400 and not (out / "card.json").exists()
    again = genevals(*args, "--out", out)
    assert again.returncode == 0, again.stderr
    assert {f: (out / f).read_bytes() for f in FILES} == {f: (tmp_path / "whole" / f).read_bytes() for f in FILES}
    # Ctrl-C: exit 130, said, and the same command resumes
    stopped = tmp_path / "stopped"
    process = subprocess.Popen([sys.executable, "-m", "genevals", *args, "--out", str(stopped)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if (stopped / ".journal.jsonl").exists() and (stopped / ".journal.jsonl").read_bytes().count(b"\n") > 30:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGINT)
    stderr = process.communicate(timeout=120)[1]
    assert process.returncode == 130 and "the same command resumes" in stderr, stderr
    assert "Traceback" not in stderr
    assert genevals(*args, "--out", stopped).returncode == 0
    assert (stopped / "testset.jsonl").read_bytes() == (tmp_path / "whole" / "testset.jsonl").read_bytes()
    ids = [json.loads(line)["id"] for line in (out / "testset.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 400
    # a journal cut inside a line (a kill while writing) loses that attempt only
    text = journal.read_text()
    journal.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 20])
    assert genevals(*args, "--out", out).returncode == 0
    assert (out / "testset.jsonl").read_bytes() == (tmp_path / "whole" / "testset.jsonl").read_bytes()
    other = genevals("generate", str(docs), "-n", "401", "--seed", "2", "--out", out)
    assert other.returncode == 2 and "holds another run" in other.stderr


@pytest.mark.skipif(not CRANFIELD.exists(), reason="shared/datasets/cranfield is not in this checkout")
def test_offline_on_cranfield_writes_n_items_and_qrels_that_genevals_run_scores(tmp_path):
    out = tmp_path / "out"
    done = genevals("generate", CRANFIELD, "--out", out, "-n", 60, "--no-embeddings")
    assert done.returncode == 0, done.stderr
    assert "docs.jsonl:471: field 'text': empty, skipped" in done.stderr
    rows = [json.loads(line) for line in (out / "testset.jsonl").read_text().splitlines()]
    assert len(rows) == 60 and len({r["metadata"]["reference_contexts"][0]["doc_id"] for r in rows}) == 60
    # a run that ranks each item's own chunk first, then another: MRR 1 exactly
    with open(tmp_path / "oracle.run", "w") as run:
        for row in rows:
            chunk = next(iter(row["relevant"]))
            run.write(f"{row['id']} Q0 {chunk} 1 2.0 oracle\n{row['id']} Q0 unjudged#0 2 1.0 oracle\n")
    scored = genevals("run", "--qrels", out / "qrels.txt", "--run", tmp_path / "oracle.run", "--out",
                      tmp_path / "r", "--metrics", "mrr")
    assert scored.returncode == 0, scored.stderr
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["systems"]["oracle"]["mrr"]["scored"] == 60 and summary["systems"]["oracle"]["mrr"]["mean"] == 1.0
