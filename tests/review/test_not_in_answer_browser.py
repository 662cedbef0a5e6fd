"""The review pages in real headless Chromium against a real ``genevals review`` process (issue 52, points 1 and
10e): a blind review says, before a reviewer name is saved, that one is needed (the page otherwise shows the
claims with no way to decide them and no word why); once it is saved, each claim offers "Not in the answer", stored
as ``not_in_answer`` (blind until the reveal); the live report's review panel offers it too and shows it. No
console errors. Screenshots go to tests/artifacts/."""
from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from support.review_server import ReviewProcess
from support.runs import add_judge, make_run

from genevals.review.claims import load_samples
from genevals.review.store import read_store

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
LABEL = "Not in the answer (the judge invented it)"


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))


def context(browser):
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


def test_blind_review_asks_for_a_name_then_offers_not_in_the_answer(browser, judged, tmp_path):
    run = shutil.copytree(judged, tmp_path / "run")
    server = ReviewProcess(run, "--blind")
    ctx, page, errors = context(browser)
    try:
        page.goto(server.url)
        page.wait_for_selector("html[data-review=ready]")
        page.wait_for_selector("#item #claims .claim")
        # no name saved: the page says one is needed, at the top and on each claim, and offers no decision
        hint = page.locator("#review-name-needed")
        assert hint.is_visible() and "Save name" in hint.inner_text()
        claims = page.locator("#claims .claim")
        count = claims.count()
        assert count >= 1 and page.locator("#claims .claim .name-needed").count() == count
        assert page.locator("#claims button[data-decision]").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "review-blind-no-name.png"), full_page=True)
        page.fill("#review-name", "ann")
        page.click("#review-name-save")
        page.wait_for_selector("#claims .claim button[data-decision=not_in_answer]")
        assert page.locator("#review-name-needed").count() == 0 and page.locator(".name-needed").count() == 0
        assert page.locator("#claims button[data-decision=not_in_answer]").first.inner_text() == LABEL
        for k in range(count):
            page.locator(f"#claims .claim[data-claim='{k}'] button[data-decision=not_in_answer]").click()
            page.wait_for_selector(f"#claims .claim[data-claim='{k}'] .mine")
        page.wait_for_selector("#item[data-revealed=true]")
        assert f"Your decision: {LABEL} (made blind)" in page.inner_text("#claims")
        page.screenshot(path=str(ARTIFACTS / "review-blind-not-in-answer.png"), full_page=True)
        stored = read_store(run).decisions
        assert [(d.reviewer, d.decision, d.blind) for d in stored] == [("ann", "not_in_answer", True)] * count
        assert errors == []
    finally:
        ctx.close()
        server.stop()
    assert "Traceback" not in server.stderr


def test_the_live_report_offers_and_shows_not_in_the_answer(browser, judged, tmp_path):
    run = shutil.copytree(judged, tmp_path / "run")
    sample = next(s for s in sorted(load_samples(run).values(), key=lambda s: s.line)
                  if any(c.flagged for c in s.claims))
    position = next(k for k, c in enumerate(sample.claims) if c.flagged)
    server = ReviewProcess(run)
    ctx, page, errors = context(browser)
    try:
        page.goto(server.url + f"#tab=samples&sys={quote(sample.system)}&id={quote(sample.id)}")
        page.wait_for_selector("html[data-ready=true]")
        page.wait_for_selector("html[data-review=ready]")
        page.locator("#drawer:not([hidden]) #drawer-title").filter(has_text=sample.id).wait_for()
        page.fill("#review-name", "bob")
        page.click("#review-name-save")
        claim = page.locator(f"#review-panel [data-review-claim='{position}']")
        claim.locator("button[data-decision=not_in_answer]").click()
        claim.locator(".decision").first.wait_for()
        assert LABEL in claim.inner_text()
        page.screenshot(path=str(ARTIFACTS / "review-report-not-in-answer.png"), full_page=True)
        [stored] = read_store(run).decisions
        assert (stored.reviewer, stored.decision, stored.claim_index, stored.blind) == (
            "bob", "not_in_answer", sample.claims[position].index, False)
        assert errors == []
    finally:
        ctx.close()
        server.stop()
    assert "Traceback" not in server.stderr
