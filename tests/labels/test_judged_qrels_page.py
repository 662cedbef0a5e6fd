"""A run scored on qrels ``genevals label`` made says so where the reader looks first: a caveat in the report's
Overview, in real headless Chromium (and in the Details of its metadata), beside the first screen's answer."""
import json

from support.label_data import demo_trec, genevals

NOTE = "relevance labels made by the offline MiniLM model"


def test_the_overview_caveats_say_the_qrels_were_made_by_the_model(browser, tmp_path):
    f = demo_trec(tmp_path)
    made = genevals("label", "--qrels-out", tmp_path / "judged.qrels", f["dense"], f["sparse"], "--topics",
                    f["topics"], "--docs", f["docs"], "--depth", 3, "--offline")
    assert made.returncode == 0, made.stderr
    run = genevals("run", "--qrels", tmp_path / "judged.qrels", "--run", f["dense"], "--run", f["sparse"], "-o",
                   tmp_path / "r", "--no-history")
    assert run.returncode == 0, run.stderr
    assert NOTE in json.loads((tmp_path / "r" / "summary.json").read_text())["meta"]["qrels_judged_by"]["note"]
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto((tmp_path / "r" / "report.html").resolve().as_uri())
        page.wait_for_selector("html[data-ready=true]", timeout=15_000)
        caveat = page.locator("#caveats details.caveat", has_text=NOTE)
        assert caveat.count() == 1 and caveat.is_visible()
        assert "pool depth 3" in caveat.inner_text() and "not by people" in caveat.inner_text()
        # the default cutoffs 5 and 10 reach past the pool: the unjudged documents there are a caveat too (issue 52)
        unjudged = page.locator("#caveats details.caveat", has_text="the qrels were pooled to depth 3")
        assert unjudged.count() == 1 and unjudged.is_visible()
        assert "dense @10:" in unjudged.inner_text() and "sparse @5:" in unjudged.inner_text()
    finally:
        context.close()
    assert errors == []
