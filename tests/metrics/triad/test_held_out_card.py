"""Issue 52, point 20: a card's held-out figures are shown wherever the card is. ``genevals metrics
context_relevance_local``, the run's outputs.json and the report's card (in Chromium) print the held-out WikiQA
line beside the development one, and docs/metrics/rag-judges.md quotes the same numbers, all read from
``triad_held_out.json``."""
from __future__ import annotations

from pathlib import Path


from genevals.metrics.base import card_lines
from genevals.metrics.base.cards import held_out_lines
from genevals.metrics.triad import calibration
from genevals.output import runfolder
from tests.support.cli import genevals, write_jsonl
from tests.support.report_page import report_page

REPO = Path(__file__).resolve().parents[3]
ROWS = [{"id": str(i), "question": "How long does the ferry crossing to the mainland take?", "answer": answer,
         "contexts": ["The ferry crossing to the mainland takes about 55 minutes.", "Bins are emptied every Monday."]}
        for i, answer in enumerate(["About 55 minutes.", "The library opens at nine."])]


def _held_out() -> dict:
    (found,) = calibration.held_out("context_relevance")
    return found


def test_the_card_carries_the_held_out_figure_and_its_verdict():
    e = _held_out()
    card = calibration.card("context_relevance")
    assert card["held_out"] == [e] and card["evaluations"]  # the development figures stay, the held-out beside them
    lo, hi = e["auc"]["ci"]
    assert lo <= e["auc"]["value"] <= hi
    # the verdict follows the figures: the baseline's AUC inside the judge's interval is no win
    assert lo <= e["best_baseline"]["auc"] <= hi
    assert e["versus_baseline"] == "level with" and e["beats_baseline"] is False
    line = held_out_lines(card)[0]
    assert f"AUC {e['auc']['value']:.3f} [{lo:.3f}, {hi:.3f}]" in line
    assert f"level with {e['best_baseline']['name']} (does NOT beat it)" in line
    assert card_lines(card)[-2:] == held_out_lines(card)


def test_every_place_the_card_is_shown_reads_the_same_figures(tmp_path, browser):
    e = _held_out()
    want = held_out_lines(calibration.card("context_relevance"))[0]
    # 1. genevals metrics NAME
    shown = genevals("metrics", "context_relevance_local")
    assert shown.returncode == 0, shown.stderr
    assert want in shown.stdout
    # 2. a run's outputs.json (what the report reads) and 3. the report's card, in Chromium
    data = write_jsonl(tmp_path / "rows.jsonl", ROWS)
    run = genevals("run", data, "-m", "context_relevance", "-o", tmp_path / "run", "-q")
    assert run.returncode == 0, run.stderr
    assert want in runfolder.read_outputs(tmp_path / "run")["context_relevance"]["card_text"]
    made = genevals("report", tmp_path / "run", "-o", tmp_path / "report.html")
    assert made.returncode == 0, made.stderr
    with report_page(browser, tmp_path / "report.html") as view:
        cards = view.page.locator("#validation-cards")
        cards.wait_for()
        text = cards.inner_text()
        assert want in text and "WikiQA dev" in text
        row = view.page.locator(".overview-table tbody tr", has_text="context_relevance").first
        assert "not above baseline" in row.locator(".metric-marks .chip").first.inner_text()
        assert view.errors == []
    # 4. the docs quote the same numbers and verdict
    docs = (REPO / "docs" / "metrics" / "rag-judges.md").read_text(encoding="utf-8")
    lo, hi = e["auc"]["ci"]
    assert (f"AUC {e['auc']['value']:.3f} [{lo:.3f}, {hi:.3f}] against {e['best_baseline']['auc']:.3f} for "
            f"{e['best_baseline']['name']}") in docs
    assert f"**{e['versus_baseline']}** {e['best_baseline']['name']} held out" in docs
