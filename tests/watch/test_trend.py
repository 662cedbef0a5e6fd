"""The trend page over window folders made by real ``genevals run`` runs (token F1 on small JSONL files), opened
in real headless Chromium: no console error, every number shown is summary.json's; the drift interval against
scipy's bootstrap on the same values, and worked by hand where it can be."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats
from support.cli import genevals, write_jsonl
from support.report_page import report_page

from genevals.output.runfolder import iter_rows
from genevals.watch.trend import TrendConfig, _flag, drift, write, write_trend

pytestmark = pytest.mark.slow  # four real runs, and Chromium

REF = "the cat sat on the mat"


def rows(exact: int, total: int) -> list[dict]:
    """``exact`` answers equal to the reference (token F1 1), the rest sharing no token with it (0)."""
    return [{"id": f"q{i}", "answer": REF if i < exact else "a dog ran", "references": [REF]} for i in range(total)]


#: window -> (exact, total): means 0.5, 0.5, 0.95 and one value (too few to compare); 0005 is left unfinished
WINDOWS = {"0001": (10, 20), "0002": (10, 20), "0003": (19, 20), "0004": (1, 1)}


@pytest.fixture(scope="module")
def watch(tmp_path_factory):
    where = tmp_path_factory.mktemp("watch")
    for name, (exact, total) in WINDOWS.items():
        done = genevals("run", write_jsonl(where / f"{name}.jsonl", rows(exact, total)), "-o",
                        where / "windows" / name, "-m", "token_f1", "-q")
        assert done.returncode == 0, done.stderr
    (where / "windows" / "0005").mkdir()  # a window still being scored: no summary.json
    return where


def values(watch, name: str) -> list[float]:
    return [r["metrics"]["token_f1"]["value"] for _, r in iter_rows(watch / "windows" / name)]


def test_drift_by_hand():
    d = drift([0.25] * 5, [0.75] * 8)  # every resample of a constant sample has its mean
    assert (d.status, d.difference, d.ci, d.n_window, d.n_baseline, d.drifted) == ("ok", 0.5, (0.5, 0.5), 8, 5, True)
    too_few = drift([0.1, 0.2], [0.3], min_samples=2)
    assert (too_few.status, too_few.ci, too_few.difference) == ("too_few", None, None)
    assert too_few.reason == "1 scored values in the window and 2 in the baseline; each needs 2"


def scipy_interval(window, baseline, resamples=20_000):
    res = stats.bootstrap((np.asarray(window), np.asarray(baseline)),
                          lambda w, b, axis: w.mean(axis=axis) - b.mean(axis=axis), vectorized=True, paired=False,
                          n_resamples=resamples, method="percentile", confidence_level=0.95,
                          rng=np.random.default_rng(7))
    return res.confidence_interval.low, res.confidence_interval.high


def test_drift_against_scipys_bootstrap_on_known_data():
    """Two normal samples 0.5 apart (n 300 and 200): the interval is scipy's percentile bootstrap of the difference
    in means, within Monte-Carlo error (1,000 resamples against scipy's 20,000), and excludes 0."""
    gen = np.random.default_rng(2026)
    baseline, window = gen.normal(0.5, 1.0, 300), gen.normal(1.0, 1.0, 200)
    d = drift(baseline, window)
    low, high = scipy_interval(window, baseline)
    assert d.difference == pytest.approx(window.mean() - baseline.mean())
    assert d.ci[0] == pytest.approx(low, abs=0.03) and d.ci[1] == pytest.approx(high, abs=0.03)
    assert d.drifted
    same = drift(baseline, gen.normal(0.5, 1.0, 200))
    assert not same.drifted


def test_drift_of_real_windows_against_scipy(watch):
    base, shifted = values(watch, "0001"), values(watch, "0003")
    assert (sum(base), len(base), sum(shifted), len(shifted)) == (10, 20, 19, 20)
    d = drift(base, shifted)
    low, high = scipy_interval(shifted, base)
    assert d.difference == pytest.approx(0.45)
    # differences of means of 20 zeros-and-ones lie on a 0.05 grid: one step apart at most
    assert abs(d.ci[0] - low) <= 0.05 + 1e-9 and abs(d.ci[1] - high) <= 0.05 + 1e-9
    assert d.drifted and not drift(base, values(watch, "0002")).drifted


def test_flag_rule_by_hand():
    config = TrendConfig()
    assert _flag({"faithfulness": {"status": "ok", "value": 0.4}}, config) is True
    assert _flag({"faithfulness": {"status": "ok", "value": 0.5}}, config) is False  # below 0.5, not at it
    assert _flag({"grounding": {"status": "ok", "value": 1.0, "details": {"counts": {"contradicted": 0,
                                                                                     "unverifiable": 1}}}}, config)
    assert _flag({"grounding": {"status": "ok", "value": 1.0, "details": {"counts": {"supported": 3}}}}, config) \
        is False
    assert _flag({"faithfulness": {"status": "judge_error", "reason": "x"}}, config) is None  # no verdict to read
    assert _flag({"token_f1": {"status": "ok", "value": 0.0}}, config) is None


def test_the_page_in_chromium_shows_summary_jsons_numbers(watch, browser):
    page_path = write_trend(watch, TrendConfig(flag_metric="token_f1", flag_below=0.5))
    assert page_path == watch / "trend.html"
    with report_page(browser, page_path) as view:
        page = view.page
        assert page.text_content("#baseline") == "0001"
        assert "0005" in page.text_content("#unfinished")
        table = page.locator('table.metric[data-system="default"][data-metric="token_f1"]')
        shown = table.locator("tr[data-window]")
        assert shown.count() == 4
        for i, name in enumerate(WINDOWS):
            row = shown.nth(i)
            entry = json.loads((watch / "windows" / name / "summary.json").read_text())["systems"]["default"]["token_f1"]
            assert row.get_attribute("data-window") == name
            mean = row.locator("td.mean")
            assert mean.text_content() == f"{entry['mean']:.3f}" and float(mean.get_attribute("data-value")) == entry["mean"]
            ci = row.locator("td.ci")
            assert ci.text_content() == f"[{entry['ci95'][0]:.3f}, {entry['ci95'][1]:.3f}]"
            assert [float(ci.get_attribute(a)) for a in ("data-low", "data-high")] == entry["ci95"]
            assert row.locator("td.scored").text_content() == str(entry["scored"])
        diffs = [shown.nth(i).locator("td.diff") for i in range(4)]
        assert [d.get_attribute("data-status") for d in diffs] == ["baseline", "ok", "ok", "too_few"]
        assert [d.get_attribute("data-drift") for d in diffs] == ["false", "false", "true", "false"]
        assert float(diffs[2].get_attribute("data-value")) == pytest.approx(0.45)
        assert diffs[2].text_content().startswith("+0.450 [") and diffs[2].text_content().endswith("drift")
        flagged = page.locator("#flagged tr[data-window]")
        assert [flagged.nth(i).locator("td.share").text_content() for i in range(4)] == \
            ["0.500", "0.500", "0.050", "0.000"]
        assert flagged.nth(2).locator("td.flagged").text_content() == "1"
        assert "percentile-bootstrap interval of the difference in means" in page.text_content("body")
        assert view.errors == []


def test_another_baseline_and_the_latest_windows_only(watch, browser):
    write_trend(watch, TrendConfig(baseline_window=3, last=2))
    with report_page(browser, watch / "trend.html") as view:
        assert view.page.text_content("#baseline") == "0003"
        rows_shown = view.page.locator("table.metric tr[data-window]")
        assert [rows_shown.nth(i).get_attribute("data-window") for i in range(rows_shown.count())] == ["0003", "0004"]
        flagged = view.page.locator("#flagged td.share")
        assert flagged.nth(0).text_content() == "no verdict to read"  # token F1 gives no flag by default
        assert view.errors == []
    with pytest.raises(ValueError, match="baseline window '0009'"):
        write_trend(watch, TrendConfig(baseline_window="0009"))
    assert write(watch, baseline_window=2) == watch / "trend.html"  # what the watch loop calls
    assert 'id=baseline>0002<' in (watch / "trend.html").read_text()


def test_a_window_that_cannot_be_read_is_listed_with_its_reason(watch, tmp_path, browser):
    import shutil

    copy = tmp_path / "watch"
    shutil.copytree(watch / "windows", copy / "windows")
    with open(copy / "windows" / "0002" / "results.jsonl", "a", encoding="utf-8") as out:
        out.write("not json\n{}\n")
    write_trend(copy)
    with report_page(browser, copy / "trend.html") as view:
        assert view.page.locator("table.metric tr[data-window]").count() == 3  # 0001, 0003, 0004
        reason = view.page.text_content("#unreadable")
        assert reason.startswith("0002: ") and "0002/results.jsonl:21: not a result: not JSON" in reason
        assert view.errors == []


def test_unscored_answers_are_counted_by_status_beside_the_scored():
    from genevals.watch.trend import _unscored

    assert _unscored({"scored": 3, "statuses": {"ok": 3, "no_reference": 2, "judge_error": 1}}) == \
        " <span class=muted>(judge_error 1, no_reference 2)</span>"
    assert _unscored({"scored": 3, "statuses": {"ok": 3}}) == _unscored({}) == ""
