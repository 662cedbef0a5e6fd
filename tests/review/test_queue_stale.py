"""A stored review queue that names answers the run no longer has (the run was scored again without them): real
`genevals review` processes and real headless Chromium. The answers still there are served in the queue's order,
the stale ones are left out with a warning naming how many and review.sqlite (on stderr and on the page) and are
not served; a queue with none left is refused (exit 2) naming the file and what to do, before any server starts.
The store itself is not rewritten: the decisions and the queue stay in it; `review export` says how many of the
queue's answers are gone."""
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

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
       "HF_HUB_OFFLINE": "1"}
QUEUE = 6


@pytest.fixture(scope="module")
def queued(tmp_path_factory):
    """A judged run and the queue of 6 a first `genevals review --queue 6` drew (its keys, in order)."""
    run = add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))
    server = ReviewProcess(run, "--queue", str(QUEUE))
    try:
        status, listing = server.call("GET", "/api/items?reviewer=ann")
    finally:
        server.stop()
    assert status == 200 and len(listing["items"]) == QUEUE and listing["missing"] == 0
    return run, [(i["system"], i["sample_id"]) for i in listing["items"]]


def scored_again_without(run: Path, gone: set[tuple[str, str]]) -> None:
    """results.jsonl as a re-run without the answers ``gone`` leaves it."""
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows
                            if (r.get("system", "default"), r["id"]) not in gone), encoding="utf-8")


def test_stale_answers_are_left_out_with_a_warning_on_stderr_and_on_the_page(browser, queued, tmp_path):
    source, keys = queued
    run = shutil.copytree(source, tmp_path / "run")
    store = (run / "review.sqlite").read_bytes()
    gone = {keys[1], keys[4]}
    scored_again_without(run, gone)
    server = ReviewProcess(run, "--queue", str(QUEUE))
    page = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        assert f"queue of {QUEUE} answers" in server.proc.stdout.readline()
        status, listing = server.call("GET", "/api/items?reviewer=ann")
        assert status == 200 and listing["missing"] == 2
        assert [(i["system"], i["sample_id"]) for i in listing["items"]] == [k for k in keys if k not in gone]
        assert [i["position"] for i in listing["items"]] == [0, 2, 3, 5]  # the queue's own positions
        for system, sample_id in gone:
            query = urlencode({"system": system, "sample_id": sample_id, "reviewer": "ann"})
            assert server.call("GET", f"/api/item?{query}")[0] == 404
            status, _ = server.call("POST", "/api/decisions", {"reviewer": "ann", "system": system,
                                    "sample_id": sample_id, "claim": 0, "decision": "confirmed"})
            assert status == 404
        page.goto(server.url)
        page.wait_for_selector("html[data-review=ready]")
        page.fill("#review-name", "ann")
        page.click("#review-name-save")
        page.wait_for_selector("#item-list li")
        assert page.locator("#item-list li").count() == 4
        assert "2 of the review queue's answers are no longer in the run's results.jsonl" in \
            page.inner_text("#queue-missing")
        assert errors == []
    finally:
        server.stop()
    assert (f"genevals: warning: {run / 'review.sqlite'}: 2 of the {QUEUE} answers of its review queue are no "
            f"longer in {run / 'results.jsonl'}") in server.stderr
    assert "Traceback" not in server.stderr
    assert (run / "review.sqlite").read_bytes() == store  # kept: the answers may come back with another re-run
    exported = subprocess.run([sys.executable, "-m", "genevals", "review", "export", str(run), "-o",
                               str(tmp_path / "labels.jsonl")], capture_output=True, text=True, env=ENV, timeout=120)
    assert exported.returncode == 0, exported.stderr
    assert f"0 of the {QUEUE} answers it drew are labelled" in exported.stdout
    assert "; 2 of them are no longer in results.jsonl" in exported.stdout


def test_a_whole_queue_gone_is_refused_naming_the_store(queued, tmp_path):
    source, keys = queued
    run = shutil.copytree(source, tmp_path / "run")
    scored_again_without(run, set(keys))
    for options in (("--queue", str(QUEUE)), (), ("--blind",)):
        done = subprocess.run([sys.executable, "-m", "genevals", "review", str(run), "--port", "0", *options],
                              capture_output=True, text=True, env=ENV, timeout=120)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert (f"genevals: error: {run / 'review.sqlite'}: none of the {QUEUE} answers of its review queue is in "
                f"{run / 'results.jsonl'} any more") in done.stderr
        assert "move review.sqlite aside" in done.stderr and "serving" not in done.stdout


def test_a_queue_the_run_still_has_whole_says_nothing(queued, tmp_path):
    source, _ = queued
    run = shutil.copytree(source, tmp_path / "run")
    server = ReviewProcess(run, "--queue", str(QUEUE))
    try:
        assert server.call("GET", "/api/items?reviewer=ann")[1]["missing"] == 0
    finally:
        server.stop()
    assert "warning" not in server.stderr
