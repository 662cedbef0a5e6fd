"""The RAG judges in the HTML report, in real headless Chromium: the variants card on the overview, the pairwise
win/tie/loss table in the compare tab, the drill-down (chunks judged relevant, missed reference facts) and the
relevance-by-rank chart. The run is scored through the real metrics and engine with a ScriptedProvider judge."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.rag_judge import FAMILIES, scripted_reply
from support.report_page import report_page

from genevals.api import evaluate
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.output import runfolder
from genevals.report import write_report
from genevals.report.model import build_data

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"


@pytest.fixture(scope="module")
def rag_report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rag")
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["id"] in ("q01", "q02", "q03", "q04") and r["system"] in ("dense", "sparse")]
    provider = ScriptedProvider({kind: scripted_reply for kind in (*FAMILIES, "pairwise")})
    evaluate(rows, [*FAMILIES, "pairwise"], judge=JudgeConfig(provider=provider, cache=False), out_dir=root / "run")
    return write_report([root / "run"], root / "run" / runfolder.REPORT_FILE)


def test_the_page_data_carries_the_drill_down(rag_report):
    data = build_data([rag_report.parent], None, 100, None)
    sample = next(s for s in data["samples"] if s.get("rag"))
    rag = sample["rag"]
    assert {"cr", "rc", "ac", "ar", "pw"} <= set(rag)
    assert len(rag["cr"]) == len(sample["ctx"]) and all(isinstance(c["r"], bool) for c in rag["cr"])
    fact = rag["ac"]["r"][0]
    ref = sample["refs"][rag["ac"]["ref"]]
    assert ref[fact["s"][0][0]:fact["s"][0][1]] == fact["t"]  # the span points at the fact in the reference


def test_rag_views_in_chromium(browser, rag_report):
    with report_page(browser, rag_report) as view:
        p, errors, tab = view.page, view.errors, view.tab
        variants = p.inner_text("#rag-variants")
        assert "context_relevance" in variants and "LLM judge" in variants and "pairwise" in variants
        tab("compare")
        table = p.inner_text("#pairwise-table")
        assert "dense" in table and "sparse" in table and "Win" in table
        assert p.locator("#pairwise-table tbody tr").count() == 2  # dense vs sparse, and back
        tab("samples")
        p.click("#samples-table tbody tr >> nth=0")
        p.wait_for_selector("#rag-card")
        card = p.inner_text("#rag-card").lower()  # the headings are in small capitals
        assert "context relevance" in card and "context recall" in card and "answer correctness" in card
        assert "pairwise" in card and "both orders agree" in card and "missed" in card
        assert p.locator("#rag-chunks .ctx").count() >= 1
        ARTIFACTS.mkdir(exist_ok=True)
        p.locator("#rag-card").screenshot(path=str(ARTIFACTS / "rag-drilldown.png"))
        p.click("#drawer-close")
        tab("charts")
        assert p.locator("#rag-rank-chart svg rect.bar").count() >= 2
        assert errors == []
