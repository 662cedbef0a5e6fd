"""A generated set reviewed in headless Chromium against a real ``genevals review SET_DIR --queue N`` process: the
reviewer marks the queue's items, the page shows the rate, the export and card.json carry it, and it equals the hand
count (4 valid, 1 invalid, 1 unsure: 4/5 with Wilson's interval); a blind review's replies carry no gate."""
from __future__ import annotations

import json

import pytest

from support.cli import genevals, write_jsonl
from support.review_server import ReviewProcess

WORDS = ("boundary layer shock wave heat transfer laminar turbulent flutter panel wing body cone cylinder pressure "
         "drag lift supersonic hypersonic nozzle jet buckling shell plate vibration").split()


def _set(tmp_path):
    docs = [{"id": f"d{n}", "text": " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(40)) + " ."}
            for n in range(20)]
    write_jsonl(tmp_path / "docs.jsonl", docs)
    done = genevals("generate", tmp_path / "docs.jsonl", "--out", tmp_path / "set", "-n", "10", "--no-embeddings")
    assert done.returncode == 0, done.stderr
    return tmp_path / "set"


def test_a_reviewer_marks_the_queue_and_the_rate_reaches_the_export_and_the_card(tmp_path, browser):
    folder = _set(tmp_path)
    server = ReviewProcess(folder, "--queue", "6", "--queue-seed", "5")
    plan = ["valid", "valid", "invalid", "valid", "unsure", "valid"]
    try:
        assert "queue of 6 of the 10 kept items (drawn now, seed 5)" in server.proc.stdout.readline()
        page = browser.new_page()
        page.goto(server.url)
        page.fill("#reviewer", "ann")
        page.dispatch_event("#reviewer", "change")
        page.wait_for_selector('#item[data-ref="0"]')
        first = server.call("GET", "/api/item?ref=0")[1]
        marks = page.locator("mark").all_text_contents()  # the evidence, highlighted at its offsets
        assert marks and marks == [q for c in first["contexts"] for q in c["quotes"]]
        assert page.locator(".gates li").count() == len(first["gates"]) > 0
        for ref, decision in enumerate(plan):
            page.wait_for_selector(f'#item[data-ref="{ref}"]')
            if decision == "invalid":
                page.select_option("#reason", "not_self_contained")
            page.click(f'button[data-decision="{decision}"]')
            page.wait_for_selector(f'#item-list li:nth-child({ref + 1})[data-mine="{decision}"]')
        page.wait_for_function("document.getElementById('rate').textContent.includes('n=5')")
        assert "Valid-item rate 80.0% (95% CI 37.6-96.4%, n=5; 1 unsure left out; 0 of 6 queued not decided)" \
            in page.text_content("#rate")
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=30)
    done = genevals("review", "export", folder, "-o", tmp_path / "decisions.jsonl")
    assert done.returncode == 0, done.stderr
    assert "valid-item rate: 0.800 (95% CI 0.376-0.964), n=5 of 6 queued (1 unsure left out, 0 undecided)" in done.stdout
    rows = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    assert sorted(r["verdict"] for r in rows) == sorted(plan) and all(r["queued"] for r in rows)
    assert {r["inclusion_probability"] for r in rows} == {0.6}
    assert [r["decisions"][0]["reason"] for r in rows if r["verdict"] == "invalid"] == ["not_self_contained"]
    human = json.loads((folder / "card.json").read_text())["human_review"]
    # by hand: 4 valid of 5 decided; Wilson z=1.96: centre (0.8+0.3841)/1.7683 = 0.66963, half 0.29414
    assert human["status"] == "ok" and human["valid_item_rate"] == 0.8 and human["n"] == 5 and human["unsure"] == 1
    assert human["ci95"] == pytest.approx([0.375535, 0.963776], abs=1e-6)
    assert human["queue_size"] == 6 and human["seed"] == 5 and human["items"] == 10 and len(human["date"]) == 10


def test_a_blind_review_carries_no_gate(tmp_path, browser):
    folder = _set(tmp_path)
    server = ReviewProcess(folder, "--queue", "3", "--blind")
    try:
        status, listing = server.call("GET", "/api/items?reviewer=ann")
        assert status == 200 and len(listing["items"]) == 3 and all("group" not in r for r in listing["items"])
        status, item = server.call("GET", "/api/item?ref=0")
        assert status == 200 and not {"gates", "group", "rejection"} & set(item)
        assert server.call("GET", "/files/testset.jsonl", raw=True)[0] == 403  # it holds every gate
        assert server.call("POST", "/api/decisions", {"reviewer": "ann", "ref": 9, "decision": "valid"})[0] == 404
        status, reply = server.call("POST", "/api/decisions", {"reviewer": "ann", "ref": 0, "decision": "invalid"})
        assert status == 400 and reply["error"].startswith("reason:")
        page = browser.new_page()
        page.goto(server.url)
        page.wait_for_selector("#main .layout")
        assert page.locator(".gates").count() == 0 and "blind: the gates are hidden" in page.text_content("#main")
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=30)
