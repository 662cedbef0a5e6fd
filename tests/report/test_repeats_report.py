"""Judge repeats in the report: the page data (each verdict's repeats and agreement, each system's flip rate and
intervals) and, in real headless Chromium, the overview's flip rate, the unstable claims marked with their
agreement in a sample's drawer, every repeat's verdict, the "Has unstable claims" filter and the review tab."""
from __future__ import annotations

from pathlib import Path

import pytest
from support.report_page import report_page
from support.seed_judge import BySeed, flips

from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from genevals.output import runfolder
from genevals.report import write_report
from genevals.report.model import build_data

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CONTEXT = "Paris is in France. The Seine runs through Paris."
STEADY = "Paris is in France. The Seine runs through Paris."


@pytest.fixture(scope="module")
def repeats_report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repeats")
    rows = [{"id": "flips", "answer": "Paris is in France. The Seine runs through Paris. Paris has ten million "
                                      "cats. Lyon is big.", "contexts": [CONTEXT]},
            {"id": "steady", "answer": STEADY, "contexts": [CONTEXT]}]

    class PerAnswer(BySeed):  # each answer's own sentences as its claims
        async def complete(self, messages, schema, params):
            content = messages[0]["content"]
            self.sentences = [s.strip() + "." for s in content.rsplit('Answer: """', 1)[-1].split('"""')[0]
                              .split(".") if s.strip()] if "Claims:" not in content else self.sentences
            return await super().complete(messages, schema, params)

    provider = PerAnswer(flips)
    evaluate(rows, ["faithfulness"], judge=JudgeConfig(provider=provider, cache=False, repeats=3, concurrency=1),
             out_dir=root / "run")
    return write_report([root / "run"], root / "run" / runfolder.REPORT_FILE)


def test_the_page_data_carries_the_repeats(repeats_report):
    data = build_data([repeats_report.parent], None, 100, None)
    system = data["systems"][0]["repeats"]["faithfulness"]
    assert (system["n"], system["unstable"], system["units"], system["unit"]) == (3, 2, 6, "claims")
    assert system["flip"] == pytest.approx(2 / 6, abs=1e-6) and len(system["ci"]) == 2
    flips_sample = next(s for s in data["samples"] if s["id"] == "flips")
    reps = [v["rep"] for v in flips_sample["j"]["verdicts"]]
    assert ["supported", "contradicted", "supported"] in reps
    assert flips_sample["j"]["rp"] == {"values": [0.75, 0.5, 1.0], "statuses": ["ok", "ok", "ok"]}


def test_repeats_in_chromium(browser, repeats_report):
    with report_page(browser, repeats_report) as view:
        p, errors, tab = view.page, view.errors, view.tab
        overview = p.inner_text("#judge-repeats")
        assert "Judge variance" in overview and "tie is unverifiable" in overview
        assert p.inner_text("#repeats-table .flip-rate") == "0.333"
        assert "2 / 6 claims" in p.inner_text("#repeats-table tbody")
        tab("samples")
        assert p.inner_text("#samples-count") == "2 of 2 samples"
        p.select_option("#samples-filters select >> nth=1", "unstable")
        assert p.inner_text("#samples-count") == "1 of 2 samples"
        p.click("#samples-table tbody tr >> nth=0")
        p.wait_for_selector("#claim-repeats")
        marks = p.locator(".claim-list .chip.unstable")
        assert marks.count() == 2
        assert sorted(marks.all_inner_texts()) == ["agreement 2/3", "agreement 2/3"]
        assert p.locator(".answer .claim.unstable").count() == 2
        card = p.inner_text("#claim-repeats")
        assert "Repeat 3" in card and "Score per repeat: 0.750, 0.500, 1.000" in card
        assert p.locator("#repeats-claims tbody tr.unstable").count() == 2
        ARTIFACTS.mkdir(exist_ok=True)
        p.locator("#claim-repeats").screenshot(path=str(ARTIFACTS / "judge-repeats.png"))
        p.click("#drawer-close")
        tab("review")
        beside = p.locator(".repeats-beside")
        assert beside.count() >= 1 and "2/3" in beside.first.inner_text()  # Lyon: unverifiable, 2 of 3
        assert errors == []
