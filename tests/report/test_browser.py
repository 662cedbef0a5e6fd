"""The HTML report in real headless Chromium (Python Playwright, sync API; the ``browser`` fixture is in
tests/conftest.py and fails, with the setup instruction, when Chromium or playwright is missing). Screenshots go to tests/artifacts/.
"""
from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pytest
from support.runs import (TINY_WARNING, add_judge, make_offline_run, make_run, make_synthetic_run, make_xss_run,
                          write_results)

from genevals.output import runfolder
from genevals.report import write_report
from genevals.output.results import Results

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


class Opened:
    """A page on a report, recording console errors, page errors, dialogs and any non-file request."""

    def __init__(self, browser, path: Path, width: int = 1400):
        self.context = browser.new_context(viewport={"width": width, "height": 1000}, accept_downloads=True)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.remote: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))

        def on_dialog(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        self.page.on("dialog", on_dialog)

        def route(r):
            url = r.request.url
            if url.startswith(("file://", "data:", "blob:")):
                r.continue_()
            else:
                self.remote.append(url)
                r.abort()

        self.page.route("**/*", route)
        self.page.on("request", lambda req: None if req.url.startswith(("file://", "data:", "blob:"))
                     else self.remote.append(req.url))
        start = time.perf_counter()
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-ready=true]", timeout=15_000)
        self.load_seconds = time.perf_counter() - start

    def tab(self, name: str) -> None:
        self.page.click(f"button[data-tab={name}]")
        self.page.wait_for_selector(f"#tab-{name}:not([hidden])")

    def shot(self, name: str, full_page: bool = False) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        out = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(out), full_page=full_page)
        return out

    def assert_clean(self) -> None:
        assert self.errors == [] and self.dialogs == [] and self.remote == []

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("reports")
    demo = make_run(root / "demo")
    judged = add_judge(make_run(root / "judged"))
    tiny = add_judge(make_run(root / "tiny"), warning=TINY_WARNING)
    return {
        "demo": write_report([demo], demo / runfolder.REPORT_FILE),
        "judged": write_report([judged], judged / runfolder.REPORT_FILE, {"token_f1": 0.3, "mrr": 0.99}),
        "tiny": write_report([tiny], tiny / runfolder.REPORT_FILE),
        "compare": write_report([demo, judged], root / "compare.html"),
        "xss": write_report([make_xss_run(root / "<svg onload=window.__xss=10>")], root / "xss.html"),
    }


def visible_rows(page, table: str) -> int:
    return page.locator(f"#{table} tbody tr").count()


def test_demo_report_loads_with_overview_and_charts(browser, reports):
    o = Opened(browser, reports["demo"])
    try:
        page = o.page
        n_systems = len({row["system"] for _, row in runfolder.iter_rows(reports["demo"].parent)})
        # issue 37: one table, the systems side by side (a column group each), a row per metric
        assert page.locator(".overview-table").count() == 1
        assert page.locator(".overview-table th.system-head").count() == n_systems
        assert page.locator(".overview-table tbody tr").count() > 10
        assert page.locator("#leaderboard tbody tr").count() == n_systems
        assert page.locator(".band-Excellent, .band-Good, .band-Moderate, .band-Fair, .band-Poor").count() > 0
        assert page.locator("#judge-warning").count() == 0
        o.shot("report-overview", full_page=True)
        o.tab("details")  # issue 37: the judges card moved to the Details tab
        assert "No LLM judge verdicts" in page.inner_text("#tab-details")
        o.tab("charts")
        assert page.locator("#system-bars svg rect.bar").count() > 0
        assert page.locator("#histograms .histogram svg").count() >= 10
        assert page.locator("#rank-chart svg rect.bar").count() > 0
        assert "not found" in page.inner_text("#rank-chart")
        assert page.locator("#scatter-chart circle").count() > 0
        assert "No judge verdicts" in page.inner_text("#verdict-chart")
        o.shot("report-charts", full_page=True)
        o.tab("compare")
        assert visible_rows(page, "compare-table") > 0
        o.tab("review")
        assert page.locator("#review-empty").count() == 1
        o.assert_clean()
    finally:
        o.close()


def test_judged_report_claim_shows_evidence_in_the_right_context(browser, reports):
    o = Opened(browser, reports["judged"])
    try:
        page = o.page
        overview = page.inner_text("#tab-overview")
        # Declared lower-is-better in outputs.json (the judge's declarations): marked so, banded on 1 - mean.
        assert "contradiction_rate (lower is better)" in overview and "mrr (lower is better)" not in overview
        # Thresholds: token_f1 >= 0.3 passes, mrr >= 0.99 fails.
        thresholds = page.inner_text("#thresholds")
        assert "pass" in thresholds and "fail" in thresholds
        o.tab("details")  # issue 37: the judges card moved to the Details tab
        assert "fixture-judge-1" in page.inner_text("#tab-details")
        o.tab("charts")
        assert page.locator("#verdict-chart rect[data-verdict=contradicted]").count() > 0
        o.tab("samples")
        page.select_option("#samples-filters select >> nth=1", "contradicted")
        page.click("#samples-table tbody tr >> nth=0")
        page.wait_for_selector("#drawer:not([hidden])")
        claim = page.locator("#drawer .answer .claim.v-contradicted").first
        claim.click()
        cited = page.locator("#contexts .ctx.cited")
        assert cited.count() == 1
        mark = cited.locator("mark")
        assert mark.count() == 1
        # The marked text is the verdict's quote and sits in the context the verdict cites.
        data = page.evaluate("() => JSON.parse(document.getElementById('genevals-data').textContent)")
        sample_id = page.inner_text("#drawer-title").split(" \u00b7 ")[-1]
        k = int(claim.get_attribute("data-claim"))
        sample = next(s for s in data["samples"] if s["id"] == sample_id and "j" in s
                      and any(c["spans"] for c in s["j"]["claims"]))
        verdict = next(v for v in sample["j"]["verdicts"] if v["claim_index"] == sample["j"]["claims"][k]["index"])
        assert int(cited.get_attribute("data-context")) == verdict["context_index"]
        ctx = sample["ctx"][verdict["context_index"]]
        assert mark.inner_text() == ctx["text"][verdict["quote_span"][0]:verdict["quote_span"][1]]
        assert f"rank {ctx['rank']}" in cited.inner_text() and "relevance grade" in cited.inner_text()
        assert "contradicted" in page.inner_text("#evidence")
        assert page.locator("#sample-metrics tbody tr").count() > 5
        o.shot("report-sample-evidence")
        page.click("#drawer-close")
        assert page.locator("#drawer").is_hidden()
        o.assert_clean()
    finally:
        o.close()


def test_filters_change_visible_rows_and_csv_export(browser, reports):
    o = Opened(browser, reports["judged"])
    try:
        page = o.page
        o.tab("samples")
        count = lambda: page.inner_text("#samples-count")  # noqa: E731
        before = count()
        page.select_option("#samples-filters select >> nth=0", "0")
        assert count() != before
        page.select_option("#samples-filters select >> nth=0", "")
        assert count() == before
        page.fill("#samples-search", "zzzz-no-such-text")
        assert visible_rows(page, "samples-table") == 0 and count().startswith("0 of")
        page.fill("#samples-search", "")
        page.select_option("#samples-filters select >> nth=2", "token_f1")
        page.fill("#samples-filters input[type=number] >> nth=0", "0.5")
        filtered = count()
        assert filtered != before
        shown = page.locator("#samples-table tbody tr").count()
        assert 0 < shown <= 50
        # Sorting by a metric column orders the rows.
        page.click("#samples-table th[data-sort=token_f1]")
        col = [h.get_attribute("data-sort") for h in page.locator("#samples-table thead th").all()].index("token_f1")
        values = [float(t) for t in page.locator(f"#samples-table tbody tr td:nth-child({col + 1})").all_inner_texts()]
        assert values == sorted(values, reverse=True) and min(values) >= 0.5

        o.tab("review")
        total = page.inner_text("#review-count")
        page.select_option("#review-filters select >> nth=1", "contradicted")
        contradicted = page.inner_text("#review-count")
        assert contradicted != total
        assert page.locator("#review-table tbody .v-contradicted").count() == visible_rows(page, "review-table")
        assert page.locator("#review-table tbody .v-unverifiable").count() == 0
        page.fill("#review-filters input[type=number] >> nth=1", "0.4")  # faithfulness <= 0.4
        faithfulness = [float(t) for t in page.locator("#review-table tbody tr td:nth-child(6)").all_inner_texts()]
        assert faithfulness and max(faithfulness) <= 0.4
        shown = int(page.inner_text("#review-count").split(" of ")[0])
        with page.expect_download() as info:
            page.click("#export-csv")
        text = Path(info.value.path()).read_text(encoding="utf-8-sig")
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0][:6] == ["system", "sample_id", "question", "answer", "claim", "verdict"]
        assert len(rows) - 1 == shown  # every filtered row, not just this page
        assert rows[1:] and all(r[5] == "contradicted" for r in rows[1:])
        o.shot("report-review", full_page=False)
        o.assert_clean()
    finally:
        o.close()


def test_tiny_model_warning_is_visible(browser, reports):
    o = Opened(browser, reports["tiny"])
    try:
        warning = o.page.locator("#judge-warning")
        assert warning.is_visible() and "tiny embedded model" in warning.inner_text()
        o.assert_clean()
    finally:
        o.close()


def test_comparison_of_two_runs_labels_clashing_systems(browser, reports):
    o = Opened(browser, reports["compare"])
    try:
        page = o.page
        headings = page.locator(".systems th.system-head").all_inner_texts()  # issue 37: side by side
        assert headings and all(h.startswith(("demo/", "judged/")) for h in headings)
        o.tab("compare")
        assert visible_rows(o.page, "compare-table") > 0
        page.check("#tab-compare input[type=checkbox]")
        assert all("significant" in r for r in page.locator("#compare-table tbody tr").all_inner_texts())
        o.shot("report-compare")
        o.assert_clean()
    finally:
        o.close()


XSS_CHECK = """() => {
  const bad = [];
  for (const node of document.querySelectorAll('*')) {
    for (const attr of node.attributes) {
      if (attr.name.startsWith('on')) bad.push(node.tagName + ' ' + attr.name);
      if (/^\\s*javascript:/i.test(attr.value)) bad.push(node.tagName + ' ' + attr.name + '=' + attr.value);
    }
  }
  return {xss: window.__xss, imgs: document.querySelectorAll('img, iframe, object, embed, svg image').length,
          scripts: document.scripts.length, links: document.querySelectorAll('a[href]:not([href^="blob:"])').length, bad};
}"""


def test_xss_payloads_do_not_execute(browser, reports):
    o = Opened(browser, reports["xss"])
    try:
        page = o.page
        for tab in ("charts", "compare", "samples", "review", "overview"):
            o.tab(tab)
        o.tab("samples")
        n = visible_rows(page, "samples-table")
        assert n == 5
        for i in range(n):
            page.click(f"#samples-table tbody tr >> nth={i}")
            for k in range(page.locator("#drawer .claim-list li").count()):
                page.click(f"#drawer .claim-list li >> nth={k}")
            page.click("#drawer-close")
        o.tab("review")
        page.click("#review-table tbody tr >> nth=0")
        assert "<script>window.__xss=1</script>" in page.inner_text("#drawer-body") or \
            "<img src=x" in page.inner_text("#drawer-body")
        page.click("#drawer-close")
        with page.expect_download() as info:
            page.click("#export-csv")
        rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8-sig"))))
        claims = [r[4] for r in rows[1:]]
        assert "'=HYPERLINK(\"http://evil." in claims  # formula neutralised, CSV-quoted
        assert not any(cell.startswith(("=", "+", "-", "@")) for r in rows for cell in r)
        state = page.evaluate(XSS_CHECK)
        assert state == {"xss": None, "imgs": 0, "scripts": 2, "links": 0, "bad": []}
        assert "<script>window.__xss=1</script>" in page.inner_text("#tab-samples")
        o.shot("report-xss")
        o.assert_clean()
    finally:
        o.close()


def test_thousand_samples_offline_small_and_fast(browser, tmp_path):
    run = make_synthetic_run(tmp_path / "big")
    out = write_report([run], tmp_path / "big.html")
    assert out.stat().st_size < 3_000_000
    o = Opened(browser, out)
    try:
        page = o.page
        assert o.load_seconds < 5, o.load_seconds
        for tab in ("charts", "samples", "review", "compare"):
            start = time.perf_counter()
            o.tab(tab)
            assert time.perf_counter() - start < 5, tab
        o.tab("samples")
        assert page.inner_text("#samples-count") == "1000 of 1000 samples"
        assert visible_rows(page, "samples-table") == 50  # paginated, not all 1,000 rows in the DOM
        page.click(".pager button:has-text('Next') >> nth=0")
        assert visible_rows(page, "samples-table") == 50
        o.shot("report-1000-samples")
        o.assert_clean()
    finally:
        o.close()


def test_run_with_no_samples_still_renders(browser, tmp_path):
    run = tmp_path / "empty"
    run.mkdir()
    (run / runfolder.RESULTS_FILE).write_text("")
    o = Opened(browser, write_report([run], tmp_path / "empty.html"))
    try:
        for tab in ("charts", "compare", "samples", "review", "overview"):
            o.tab(tab)
        assert "No systems" in o.page.inner_text("#tab-overview")
        o.assert_clean()
    finally:
        o.close()


def test_low_coverage_banner_no_band_and_a_maximum_threshold(browser, tmp_path):
    """A mean on 1 of 5 samples gets no band and a banner naming its unscored reasons; a --fail-over limit
    reads as a maximum; an error rate is banded by its own limits."""
    from genevals.api import evaluate
    from genevals.output.thresholds import FAIL_OVER, Threshold

    rows = [{"id": str(i), "answer": "Paris", "references": ["Paris"] if i == 0 else [], "contexts": ["Paris."],
             "relevant": ["1"] if i < 4 else ["9"]} for i in range(5)]
    run = tmp_path / "low"
    evaluate(rows, ["exact_match", "mrr", "first_relevant_rank"], out_dir=run)
    out = write_report([run], tmp_path / "low.html", [Threshold("first_relevant_rank", 1.5, FAIL_OVER)])
    o = Opened(browser, out)
    try:
        banner = o.page.locator("#coverage-warning")
        assert banner.is_visible()
        text = banner.inner_text()
        assert "less than 80%" in text and "exact_match scored 1 of 5 (20%); unscored: no_reference 4" in text
        assert "mrr" not in text  # 5 of 5
        row = o.page.locator(".overview-table tbody tr", has_text="exact_match").first
        assert "1 of 5 (20%)" in row.inner_text() and row.locator("[class*=band-]").count() == 0
        mrr = o.page.locator(".overview-table tbody tr", has_text="mrr").first
        assert "5 of 5 (100%)" in mrr.inner_text() and mrr.locator(".band-Excellent").count() == 1  # 0.8, covered
        thresholds = o.page.inner_text("#thresholds")
        assert "\u2264 1.5" in thresholds and "pass" in thresholds  # mean rank 1.0 on the 4 found
        o.assert_clean()
    finally:
        o.close()


def test_long_answer_with_overlapping_claims_keeps_text_and_worst_verdicts(browser, tmp_path):
    """A 30,000-character answer is built in chunks the browser may skip laying out; its text is unchanged, every
    piece shows the worst verdict of the claims covering it, and clicking claims one after another leaves exactly
    one context marked."""
    sentence = "The harbour ferry <b>sails</b> at dawn & returns at dusk. "
    answer = sentence * 520
    rows = [{"id": "long", "question": "When?", "answer": answer, "references": ["dawn"],
             "contexts": ["The harbour ferry sails at dawn.", "It returns at dusk."]}]
    run = add_judge(make_run(tmp_path / "run", rows))
    # Overlapping claims: the first spans two sentences and is contradicted, so it outranks the supported one.
    results = runfolder.read_results(run)
    result = next(iter(results))
    details = result.metrics["faithfulness"].details
    n = len(sentence)
    details["claims"][0]["spans"] = [[0, 2 * n - 1]]
    details["verdicts"][0]["label"] = "contradicted"
    details["verdicts"][1]["label"] = "supported"
    loaded = Results.load(run)
    loaded.samples[0].metrics["faithfulness"] = result.metrics["faithfulness"]
    write_results(run, loaded)
    o = Opened(browser, write_report([run], tmp_path / "report.html"))
    try:
        page = o.page
        o.tab("samples")
        page.click("#samples-table tbody tr >> nth=0")
        page.wait_for_selector("#drawer:not([hidden])")
        assert page.locator("#drawer .answer .text-chunk").count() > 3
        assert page.evaluate("() => document.querySelector('#drawer .answer').textContent") == answer
        first = page.locator("#drawer .answer .claim").first
        assert first.get_attribute("data-claim") == "0" and "v-contradicted" in first.get_attribute("class")
        assert page.evaluate("() => document.querySelector('#drawer .answer .claim').textContent") == answer[:n]
        second = page.evaluate("() => document.querySelectorAll('#drawer .answer .claim')[1].textContent")
        assert second == answer[n:2 * n - 1]  # sentence 2 lies inside claim 0: the worse verdict wins
        for k in (5, 6, 7):
            page.locator(f"#drawer .claim-list li[data-claim='{k}']").click()
            assert page.locator("#contexts .ctx.cited").count() <= 1
            assert page.locator("#contexts mark").count() <= 1
        assert not o.errors, o.errors
    finally:
        o.context.close()


def test_compare_tab_names_systems_that_share_no_question_id(browser, tmp_path):
    rows = [{"system": s, "answer": f"Sight {i} is in Paris", "references": [f"Sight {i} is in Paris"]}
            for s in ("dense", "sparse") for i in range(3)]  # no ids: each row's id is its row number
    run = make_run(tmp_path / "no_ids", rows)
    o = Opened(browser, write_report([run], tmp_path / "no_ids.html"))
    try:
        o.tab("compare")
        notice = o.page.inner_text("#unshared-ids")
        assert "\u201cdense\u201d and \u201csparse\u201d share no question id" in notice
        assert "--map id=question" in notice
        o.assert_clean()
    finally:
        o.close()
    ids = make_run(tmp_path / "ids", [dict(r, id=r["answer"][:7]) for r in rows])
    o = Opened(browser, write_report([ids], tmp_path / "ids.html"))
    try:
        o.tab("compare")
        assert o.page.locator("#unshared-ids").count() == 0 and visible_rows(o.page, "compare-table") > 0
        o.assert_clean()
    finally:
        o.close()


def test_offline_judge_banner_and_card(browser, tmp_path, monkeypatch):
    """An offline run: the banner states the detector's out-of-sample figure once, with its baseline; the judge
    card lists the local detector once (not once per context kind) and does not call it an LLM."""
    from genevals.grounding import figure

    run = make_offline_run(tmp_path / "run", monkeypatch)
    o = Opened(browser, write_report([run], tmp_path / "report.html"))
    try:
        line = o.page.inner_text("#judge-warning summary")  # the caveat's line: the figure in brief (issue 52, 10b)
        assert figure.packaged().brief() in line and figure.packaged().sentence() not in line
        o.page.click("#judge-warning summary")  # its details: how the figure was measured
        banner = o.page.inner_text("#judge-warning")
        assert banner.count(figure.packaged().sentence()) == 1 and banner.count("word-overlap baseline") == 1
        assert o.page.inner_text("#tab-overview").count("word-overlap baseline") == 1
        o.tab("details")  # issue 37: the judges card moved to the Details tab
        card = o.page.locator("#judges")
        assert card.locator("dl.judge").count() == 1 and card.locator("h3").inner_text() == "Judge"
        assert "local-grounding" in card.inner_text() and "text, record" in card.inner_text()
        o.assert_clean()
    finally:
        o.close()
