"""Review -> export -> validate per conversation turn (issue 38), each a real process: `genevals run` on
conversations, `genevals review --blind` serving each assistant turn as an item with the conversation's earlier
turns as its context (in headless Chromium too), decisions stored over HTTP, `genevals review export` keeping
each turn's conversation_id, turn and history, and `genevals validate` judging the turn with that history (a
claim repeating the user is from_history there too, so no predicted hallucination span)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.review_server import ReviewProcess

from genevals.review.claims import load_samples

TRIP = {"conversation_id": "trip", "turns": [
    {"role": "system", "content": "You are a travel assistant for Grabow."},
    {"role": "user", "content": "I am travelling with my dog Bruno. Where is the Varnholt Bridge?"},
    {"role": "assistant", "content": "The Varnholt Bridge spans the river Elde near Grabow.",
     "contexts": ["The Varnholt Bridge spans the river Elde near Grabow."]},
    {"role": "user", "content": "Can we cross it on foot?"},
    {"role": "assistant", "content": "You are travelling with your dog Bruno. Crossing it on foot takes about ten "
     "minutes. The bridge was painted purple by astronauts in 1850.",
     "contexts": ["Crossing the Varnholt Bridge on foot takes about ten minutes."]}]}
REPEATED = "You are travelling with your dog Bruno."


def genevals(*args):
    done = subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def chat_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("conv-review")
    (root / "chat.jsonl").write_text(json.dumps(TRIP) + "\n", encoding="utf-8")
    genevals("run", root / "chat.jsonl", "-m", "grounding", "-o", root / "run", "--no-history")
    return root / "run"


def decide(server, sample, claim, decision):
    status, reply = server.call("POST", "/api/decisions", {"reviewer": "ann", "system": sample.system,
                                                           "sample_id": sample.id, "claim": claim.index,
                                                           "decision": decision, "note": ""})
    assert status in (200, 201), reply


def test_review_export_validate_per_turn(browser, chat_run, tmp_path):
    samples = load_samples(chat_run)
    first, second = samples[("default", "trip:1")], samples[("default", "trip:2")]
    assert [c.label for c in second.claims] == ["from_history", "supported", "unverifiable"]
    assert [c.flagged for c in second.claims] == [False, False, True]  # repeating the user is no hallucination
    server = ReviewProcess(chat_run, "--blind")
    try:
        status, listing = server.call("GET", "/api/items?reviewer=ann")
        assert status == 200 and [i["sample_id"] for i in listing["items"]] == ["trip:1", "trip:2"]
        status, item = server.call("GET", "/api/item?system=default&sample_id=trip%3A2&reviewer=ann")
        assert status == 200 and "verdict" not in json.dumps(item["claims"])  # blind: no verdict before deciding
        assert item["conversation"] == {"id": "trip", "turn": 2, "dropped": 0, "history": [
            {"role": "system", "content": "You are a travel assistant for Grabow."},
            {"role": "user", "content": TRIP["turns"][1]["content"]},
            {"role": "assistant", "content": TRIP["turns"][2]["content"]}]}
        # the item page shows the turn with the earlier turns as its context
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        try:
            page, errors = context.new_page(), []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url)
            page.wait_for_selector("html[data-review=ready]")
            page.click("#item-list li[data-item='1'] button")
            page.wait_for_selector("#item h2:has-text('trip:2')")
            shown = page.inner_text("#conversation")
            assert "Conversation trip, turn 2" in shown and "I am travelling with my dog Bruno" in shown
            assert page.locator("#conversation li.msg-system.muted").count() == 1
            assert errors == []
        finally:
            context.close()
        decide(server, first, first.claims[0], "false_alarm")
        for claim, decision in zip(second.claims, ("false_alarm", "false_alarm", "confirmed")):
            decide(server, second, claim, decision)
    finally:
        server.stop()
    labels = tmp_path / "labels.jsonl"
    out = genevals("review", "export", chat_run, "-o", labels).stdout
    assert "2 reviewed answers (1 hallucinated)" in out
    rows = {r["id"]: r for r in map(json.loads, labels.read_text(encoding="utf-8").splitlines())}
    assert (rows["trip:2"]["conversation_id"], rows["trip:2"]["turn"], rows["trip:2"]["hallucinated"]) == \
        ("trip", 2, True)
    assert [m["role"] for m in rows["trip:2"]["history"]] == ["system", "user", "assistant"]
    assert rows["trip:1"]["history"] == [{"role": "system", "content": "You are a travel assistant for Grabow."}]
    answer = rows["trip:2"]["response"]
    assert rows["trip:2"]["spans"] == [{"start": answer.index("The bridge"), "end": len(answer)}]
    # validate reads the turns: judged with their history, the repeated sentence is from_history, not predicted
    genevals("validate", labels, "-o", tmp_path / "val", "--quiet")
    predictions = {p["id"]: p for p in map(json.loads, (tmp_path / "val" / "predictions.jsonl")
                                         .read_text(encoding="utf-8").splitlines())}
    assert set(predictions) == {"trip:1", "trip:2"}
    assert answer.startswith(REPEATED)
    assert predictions["trip:2"]["predicted_spans"] == [[answer.index("The bridge"), len(answer)]]  # not [0, 39]
    assert (predictions["trip:2"]["predicted"], predictions["trip:2"]["faithfulness"]) == (True, 0.5)


def test_validate_names_a_bad_history_message(tmp_path):
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"context": "c", "response": "r", "hallucinated": False,
                                  "history": [{"role": "user", "content": "hi"}, {"role": "bot", "content": "x"}]})
                      + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "genevals", "validate", str(labels), "-o", str(tmp_path / "v")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "labels.jsonl:1: field 'history[1].role': expected one of user, assistant, system, got \"bot\"" \
        in done.stderr and "Traceback" not in done.stderr


def test_the_served_report_has_the_conversation_view(browser, chat_run, tmp_path):
    """`genevals review RUN_DIR` (not blind) serves the report with its Conversations tab: a deep link to a turn,
    and the turn's drawer (where its claims are reviewed) with the conversation so far."""
    server = ReviewProcess(chat_run)
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        page, errors = context.new_page(), []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "#conv=trip&turn=2")
        page.wait_for_selector(".conv-turn.target[data-turn='2']")
        page.click(".conv-turn.target .conv-turn-head")
        page.wait_for_selector("#drawer:not([hidden]) #sample-conversation")
        assert "I am travelling with my dog Bruno" in page.inner_text("#sample-conversation")
        assert errors == []
    finally:
        context.close()
        server.stop()


def test_the_review_queue_counts_a_claim_repeating_the_user_as_clean():
    from genevals.review.queue import stratum_of

    assert stratum_of([{"label": "supported"}, {"label": "from_history"}], 1.0) == "clean/settled"
    assert stratum_of([{"label": "from_history"}, {"label": "unverifiable"}], 0.0) == "flagged/settled"
