"""A jury in the report: the page data (each verdict's judges, each sample's score per judge, each system's
kappas and costs) and, in real headless Chromium, the overview's agreement table, the split claims marked with
which judge said what in a sample's drawer, every judge's verdict per claim, and the "Has split claims" filter;
no console errors. The run is judged by two real HTTP judge servers on 127.0.0.1."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.fault_server import FaultServer
from support.report_page import report_page

from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from genevals.output import runfolder
from genevals.report import write_report
from genevals.report.model import build_data

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CONTEXT = "Paris is in France. The Seine runs through Paris."


def lenient(claim, label):
    return "supported" if "PLANTED" in claim else label


@pytest.fixture(scope="module")
def jury_report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("jury")
    rows = [{"id": "split", "answer": "Paris is in France. The PLANTED tower is blue.", "contexts": [CONTEXT]},
            {"id": "agreed", "answer": "Paris is in France. The Seine runs through Paris.", "contexts": [CONTEXT]}]
    with FaultServer() as honest, FaultServer(verdict=lenient) as dissent:
        jury = [{"name": "honest", "base_url": honest.base_url, "model": "judge", "cache": False},
                JudgeConfig(base_url=dissent.base_url, model="lenient-model", cache=False)]
        evaluate(rows, ["faithfulness"], judge=jury, out_dir=root / "run")
    return write_report([root / "run"], root / "run" / runfolder.REPORT_FILE)


def test_the_page_data_carries_the_jury(jury_report):
    data = build_data([jury_report.parent], None, 100, None)
    j = data["systems"][0]["jury"]["faithfulness"]
    assert j["judges"] == ["honest", "lenient-model"] and (j["split"], j["units"]) == (1, 4)
    assert list(j["pairs"]) == ["honest|lenient-model"] and j["fleiss"] is not None
    split = next(s for s in data["samples"] if s["id"] == "split")
    assert split["j"]["verdicts"][1]["jy"] == {"honest": "unverifiable", "lenient-model": "supported"}
    assert split["j"]["jv"] == {"honest": 0.5, "lenient-model": 1.0}


def test_split_verdicts_in_chromium(browser, jury_report):
    with report_page(browser, jury_report) as view:
        p, errors, tab = view.page, view.errors, view.tab
        assert "Jury: agreement between judges" in p.inner_text("#jury")
        assert "1 / 4 claims" in p.inner_text("#jury-table tbody")
        tab("samples")
        assert p.inner_text("#samples-count") == "2 of 2 samples"
        p.select_option("#samples-filters select >> nth=1", "split")
        assert p.inner_text("#samples-count") == "1 of 2 samples"
        p.click("#samples-table tbody tr >> nth=0")
        p.wait_for_selector("#claim-jury")
        marks = p.locator(".claim-list .chip.jury-split")
        assert marks.all_inner_texts() == ["split: honest: unverifiable \u00b7 lenient-model: supported"]
        assert p.locator(".answer .claim.split").count() == 1
        card = p.inner_text("#claim-jury")
        assert "Score per judge: honest 0.500, lenient-model 1.000" in card and "50%" in card
        assert p.locator("#jury-claims tbody tr.split").count() == 1
        ARTIFACTS.mkdir(exist_ok=True)
        p.locator("#claim-jury").screenshot(path=str(ARTIFACTS / "jury-verdicts.png"))
        assert errors == []
