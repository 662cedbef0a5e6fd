"""Text in any script in the HTML report, in real headless Chromium (issue 35): every element that shows user
text (answers, questions, contexts, references, claims, quotes, reasons) has dir="auto", so an Arabic answer is
laid out right to left and an English or Chinese one left to right; the font stack names a face for Han, Arabic
and Devanagari text; the page stays under its hash-pinned CSP (no console error, no remote request)."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.runs import add_judge, make_run, write_results

from genevals.output import runfolder
from genevals.output.results import Results
from genevals.report import write_report

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
AR_CONTEXT = "القاهرة هي عاصمة مصر. يمر نهر النيل عبر المدينة."
ROWS = [
    {"id": "en", "question": "What is the capital of France?", "answer": "Paris is the capital of France.",
     "references": ["Paris"], "contexts": ["Paris is the capital and largest city of France."]},
    {"id": "ar", "question": "ما هي عاصمة مصر؟", "answer": "القاهرة هي عاصمة مصر. يمر النيل عبرها.",
     "references": ["القاهرة"], "contexts": [AR_CONTEXT]},
    {"id": "zh", "question": "中国的首都是哪里？", "answer": "北京是中国的首都。", "references": ["北京"],
     "contexts": ["北京是中华人民共和国的首都。"]},
    {"id": "hi", "question": "भारत की राजधानी क्या है?", "answer": "नई दिल्ली भारत की राजधानी है।", "references": ["नई दिल्ली"],
     "contexts": ["नई दिल्ली भारत की राजधानी है।"]},
]
AR_REASON = "السياق يذكر أن القاهرة هي عاصمة مصر."
# the elements of a sample's drawer that hold user text
USER_TEXT = ["#drawer .text-block.question", "#drawer .text-block.answer", "#drawer .ctx-text", "#drawer ol > li.text-block"]
# any element that directly holds a text node with a letter of a right-to-left script, with its computed direction
RTL_SWEEP = """(root) => {
  const out = [], walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (/[\\u0600-\\u06ff]/.test(n.nodeValue)) out.push([n.parentElement.tagName + "." + n.parentElement.className,
      getComputedStyle(n.parentElement).direction]);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("languages")
    run = add_judge(make_run(root / "run", ROWS))
    # the Arabic answer's first claim: supported, with an Arabic quote of its context and an Arabic reason
    results = Results.load(run)
    arabic = next(r for r in results.samples if r.sample.id == "ar")
    details = arabic.metrics["faithfulness"].details
    start = AR_CONTEXT.index("القاهرة هي عاصمة مصر.")
    details["verdicts"][0].update(label="supported", context_index=0, quote=AR_CONTEXT[start:start + 21],
                                  quote_found=True, quote_span=[start, start + 21], reason=AR_REASON)
    write_results(run, results)
    return write_report([run], root / runfolder.REPORT_FILE)


def open_sample(page, sample_id):
    if page.locator("#drawer").is_visible():
        page.click("#drawer-close")
    page.click(f"#samples-table tbody tr:has(td.mono:text-is('{sample_id}'))")
    page.wait_for_selector("#drawer:not([hidden])")
    assert page.inner_text("#drawer-title").endswith(sample_id)


def style(page, selector, prop):
    return page.locator(selector).evaluate_all("(nodes, p) => nodes.map(n => getComputedStyle(n)[p])", prop)


def test_direction_and_fonts_in_chromium(browser, report):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors, remote = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("file://", "data:", "blob:")) else remote.append(r.url))
    try:
        page.goto(report.resolve().as_uri())
        page.wait_for_selector("html[data-ready=true]", timeout=15_000)
        page.click("button[data-tab=samples]")
        page.wait_for_selector("#tab-samples:not([hidden])")
        # the samples table: each question and answer cell is laid out in its own text's direction
        for sample_id, direction in (("en", "ltr"), ("ar", "rtl"), ("zh", "ltr"), ("hi", "ltr")):
            row = f"#samples-table tbody tr:has(td.mono:text-is('{sample_id}')) .clip-2"
            assert style(page, row, "direction") == [direction, direction], sample_id
            assert style(page, row, "textAlign") == ["start", "start"]  # start of its own direction: right in rtl
        for sample_id, direction in (("en", "ltr"), ("ar", "rtl"), ("zh", "ltr"), ("hi", "ltr")):
            open_sample(page, sample_id)
            for selector in USER_TEXT:
                assert style(page, selector, "direction") == [direction], (sample_id, selector)
                assert page.locator(selector).first.get_attribute("dir") == "auto"
            claims = style(page, "#drawer .claim-list li span[dir=auto]", "direction")
            assert claims and set(claims) == {direction}, sample_id
        # the Arabic claim's evidence: claim, reason and quote right to left; every Arabic text node in the drawer
        open_sample(page, "ar")
        page.click("#drawer .claim-list li >> nth=0")
        page.wait_for_selector("#evidence .claim-text")
        assert style(page, "#evidence .claim-text", "direction") == ["rtl"]
        assert page.inner_text("#evidence .reason-text") == AR_REASON
        assert style(page, "#evidence .reason-text", "direction") == ["rtl"]
        assert style(page, "#evidence q", "direction") == ["rtl"]
        assert page.inner_text("#contexts .ctx.cited mark") == "القاهرة هي عاصمة مصر."
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report-arabic-sample.png"))
        swept = page.evaluate(RTL_SWEEP, "#drawer")
        assert len(swept) >= 8 and all(d == "rtl" for _, d in swept), swept
        # English stays left to right in the same page; the labels around Arabic text too
        assert style(page, "#evidence strong", "direction")[0] == "ltr"
        # a face for each script in the computed font stack of the answers (the browser picks per character)
        for sample_id, faces in (("zh", ("Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei")),
                                 ("ar", ("Noto Sans Arabic", "Segoe UI Arabic")),
                                 ("hi", ("Noto Sans Devanagari", "Nirmala UI")),
                                 ("en", ("system-ui",))):
            open_sample(page, sample_id)
            family = style(page, "#drawer .text-block.answer", "fontFamily")[0]
            assert all(f in family for f in faces), (sample_id, family)
        assert family.index("system-ui") < family.index("Noto Sans CJK SC")  # Latin text keeps the system face
        assert errors == [] and remote == []  # the CSP still holds: no violation, nothing fetched
    finally:
        context.close()


def test_the_first_screen_says_the_runs_languages(browser, report):
    """summary.json's top-level ``language`` (issue 52, point 3) as the terminal prints it, one caveat line."""
    import json

    from genevals.output.languages import language_line

    summary = json.loads((report.parent / "run" / runfolder.SUMMARY_FILE).read_text(encoding="utf-8"))
    line = language_line(summary["language"])
    assert summary["language"]["samples"] == {"ar": 1, "en": 1, "hi": 1, "zh": 1}
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(report.resolve().as_uri())
        page.wait_for_selector("html[data-ready=true]", timeout=15_000)
        shown = page.inner_text("#caveats #language-note summary")
        assert shown == "Language: " + line.removeprefix("language: "), shown
        assert errors == []
    finally:
        context.close()
