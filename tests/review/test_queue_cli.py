"""`genevals review --queue N` in real processes: a run with planted jury splits is queued disputed-first,
reviewed through the server's API, exported with each answer's design fields, and `genevals validate` reports
the judge's whole-run agreement (stratified) beside the unweighted one; a second draw of another size and bad
options are refused (exit 2) naming what to do."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest
from support.review_server import REPO, ReviewProcess
from support.runs import add_judge, make_run

from genevals.review.store import read_store

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
       "HF_HUB_OFFLINE": "1"}


def plant_jury_splits(run: Path, every: int = 9) -> set[tuple[str, str]]:
    """Give the first verdict of every ``every``-th judged answer a jury whose two judges split; their keys."""
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    split, out = set(), []
    for n, line in enumerate(lines):
        row = json.loads(line)
        verdicts = ((row.get("metrics") or {}).get("faithfulness") or {}).get("details", {}).get("verdicts")
        if verdicts and n % every == 0:
            label = verdicts[0]["label"]
            verdicts[0]["jury"] = {"judge-a": label, "judge-b": "supported" if label != "supported" else "contradicted"}
            split.add((row.get("system", "default"), row["id"]))
        out.append(json.dumps(row, ensure_ascii=False))
    (run / "results.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
    return split


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    run = add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))
    return run, plant_jury_splits(run)


def genevals(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=ENV,
                          timeout=300)


def review_all(server: ReviewProcess, items: list[dict]) -> None:
    """Decide every claim of each answer as a reviewer who agrees with the judge except on split claims."""
    for entry in items:
        query = urlencode({"system": entry["system"], "sample_id": entry["sample_id"], "reviewer": "ann"})
        status, item = server.call("GET", f"/api/item?{query}")
        assert status == 200 and item["revealed"]  # not blind: the verdicts come at once
        for claim in item["claims"]:
            verdict = claim["verdict"]
            agree = verdict["label"] != "supported"
            decision = "confirmed" if agree != bool(verdict["jury"]) else "false_alarm"
            status, reply = server.call("POST", "/api/decisions", {"reviewer": "ann", "system": entry["system"],
                                        "sample_id": entry["sample_id"], "claim": claim["index"],
                                        "decision": decision})
            assert status == 201, reply


def test_queue_review_export_and_validate(judged, tmp_path):
    source, split = judged
    run = shutil.copytree(source, tmp_path / "run")
    server = ReviewProcess(run, "--queue", "12", "--queue-seed", "3")
    try:
        assert "queue of 12 answers from" in server.proc.stdout.readline()
        assert server.call("GET", "/report", raw=True)[0] == 200  # not blind: the report is still served
        status, listing = server.call("GET", "/api/items?reviewer=ann")
        items = listing["items"]
        assert status == 200 and listing["queue"] and len(items) == 12
        assert [i["position"] for i in items] == list(range(12))
        tiers = [i["stratum"].split("/")[1] for i in items]
        assert tiers[0] == "disputed" and tiers == sorted(tiers, key=["disputed", "uncertain", "settled"].index)
        assert {(i["system"], i["sample_id"]) for i in items if i["stratum"].endswith("disputed")} <= split
        review_all(server, items)
    finally:
        server.stop()
    assert "Traceback" not in server.stderr
    queue = read_store(run).queue
    assert len(queue.entries) == 12 and queue.seed == 3

    again = ReviewProcess(run, "--queue", "12")  # the same size continues the stored queue
    try:
        assert "continued from review.sqlite, seed 3" in again.proc.stdout.readline()
    finally:
        again.stop()
    other = genevals("review", str(run), "--queue", "13", "--port", "0")
    assert other.returncode == 2 and "already holds a review queue of 12 answers" in other.stderr
    assert "--queue 12" in other.stderr and "Traceback" not in other.stderr

    labels = tmp_path / "labels.jsonl"
    done = genevals("review", "export", str(run), "-o", str(labels))
    assert done.returncode == 0, done.stderr
    assert "review queue: 12 of the 12 answers it drew are labelled" in done.stdout
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12
    for r in rows:
        assert r["blind"] is False and 0 < r["inclusion_probability"] <= 1 and "/" in r["stratum"]
        assert r["inclusion_probability"] == pytest.approx(r["stratum_drawn"] / r["stratum_size"])
    out = tmp_path / "validation"
    checked = genevals("validate", str(labels), "--judge", "local", "-o", str(out), "--resamples", "100")
    assert checked.returncode == 0, checked.stderr
    assert "whole run (review queue: 12 labelled of" in checked.stdout and "unweighted accuracy=" in checked.stdout
    report = json.loads((out / "validation.json").read_text(encoding="utf-8"))
    weighted, plain = report["response_level_weighted"], report["response_level"]
    assert weighted["n"] == 12 and weighted["population"] == sum(queue.sizes.values())
    assert weighted["accuracy"] is not None and weighted["ci95"]["accuracy"][0] <= weighted["accuracy"]
    assert weighted["accuracy"] <= weighted["ci95"]["accuracy"][1]
    assert {s["stratum"] for s in weighted["strata"]} == set(queue.sizes)
    assert plain["scored"] == 12  # the unweighted figures stay beside them
    assert "The whole run (review queue)" in (out / "validation.html").read_text(encoding="utf-8")


def test_bad_queue_options_and_design_fields_are_refused(judged, tmp_path):
    plain = make_run(tmp_path / "plain")  # no judge: nothing to queue
    bad = genevals("review", str(plain), "--queue", "5", "--port", "0")
    assert bad.returncode == 2 and "no answer with judged claims to queue" in bad.stderr
    run = shutil.copytree(judged[0], tmp_path / "run")
    bad = genevals("review", str(run), "--queue", "0", "--port", "0")
    assert bad.returncode == 2 and "--queue" in bad.stderr and "Traceback" not in bad.stderr
    bad = genevals("review", "export", str(run), "-o", str(tmp_path / "x.jsonl"), "--blind")
    assert bad.returncode == 2 and "--blind and --queue serve a review" in bad.stderr
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"response": "a", "context": "b", "hallucinated": True, "stratum": "x",
                                  "inclusion_probability": 2}) + "\n", encoding="utf-8")
    bad = genevals("validate", str(labels), "-o", str(tmp_path / "v"))
    assert bad.returncode == 2 and "labels.jsonl:1: inclusion_probability: a number in (0, 1], not 2" in bad.stderr
