"""The review in real headless Chromium: deep links, marking claims against a real ``genevals review`` process,
decisions persisted across reloads, a second reviewer and Cohen's kappa, a stale decision after a re-run, the
export read by ``genevals validate``, hostile names and notes, formula look-alikes in the Review tab's CSV, a
write without the token, the static report's read-only decisions, and the run-against-run view. Screenshots go
to tests/artifacts/."""
from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest
from support.review_server import REPO, ReviewProcess
from support.runs import DEMO, XSS, add_judge, fallback_rows, judge_details, make_run

from genevals.output import runfolder
from genevals.review.claims import load_samples
from genevals.review.store import read_decisions
from genevals.review.tally import tally

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
# Select [start, end) of the answer's text in the open drawer, as a reviewer's mouse would.
SELECT = """([start, end]) => {
  const node = document.querySelector('#drawer-body .text-block.answer');
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let pos = 0, n;
  while ((n = walker.nextNode())) {
    const len = n.textContent.length;
    if (start >= pos && start <= pos + len) range.setStart(n, start - pos);
    if (end >= pos && end <= pos + len) { range.setEnd(n, end - pos); break; }
    pos += len;
  }
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  return sel.toString();
}"""


def input_rows() -> list[dict]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()] if DEMO.exists() \
        else fallback_rows()


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))


@pytest.fixture
def run(judged, tmp_path):
    return shutil.copytree(judged, tmp_path / "run")


class Page:
    """A browser context on a page, failing on any console error, page error or dialog."""

    def __init__(self, browser, url: str, live: bool = True):
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.errors.append("dialog " + d.message), d.dismiss()))
        self.live = live
        self.goto(url)

    def goto(self, url: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector("html[data-ready=true]")
        if self.live:
            self.page.wait_for_selector("html[data-review=ready]")

    def open(self, url: str, sample) -> None:
        """Go to a sample's link and wait until its drawer shows it (a hash change navigates in the page)."""
        self.goto(url)
        self.page.locator("#drawer:not([hidden]) #drawer-title").filter(has_text=sample.id).wait_for()

    def reload(self) -> None:
        self.page.reload()
        self.page.wait_for_selector("html[data-ready=true]")
        if self.live:
            self.page.wait_for_selector("html[data-review=ready]")

    def name(self, who: str) -> None:
        self.page.fill("#review-name", who)
        self.page.click("#review-name-save")

    def mark(self, position: int, decision: str, note: str = "") -> None:
        claim = self.page.locator(f"#review-panel [data-review-claim='{position}']")
        before = claim.locator(".decision").count()
        claim.locator(".review-note").fill(note)
        claim.locator(f"button[data-decision={decision}]").click()
        self.page.locator(f"#review-panel [data-review-claim='{position}'] .decision").nth(before).wait_for()

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        assert self.errors == []
        self.context.close()


def link(sample, position=None) -> str:
    out = f"#tab=samples&sys={quote(sample.system)}&id={quote(sample.id)}"
    return out + (f"&claim={position + 1}" if position is not None else "")


def flagged_samples(run, n):
    """n samples with at least two claims, one of them flagged, and each sample's flagged claim positions."""
    out = []
    for s in load_samples(run).values():
        positions = [k for k, c in enumerate(s.claims) if c.flagged and c.spans]
        if positions and len(s.claims) >= 2:
            out.append((s, positions))
    assert len(out) >= n
    return out[:n]


def test_deep_link_mark_reload_second_reviewer_and_export_into_validate(browser, run, tmp_path):
    from genevals.cli import main

    server = ReviewProcess(run)
    (s1, p1), (s2, p2), (s3, p3) = flagged_samples(run, 3)
    try:
        ann = Page(browser, server.url + link(s1, p1[0]))
        page = ann.page
        # The deep link opened the sample on its claim.
        assert not page.locator("#drawer").is_hidden()
        assert s1.id in page.inner_text("#drawer-title")
        assert f"Evidence for claim {s1.claims[p1[0]].index + 1}" in page.inner_text("#evidence")
        assert page.locator(f".claim-list li[data-claim='{p1[0]}'].active, .answer [data-claim='{p1[0]}'].active").count() > 0
        assert page.locator("#review-panel [data-decision]").count() == 0  # no name yet
        ann.name("Ann")
        ann.mark(p1[0], "confirmed", "the context says otherwise")
        # A missed hallucination: the reviewer selects answer text the judge did not flag.
        word = s1.answer.split()[0]
        assert page.evaluate(SELECT, [0, len(word)]) == word
        page.click("#mark-missed")
        page.wait_for_selector("#missed-list .decision")
        # A decision taken back disappears (its row stays in the store), and is made again.
        page.click("#missed-list .withdraw")
        page.wait_for_selector("#missed-list", state="detached")
        assert page.evaluate(SELECT, [0, len(word)]) == word
        page.click("#mark-missed")
        page.wait_for_selector("#missed-list .decision")
        # Clicking another claim puts it in the address.
        page.locator(".claim-list li").nth(1).click()
        assert "claim=2" in page.url
        for sample, positions, decisions in ((s2, p2, ["false_alarm"]), (s3, p3, ["confirmed"])):
            ann.open(server.url + link(sample), sample)
            ann.mark(positions[0], decisions[0])
        ann.reload()
        assert page.locator("#review-panel .decision").count() == 1  # s3's decision, after the reload
        ann.open(server.url + link(s1), s1)
        assert "Confirmed hallucination" in page.inner_text(f"#review-panel [data-review-claim='{p1[0]}']")
        assert "the context says otherwise" in page.inner_text("#review-panel")
        assert word in page.inner_text("#missed-list")
        ann.shot("review-live-sample")
        ann.close()

        # A second reviewer (another browser profile) disagrees on one claim.
        bob = Page(browser, server.url + link(s1))
        bob.name("Bob")
        bob.mark(p1[0], "confirmed")
        bob.open(server.url + link(s2), s2)
        bob.mark(p2[0], "confirmed")
        bob.open(server.url + link(s3), s3)
        bob.mark(p3[0], "confirmed")
        bob.goto(server.url + "#tab=review")
        expected = tally(read_decisions(run), load_samples(run))
        [pair] = expected["agreement"]
        assert pair["n"] == 3 and pair["agree"] == 2
        text = bob.page.inner_text("#review-status")
        assert f"Cohen's \u03BA = {pair['kappa']:.3f} on 3 claims" in text and "Ann" in text and "Bob" in text
        assert f"Reviewed 3 of {expected['progress']['flagged']} flagged claims" in text
        assert f"Judge precision on reviewed claims: {expected['precision']['precision']:.3f}" in text
        assert bob.page.locator("#decisions-table tbody tr").count() == 7
        bob.shot("review-live-status")
        # The review filter finds what is left to review, and the table shows each reviewer's decision.
        bob.goto(server.url + "#tab=review&review=done")
        assert bob.page.inner_text("#review-count").startswith("3 of ")
        assert "Ann: Confirmed hallucination" in bob.page.inner_text("#review-table")
        bob.goto(server.url + "#tab=review&review=todo")
        total = int(bob.page.inner_text("#review-count").split()[2])
        assert bob.page.inner_text("#review-count").startswith(f"{total - 3} of ")
        bob.close()
    finally:
        server.stop()

    labels = tmp_path / "labels.jsonl"
    done = subprocess.run([sys.executable, "-m", "genevals", "review", "export", str(run), "-o", str(labels)],
                          capture_output=True, text=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    by_key = {(r["model"], r["id"]): r for r in rows}
    # s1: confirmed by both, and a marked word; s3: confirmed by both; s2: a tie (Ann false alarm, Bob confirmed),
    # so not settled and left out.
    first = by_key[(s1.system, s1.id)]
    assert first["hallucinated"] is True and first["response"] == s1.answer
    claim_span = s1.claims[p1[0]].spans[0]
    assert {"start": 0, "end": len(word)} in first["spans"] or first["spans"][0]["start"] == 0
    assert any(sp["start"] <= claim_span[0] and claim_span[1] <= sp["end"] for sp in first["spans"])
    assert by_key[(s3.system, s3.id)]["hallucinated"] is True and (s2.system, s2.id) not in by_key
    assert len(rows) == 2 and "1 left out" in done.stdout
    out = tmp_path / "validation"
    assert main(["validate", str(labels), "--judge", "local", "--out", str(out), "--quiet", "--resamples", "50"]) == 0
    report = json.loads((out / "validation.json").read_text())
    assert report["response_level"]["n"] == 2 and report["response_level"]["positive_rate"] == 1.0


def rescore(run: Path, sample, answer: str) -> None:
    """What a re-run writes for ``sample`` after its answer changed: the new answer and the judge's new claims."""
    path = run / runfolder.RESULTS_FILE
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[sample.line - 1])
    row["answer"] = answer
    details, _labels = judge_details(answer, [c["text"] for c in row["contexts"]])
    row["metrics"]["faithfulness"]["details"].update(details)
    lines[sample.line - 1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_decision_on_a_claim_that_changed_in_a_rerun_is_shown_stale(browser, run):
    [(sample, positions)] = flagged_samples(run, 1)
    server = ReviewProcess(run)
    try:
        ann = Page(browser, server.url + link(sample, positions[0]))
        ann.name("Ann")
        ann.mark(positions[0], "false_alarm", "fine as written")
        assert ann.page.locator("#review-panel .stale").count() == 0
        claim = sample.claims[positions[0]]
        rescore(run, sample, sample.answer.replace(claim.text, claim.text.rstrip(".") + " in 1820."))
        ann.reload()  # the server sees the new results and checks the decision against the new claim
        stale = ann.page.locator("#review-panel .decision.stale")
        assert stale.count() == 1 and "the claim's text changed" in stale.inner_text()
        ann.goto(server.url + "#tab=review")
        assert "1 decision made on an earlier version" in ann.page.inner_text("#review-stale")
        assert "Reviewed 0 of" in ann.page.inner_text("#review-progress")
        assert "the claim's text changed" in ann.page.inner_text("#decisions-table")
        ann.shot("review-stale")
        ann.close()
    finally:
        server.stop()


def test_hostile_names_and_notes_stay_text_and_a_write_without_the_token_is_refused(browser, run):
    [(sample, positions)] = flagged_samples(run, 1)
    server = ReviewProcess(run)
    try:
        o = Page(browser, server.url + link(sample))
        page = o.page
        for name, note in ((XSS[2], XSS[0]), (XSS[1], XSS[3])):  # two reviewers with hostile names and notes
            o.name(name)
            o.mark(positions[0], "unsure", note)
        o.reload()
        o.goto(server.url + "#tab=review")
        o.goto(server.url + link(sample))
        state = page.evaluate("""() => ({xss: window.__xss === undefined ? null : window.__xss,
            imgs: document.querySelectorAll('img, iframe, object, embed').length,
            scripts: document.querySelectorAll('script').length})""")
        assert state == {"xss": None, "imgs": 0, "scripts": 2}
        text = page.inner_text("#review-panel")
        assert all(x in text for x in XSS[:4])
        # The page's own origin, without the token: refused, nothing stored.
        before = len(read_decisions(run))
        status = page.evaluate("""([body]) => fetch('/api/decisions', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then(r => r.status)""",
                               [{"reviewer": "mallory", "system": sample.system, "sample_id": sample.id,
                                 "claim": sample.claims[positions[0]].index, "decision": "confirmed"}])
        assert status == 403 and len(read_decisions(run)) == before
        assert o.errors == ["Failed to load resource: the server responded with a status of 403 (Forbidden)"]
        o.errors.clear()
        o.close()
    finally:
        server.stop()
    # The static report, rebuilt, shows the same hostile text read-only.
    from genevals.cli import main

    assert main(["report", str(run)]) == 0
    static = Page(browser, (run / runfolder.REPORT_FILE).as_uri() + link(sample), live=False)
    try:
        state = static.page.evaluate("() => ({xss: window.__xss === undefined ? null : window.__xss, "
                                     "imgs: document.querySelectorAll('img').length})")
        assert state == {"xss": None, "imgs": 0} and XSS[0] in static.page.inner_text("#review-panel")
    finally:
        static.close()


def test_the_static_report_shows_stored_decisions_read_only_and_how_to_review(browser, run):
    from genevals.cli import main

    remote: list[str] = []
    (sample, positions), = flagged_samples(run, 1)
    assert main(["report", str(run)]) == 0  # no store yet
    o = Page(browser, (run / runfolder.REPORT_FILE).as_uri() + "#tab=review", live=False)
    assert "No reviewer decisions stored yet" in o.page.inner_text("#review-mode")
    assert f"genevals review {run}" in o.page.inner_text("#review-mode")
    o.close()
    server = ReviewProcess(run)
    try:
        status, _ = server.call("POST", "/api/decisions", {"reviewer": "Ann", "system": sample.system,
                                                           "sample_id": sample.id, "decision": "confirmed",
                                                           "claim": sample.claims[positions[0]].index, "note": "n1"})
        assert status == 201
    finally:
        server.stop()
    assert main(["report", str(run)]) == 0
    o = Page(browser, (run / runfolder.REPORT_FILE).as_uri() + link(sample, positions[0]), live=False)
    try:
        o.page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
                     else (remote.append(r.request.url), r.abort()))
        panel = o.page.inner_text("#review-panel")
        assert "Read-only" in panel and "Ann" in panel and "n1" in panel and f"genevals review {run}" in panel
        assert o.page.locator("#review-panel button, #review-panel input").count() == 0
        # Filters of the review tab live in the address; changing one rewrites it, and the link restores it.
        # (the fixture's invented claims, "An inferred claim ...", are not the answer's and never listed here)
        o.goto((run / runfolder.REPORT_FILE).as_uri() + "#tab=review&verdict=unverifiable&q=the")
        count = o.page.inner_text("#review-count")
        assert o.page.locator("#review-table tbody tr").count() == int(count.split()[0]) > 0
        assert "Read-only: the 1 decision" in o.page.inner_text("#review-mode")
        o.page.select_option("#review-filters select >> nth=1", "contradicted")
        assert "verdict=contradicted" in o.page.url and "q=the" in o.page.url
        o.shot("review-static")
        assert remote == []
    finally:
        o.close()


def test_run_against_run_view_sorted_by_regression_and_linkable(browser, tmp_path):
    from genevals.cli import main

    rows = input_rows()
    changed = [dict(r, answer="It was first recorded in 1820 by the royal archive. " + r["answer"]) if i % 3 == 0 else r
               for i, r in enumerate(rows)]
    a = add_judge(make_run(tmp_path / "before", rows))
    b = add_judge(make_run(tmp_path / "after", changed))
    out = tmp_path / "compare.html"
    assert main(["report", str(a), str(b), "-o", str(out)]) == 0
    samples_a, samples_b = load_samples(a), load_samples(b)

    def faith(samples, key):
        [claim_labels] = [[c.label for c in samples[key].claims]]
        return claim_labels.count("supported") / len(claim_labels) if claim_labels else None

    drops = {k: faith(samples_a, k) - faith(samples_b, k) for k in samples_a
             if k in samples_b and faith(samples_a, k) is not None and faith(samples_b, k) is not None}
    o = Page(browser, out.as_uri(), live=False)
    try:
        page = o.page
        page.click("button[data-tab=runs]")
        assert "tab=runs" in page.url and "sort=regression" in page.url and "metric=faithfulness" in page.url
        assert f"of {len(set(samples_a) & set(samples_b))} paired questions" in page.inner_text("#runs-count")
        first = page.locator("#runs-table tbody tr").first
        delta = float(first.locator("td.num").first.get_attribute("data-delta"))
        assert delta == pytest.approx(-max(drops.values()), abs=1e-6)
        page.check("#runs-changed")
        assert "changed=1" in page.url
        first = page.locator("#runs-table tbody tr").first
        system, sid = first.get_attribute("data-pair").split("/", 1)
        first.click()
        answers = page.inner_text("#pair-answers")
        assert samples_a[(system, sid)].answer in answers and samples_b[(system, sid)].answer in answers
        assert "\u2192" in page.inner_text("#pair-verdicts") and page.locator("#pair-metrics tbody tr").count() > 3
        address = page.url
        assert f"pid={sid}" in address
        o.shot("report-run-vs-run")
        o.close()
        # The address reopens the same question.
        o = Page(browser, address, live=False)
        assert sid in o.page.inner_text("#drawer-title") and o.page.locator("#pair-answers").count() == 1
        assert o.page.locator("#runs-changed").is_checked()
    finally:
        o.close()


# Cell starts a spreadsheet may run as a formula: = + - @ behind spaces, line breaks or invisible characters, and
# their fullwidth forms.
LOOKALIKES = [" =", "  =", "\n=", "\r\n=", "\t=", " \t@", "\n+", " -", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20",
              " \uFF1D", "\u200B=", "\uFEFF=", "\u200C+", "\u200D-", "\u2060@", "\u200B \uFF1D", "\uFE66", "\u2212"]
FORMULA = 'HYPERLINK("http://evil.example","x")'


def formula_like(cell: str) -> bool:
    """What a lenient spreadsheet may read as a formula: after leading spaces, control and format characters,
    a first character whose NFKC form is = + - @ (or a minus sign)."""
    i = 0
    while i < len(cell) and (cell[i].isspace() or unicodedata.category(cell[i]) in ("Cc", "Cf")):
        i += 1
    return unicodedata.normalize("NFKC", cell[i:i + 4])[:1] in tuple("=+-@\u2212")


def test_the_review_tab_csv_neutralises_formula_look_alikes(browser, tmp_path):
    rows = [{"id": f"f{i}", "system": "dense", "question": lead + FORMULA,
             "answer": lead + FORMULA + ". It was first recorded in 1820 by the royal archive.",
             "contexts": [{"id": f"c{i}", "text": lead + FORMULA + " The ferry sails daily from the harbour."}]}
            for i, lead in enumerate(LOOKALIKES)]
    run = add_judge(make_run(tmp_path / "run", rows))
    assert not formula_like("'" + LOOKALIKES[0] + FORMULA) and all(formula_like(x + FORMULA) for x in LOOKALIKES)
    server = ReviewProcess(run)
    try:
        o = Page(browser, server.url + "#tab=review")
        with o.page.expect_download() as info:
            o.page.click("#export-csv")
        text = Path(info.value.path()).read_bytes().decode("utf-8-sig")
        o.close()
    finally:
        server.stop()
    table = list(csv.reader(io.StringIO(text, newline="")))
    questions = {r[1]: r[2] for r in table[1:]}
    assert questions == {f"f{i}": "'" + lead + FORMULA for i, lead in enumerate(LOOKALIKES)}  # kept, behind a '
    bad = [cell for r in table for cell in r if formula_like(cell)]
    assert bad == []
