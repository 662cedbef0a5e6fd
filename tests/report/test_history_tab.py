"""The report's Trends tab (``genevals report DIR --history``, issue 26) in real headless Chromium: two recorded
runs of one input, each headline metric drawn per system across them with its interval, and the same numbers
in the tab's table; no tab without --history."""
from __future__ import annotations

import json
import subprocess
import sys


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


def rows(n, wrong):
    return "".join(json.dumps({"id": f"q{i}", "answer": "nothing" if i < wrong else f"answer {i}",
                               "references": [f"answer {i}"], "system": system}) + "\n"
                   for system in ("dense", "sparse") for i in range(n))


class Opened:
    """A page on a report, recording console and page errors."""

    def __init__(self, browser, path):
        self.page = browser.new_page()
        self.errors = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-ready=true]", timeout=15_000)

    def tab(self, name):
        self.page.click(f"button[data-tab={name}]")
        self.page.wait_for_selector(f"#tab-{name}:not([hidden])")

    def assert_clean(self):
        assert self.errors == []

    def close(self):
        self.page.close()


def test_trends_tab_draws_each_headline_metric_across_runs(browser, tmp_path):
    history, data = tmp_path / "h.sqlite", tmp_path / "d.jsonl"
    for k, wrong in enumerate((0, 5)):
        data.write_text(rows(10, wrong))
        done = genevals("run", str(data), "-o", str(tmp_path / f"r{k}"), "-q", "-m", "token_f1", "--history",
                        str(history))
        assert done.returncode == 0, done.stderr
    assert genevals("report", str(tmp_path / "r1"), "-o", str(tmp_path / "plain.html")).returncode == 0
    done = genevals("report", str(tmp_path / "r1"), "--history", str(history), "-o", str(tmp_path / "t.html"))
    assert done.returncode == 0, done.stderr

    plain = Opened(browser, tmp_path / "plain.html")
    assert plain.page.query_selector("button[data-tab=trends]") is None
    plain.close()
    opened = Opened(browser, tmp_path / "t.html")
    opened.tab("trends")
    page = opened.page
    points = page.eval_on_selector_all(
        "#tab-trends .trend[data-metric=token_f1] circle.trend-point",
        "ps => ps.map(p => [p.dataset.system, p.dataset.run, Number(p.dataset.mean)])")
    assert sorted(points) == [["dense", "1", 1.0], ["dense", "2", 0.5], ["sparse", "1", 1.0], ["sparse", "2", 0.5]]
    cells = page.eval_on_selector_all("#tab-trends .trend[data-metric=token_f1] tbody tr",
                                      "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))")
    assert [row[0] for row in cells] == ["#1", "#2"]
    assert cells[1][3].startswith("0.5000 [") and cells[0][3] == "1.0000 [1.00, 1.00]"
    assert "2 runs of the history" in page.inner_text("#tab-trends")
    opened.assert_clean()
    opened.close()
