"""The conversation view (issue 38) in real headless Chromium, on a run of real `genevals run` processes: the
transcript in order (the system message muted), each assistant turn's scores and claims highlighted, a claim
repeating the user (``from_history``) shown as its own label with a legend; clicking a turn, a claim and a
filter; a deep link to a turn; the knowledge-retention filter only when the run has that metric; no view for
single answers; no console errors."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.report_page import report_page

from genevals.report import write_report
from genevals.report.model import build_data
from genevals.output import runfolder

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
TRIP = {"conversation_id": "trip", "turns": [
    {"role": "system", "content": "You are a travel assistant for Grabow."},
    {"role": "user", "content": "I am travelling with my dog Bruno. Where is the Varnholt Bridge?"},
    {"role": "assistant", "content": "The Varnholt Bridge spans the river Elde near Grabow.",
     "contexts": ["The Varnholt Bridge spans the river Elde near Grabow."], "references": ["On the Elde."]},
    {"role": "user", "content": "Can we cross it on foot?"},
    {"role": "assistant", "content": "You are travelling with your dog Bruno. Crossing it on foot takes about ten "
     "minutes. The bridge was painted purple by astronauts in 1850.",
     "contexts": ["Crossing the Varnholt Bridge on foot takes about ten minutes."],
     "references": ["About ten minutes."]}]}
MUSEUM = {"conversation_id": "museum", "turns": [
    {"role": "user", "content": "Is the town museum open on Monday?"},
    {"role": "assistant", "content": "The town museum is closed on Mondays.",
     "contexts": ["The Grabow town museum opens Tuesday to Sunday. It is closed on Mondays."],
     "references": ["No, it is closed on Mondays."]}]}


def genevals(*args):
    done = subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def chat_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("conv")
    (root / "chat.jsonl").write_text("".join(json.dumps(c) + "\n" for c in (TRIP, MUSEUM)), encoding="utf-8")
    genevals("run", root / "chat.jsonl", "-m", "token_f1,grounding", "-o", root / "run", "--no-history")
    return root / "run"


def test_the_page_data_holds_the_conversations_and_from_history(chat_run):
    data = build_data([chat_run])
    assert [(c["id"], len(c["turns"])) for c in data["conversations"]] == [("trip", 2), ("museum", 1)]
    second = data["samples"][data["conversations"][0]["turns"][1]]
    assert (second["cv"], second["tn"], "pre" in second) == ("trip", 2, False)
    assert [v["label"] for v in second["j"]["verdicts"]] == ["from_history", "supported", "unverifiable"]
    first = data["samples"][data["conversations"][0]["turns"][0]]
    assert first["pre"] == [["system", "You are a travel assistant for Grabow."]]
    # a from_history claim is no hallucination: the verdict totals count only the unverifiable one
    assert (data["verdicts"][0]["unverifiable"], data["verdicts"][0]["contradicted"]) == (1, 0)


def test_the_view_in_chromium(browser, chat_run):
    with report_page(browser, chat_run / "report.html") as view:
        p = view.page
        view.tab("conversations")
        assert p.inner_text("#conv-count") == "2 of 2 conversations"
        p.click("#conv-list li[data-conv=trip]")
        messages = p.locator("#conv-transcript .msg")
        assert [m.split("\n")[0] for m in messages.all_inner_texts()] == \
            ["SYSTEM", "USER", "Assistant \u00b7 turn 1", "USER", "Assistant \u00b7 turn 2"]
        assert "Can we cross it on foot?" in messages.nth(3).inner_text()
        assert p.locator("#conv-transcript .msg-system.muted").count() == 1
        turn2 = p.locator(".conv-turn[data-turn='2']")
        assert "faithfulness" in turn2.locator(".conv-scores").inner_text()
        assert turn2.locator(".claim.v-from_history").count() == 1
        assert turn2.locator(".claim.v-unverifiable").count() == 1
        assert "from history" in p.inner_text("#conv-legend")
        # a claim: its label and verdict under the turn
        turn2.locator(".claim.v-from_history").click()
        box = turn2.locator(".conv-claim")
        assert box.is_visible() and box.inner_text().startswith("from history")
        ARTIFACTS.mkdir(exist_ok=True)
        p.screenshot(path=str(ARTIFACTS / "conversation-view.png"), full_page=True)
        assert "#tab=conversations" in p.url and "conv=trip" in p.url
        # a filter: only the conversation with an unsupported claim, its turn marked
        p.select_option("#conv-filter", "unsupported")
        assert p.inner_text("#conv-count") == "1 of 2 conversations"
        assert p.locator("#conv-list li").all_inner_texts()[0].startswith("trip")
        assert p.locator(".conv-turn.flagged").count() == 1
        assert p.locator(".conv-turn.flagged").get_attribute("data-turn") == "2"
        assert p.locator("#conv-filter option[value=retention]").count() == 0  # no knowledge_retention here
        # a turn: its drawer, with the conversation so far
        turn2.locator(".conv-turn-head").click()
        p.wait_for_selector("#drawer:not([hidden])")
        assert p.inner_text("#drawer-title").endswith("trip:2")
        earlier = p.inner_text("#sample-conversation")
        assert "I am travelling with my dog Bruno" in earlier and "spans the river Elde" in earlier
        assert "from_history" in p.inner_text("#drawer-body .legend >> nth=0")
        assert "turn=2" in p.url
        p.click("#drawer-close")
        # the hallucination review lists the unverifiable claim, not the one repeating the user
        view.tab("review")
        assert p.inner_text("#review-count") == "1 of 1 flagged claims"
        assert "painted purple" in p.inner_text("#review-table tbody")
        assert view.errors == []


def test_a_deep_link_opens_the_turn(browser, chat_run, tmp_path):
    page = chat_run / "report.html"
    for fragment in ("#conv=trip&turn=2", "#tab=conversations&conv=trip&turn=2"):
        context = browser.new_context(viewport={"width": 1400, "height": 500})
        try:
            p, errors = context.new_page(), []
            p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            p.on("pageerror", lambda e: errors.append(str(e)))
            p.goto(page.resolve().as_uri() + fragment)
            p.wait_for_selector("html[data-ready=true]")
            p.wait_for_selector("#tab-conversations:not([hidden])")
            target = p.locator(".conv-turn.target")
            assert target.get_attribute("data-turn") == "2"
            assert p.locator("#conv-transcript").get_attribute("data-conv") == "trip"
            box = target.bounding_box()
            assert box is not None and 0 <= box["y"] < 500  # scrolled into view
            assert "tab=conversations" in p.url
            assert errors == []
        finally:
            context.close()
    # the link from the drawer of a turn, then a missing conversation named on the page
    with report_page(browser, page) as view:
        p = view.page
        p.goto(page.resolve().as_uri() + "#conv=nowhere&turn=1")
        p.wait_for_selector("#link-missing")
        assert "nowhere" in p.inner_text("#link-missing")
        assert view.errors == []


def test_the_knowledge_retention_filter(browser, chat_run, tmp_path):
    """With a knowledge_retention result (its value on the conversation's last turn, its details' failures
    naming the failing turn; the user's facts name turn 1, which did not fail), the filter appears and marks that
    turn only. The results lines are edited into the shape the metric writes (an LLM judge; the report reads
    results as they are)."""
    run = tmp_path / "run"
    shutil.copytree(chat_run, run)
    rows = [row for _, row in runfolder.iter_rows(run)]  # per turn (written back one line each: still read)
    for row in rows:
        last = row["id"] in ("trip:2", "museum:1")
        row["metrics"]["knowledge_retention"] = (
            {"value": 0.5 if row["id"] == "trip:2" else 1.0, "status": "ok", "details": {
                "facts": [{"turn": 1, "quote": "travelling with my dog Bruno", "located": True}],
                "failures": [{"turn": 2, "quote": "Crossing it on foot", "fact": "travels with a dog", "fact_turn": 1,
                              "kind": "ignores", "reason": "r", "spans": [], "located": True, "counted": True}]
                if row["id"] == "trip:2" else []}}
            if last else {"value": None, "status": "not_last_turn", "reason": "carried by the last turn"})
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = write_report([run], tmp_path / "report.html")
    with report_page(browser, report) as view:
        p = view.page
        view.tab("conversations")
        p.select_option("#conv-filter", "retention")
        assert p.inner_text("#conv-count") == "1 of 2 conversations"
        p.click("#conv-list li[data-conv=trip]")
        assert p.locator(".conv-turn.flagged").count() == 1
        assert p.locator(".conv-turn.flagged").get_attribute("data-turn") == "2"
        assert "travels with a dog" in p.inner_text(".conv-turn[data-turn='2'] .kr-note")
        assert view.errors == []


def test_single_answers_have_no_conversation_view(browser, tmp_path):
    (tmp_path / "qa.jsonl").write_text(json.dumps({"id": "q1", "answer": "Paris", "references": ["Paris"]}) + "\n",
                                       encoding="utf-8")
    genevals("run", tmp_path / "qa.jsonl", "-m", "token_f1", "-o", tmp_path / "run", "--no-history")
    assert build_data([tmp_path / "run"])["conversations"] == []
    with report_page(browser, tmp_path / "run" / "report.html") as view:
        assert view.page.locator("button[data-tab=conversations]").count() == 0
        assert view.page.locator("#tab-conversations").count() == 0
        assert view.errors == []


def test_two_systems_answering_one_conversation(browser, tmp_path):
    """Flat rows of two systems for one conversation: one transcript per system, a System filter, and a link
    naming the system (csys) opens that system's answers."""
    rows = [{"conversation_id": "museum", "turn": 1, "system": system, "question": "Is the museum open on Monday?",
             "answer": answer, "contexts": ["The museum is closed on Mondays."], "references": ["No."]}
            for system, answer in (("dense", "It is closed on Mondays."), ("sparse", "It is open every day."))]
    (tmp_path / "two.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    genevals("run", tmp_path / "two.jsonl", "-m", "token_f1,grounding", "-o", tmp_path / "run", "--no-history")
    page = tmp_path / "run" / "report.html"
    with report_page(browser, page) as view:
        p = view.page
        p.goto(page.resolve().as_uri() + "#conv=museum&turn=1&csys=sparse")
        p.wait_for_selector(".conv-turn.target")
        assert "It is open every day." in p.inner_text("#conv-transcript")
        view.tab("conversations")
        assert p.inner_text("#conv-count") == "2 of 2 conversations"
        p.select_option("#conv-filters select >> nth=1", "0")  # the System filter: dense
        assert p.inner_text("#conv-count") == "1 of 2 conversations"
        p.click("#conv-list li")
        assert "csys=dense" in p.url and "It is closed on Mondays." in p.inner_text("#conv-transcript")
        assert view.errors == []


def test_knowledge_retention_failures_of_a_real_judge(browser, tmp_path):
    """The knowledge_retention metric judged over HTTP by the fault server playing a rule-based judge
    (tests/metrics/conversation): the filter shows the conversation whose assistant contradicted the user, with
    the failing turn marked and its words quoted."""
    from metrics.conversation.test_conversation_judges import ROWS, judge_config, rule_judge
    from support.fault_server import FaultServer

    from genevals.api import evaluate

    with FaultServer(replies=rule_judge) as server:
        evaluate(ROWS[:2], ["knowledge_retention", "token_f1"], judge=judge_config(server, tmp_path),
                 out_dir=tmp_path / "run")
    report = write_report([tmp_path / "run"], tmp_path / "report.html")
    with report_page(browser, report) as view:
        p = view.page
        view.tab("conversations")
        p.select_option("#conv-filter", "retention")
        assert p.inner_text("#conv-count") == "1 of 2 conversations"
        p.click("#conv-list li[data-conv=moved]")
        flagged = p.locator(".conv-turn.flagged")
        assert flagged.count() == 1 and flagged.get_attribute("data-turn") == "3"
        note = flagged.locator(".kr-note").inner_text()
        assert "Since you live in Berlin" in note and "I live in Grabow" in note and "(turn 1)" in note
        assert p.locator(".conv-turn[data-turn='1'] .conv-scores").inner_text().count("not_last_turn") == 0
        assert view.errors == []
