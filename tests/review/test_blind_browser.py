"""Blind review in real headless Chromium against a real `genevals review --blind --queue N` process: the page
and every answer sent to it hold none of the judge's verdicts until the reviewer has stored a decision on each
claim of the answer; then the verdicts appear, the stored decisions are marked blind, and a decision changed
after the reveal is not. The report (which shows verdicts) is refused. No console errors. Screenshots go to
tests/artifacts/."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.review_server import ReviewProcess
from support.runs import add_judge, make_run

from genevals.review.store import read_store

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
VERDICT_WORDS = ("contradicted", "unverifiable", "Judge:")


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))


def test_verdicts_stay_hidden_until_each_claim_is_decided(browser, judged, tmp_path):
    run = shutil.copytree(judged, tmp_path / "run")
    server = ReviewProcess(run, "--blind", "--queue", "4")
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    sent: list[str] = []
    page.on("response", lambda r: sent.append(r.text()) if "/api/item?" in r.url else None)
    try:
        assert server.call("GET", "/report", raw=True)[0] == 403
        assert server.call("GET", "/files/results.jsonl", raw=True)[0] == 403  # it holds every verdict
        assert server.call("GET", "/api/item?system=x&sample_id=y")[0] == 404
        assert server.call("GET", "/api/items", token=None)[0] == 403
        assert server.call("GET", "/api/items?" + "&".join(f"k{i}=v" for i in range(20)))[0] == 400
        page.goto(server.url)
        page.wait_for_selector("html[data-review=ready]")
        assert not any(word in page.text_content("#genevals-data") for word in VERDICT_WORDS)
        assert not any(word in page.inner_text("#main") for word in VERDICT_WORDS)
        page.fill("#review-name", "ann")
        page.click("#review-name-save")
        page.wait_for_selector("#item[data-revealed=false] .claim button[data-decision]")
        claims = page.locator("#claims .claim")
        count = claims.count()
        assert count >= 1 and page.locator(".revealed").count() == 0
        assert not any(word in page.inner_text("#main") for word in VERDICT_WORDS)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "review-blind-hidden.png"), full_page=True)
        # a passage no claim covers, marked as hallucinated before the reveal: stored blind
        page.evaluate("""() => { const node = document.querySelector('#item .answer');
            const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
            let text = walker.nextNode();
            while (text && text.textContent.length < 4) text = walker.nextNode();
            const range = document.createRange(); range.setStart(text, 0); range.setEnd(text, 4);
            const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range); }""")
        page.click("#mark-missed")
        page.wait_for_selector("#missed-count")
        assert page.locator(".revealed").count() == 0  # marking text reveals nothing
        for k in range(count):
            stored = len(read_store(run).decisions)
            assert page.locator(".revealed").count() == 0  # hidden while a claim is undecided
            page.locator(f"#claims .claim[data-claim='{k}'] button[data-decision=false_alarm]").click()
            page.wait_for_selector(f"#claims .claim[data-claim='{k}'] .mine")
            assert len(read_store(run).decisions) == stored + 1  # the decision is stored before any reveal
        page.wait_for_selector("#item[data-revealed=true]")
        assert page.locator(".revealed").count() == count and "Judge:" in page.inner_text("#claims")
        assert "(made blind)" in page.inner_text("#claims")
        assert page.locator("#item-list li.done").count() == 1
        page.screenshot(path=str(ARTIFACTS / "review-blind-revealed.png"), full_page=True)
        # hidden means not sent either: every reply before the last decision carried no verdict
        assert all('"verdict"' not in body for body in sent[:-1]) and '"verdict"' in sent[-1]
        page.locator("#claims .claim[data-claim='0'] button[data-decision=confirmed]").click()  # after the reveal
        page.wait_for_selector("#claims .claim[data-claim='0'] button.chosen[data-decision=confirmed]")
        decisions = read_store(run).decisions
        assert [d.blind for d in decisions] == [True] * (count + 1) + [False]
        assert decisions[0].decision == "missed" and decisions[0].span[1] - decisions[0].span[0] == 4
        # the next answer starts hidden again
        page.click("#next-item")
        page.wait_for_selector("#item[data-revealed=false]")
        assert page.locator(".revealed").count() == 0
        assert errors == []
    finally:
        context.close()
        server.stop()
    assert "Traceback" not in server.stderr
