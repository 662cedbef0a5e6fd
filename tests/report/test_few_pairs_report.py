"""The report says "too few pairs to test" (issue 38/39 follow-up) where two systems share fewer question ids than
a paired test needs (genevals.stats.MIN_PAIRS): the leaderboard cell and the Compare tab's row show it, with no
p-value, no interval and no significance mark; real headless Chromium, 0 console errors. Before the rule, three
pairs of one sign were marked significant at p < 0.001."""
from __future__ import annotations

import pytest
from support.report_page import report_page
from support.runs import embedded, make_run

from genevals.report import write_report


@pytest.fixture(scope="module")
def page_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("few_pairs_report")
    rows = []
    for i in range(3):
        reference = f"the lighthouse number {i} stands on the northern cape"
        rows += [{"id": f"q{i}", "system": "strong", "question": f"Where is lighthouse {i}?", "answer": reference,
                  "references": [reference]},
                 {"id": f"q{i}", "system": "weak", "question": f"Where is lighthouse {i}?",
                  "answer": f"no idea about item {i} sorry", "references": [reference]}]
    return write_report([make_run(root / "run", rows)], root / "few.html")


def test_leaderboard_and_compare_tab_say_too_few_pairs(browser, page_path):
    data = embedded(page_path.read_text(encoding="utf-8"))
    untested = [c for c in data["comparisons"] if c["p_value"] is None]
    assert untested and all(not c["significant"] and c["n_pairs"] == 3 for c in untested)
    assert not any(c["significant"] for c in data["comparisons"])
    with report_page(browser, page_path) as view:
        board = view.page.inner_text("#leaderboard")
        assert "too few pairs to test vs strong (3)" in board and "p < 0.001" not in board
        view.tab("compare")
        compare = view.page.inner_text("#tab-compare")
        assert "too few pairs to test" in compare and "\u2713 significant" not in compare
        assert view.page.locator("#tab-compare tr.significant").count() == 0
        assert view.errors == []
