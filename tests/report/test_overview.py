"""The Overview's first screen is the answer (issue 37), in real headless Chromium at 1400x900: the sentence, the
leaderboard with every system's headline values, the best per column and each significant paired difference
against the best marked with its p-value, read from the text the first viewport shows; caveats one line each
that expand; metadata and signatures in the Details tab; no glyph the page's fonts cannot draw."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.runs import TINY_WARNING, add_judge, embedded, make_run

from genevals.report import render, write_report

VIEWPORT = {"width": 1400, "height": 900}
ROOT = Path(__file__).resolve().parents[2]
#: The README's demo command: the demo file, every cheap metric and the offline RAG judges.
DEMO_COMMAND = ["run", str(ROOT / "datasets" / "demo" / "demo.jsonl"), "--metrics",
                "all,context_relevance,answer_relevance,answer_correctness"]

#: The text of every text node with a box inside the viewport, in document order ("the first screen").
FIRST_SCREEN = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const text = node.textContent.trim();
    if (!text || getComputedStyle(node.parentElement).visibility === 'hidden') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const inside = Array.from(range.getClientRects()).some(r => r.width > 0 && r.height > 0 &&
      r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth);
    if (inside) out.push(text);
  }
  return out.join('\\n');
}"""

#: Characters that draw the same pixels as a private-use character (no font has it) are drawn as an empty box.
TOFU = """(chars) => {
  const canvas = document.createElement('canvas');
  canvas.width = 48; canvas.height = 48;
  const g = canvas.getContext('2d');
  const font = '28px ' + getComputedStyle(document.documentElement).fontFamily;
  function pixels(ch) {
    g.clearRect(0, 0, 48, 48); g.font = font; g.fillText(ch, 6, 36);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(',');
  }
  const missing = pixels('\\uE000');
  return chars.filter(ch => pixels(ch) === missing);
}"""


@contextmanager
def opened(browser, path: Path):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    try:
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("html[data-ready=true]", timeout=15_000)
        yield page, errors
    finally:
        context.close()


def planted_rows(n: int = 40) -> list[dict]:
    """Three systems over the same questions: "strong" answers with the reference, "middle" with half of it
    and filler, "weak" with unrelated words, so token F1 separates them with p < 0.001."""
    rows = []
    for i in range(n):
        reference = f"the lighthouse number {i} stands on the northern cape of wrenholm island"
        words = reference.split()
        answers = {"strong": reference, "middle": " ".join(words[: len(words) // 2] + ["perhaps", "somewhere"]),
                   "weak": f"no idea about item {i} sorry"}
        rows += [{"id": f"q{i}", "system": s, "question": f"Where is lighthouse {i}?", "answer": a,
                  "references": [reference]} for s, a in answers.items()]
    return rows


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("overview")
    # the README's demo, as a user runs it: a real process writing the run folder and its report.html
    env = dict(os.environ, GENEVALS_HISTORY=str(root / "history.sqlite"), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-m", "genevals", *DEMO_COMMAND, "--out", str(root / "readme"), "-q"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    demo = make_run(root / "demo")
    planted = make_run(root / "planted", planted_rows())
    single = add_judge(make_run(root / "single", [r for r in planted_rows(12) if r["system"] == "strong"]),
                       warning=TINY_WARNING)
    return {"readme": root / "readme" / "report.html", "demo": write_report([demo], root / "demo.html"), "planted": write_report([planted], root / "planted.html"),
            "single": write_report([single], root / "single.html")}


def _fmt(v: float) -> str:
    return f"{v:.3f}"


def _marks(lb: dict) -> list[str]:
    """The mark each significant difference against the best gets on the page."""
    out = []
    for t in lb["versus_best"]:
        if t["significant"]:
            d = -t["mean_difference"]
            p = "< 0.001" if t["p_value"] < 0.001 else f"= {t['p_value']:.3f}"
            out.append(f"{'+' if d > 0 else chr(0x2212)}{abs(d):.3f} vs {t['best']}, p {p}")
    return out


@pytest.mark.parametrize("name", ["readme", "demo", "planted"])
def test_first_screen_shows_every_systems_headline_values_and_significant_differences(browser, pages, name):
    data = embedded(pages[name].read_text(encoding="utf-8"))
    lb = data["leaderboard"]
    assert len(lb["rows"]) == 3 and lb["metrics"]
    marks = _marks(lb)
    assert marks, "the fixture must hold a significant difference to show"
    with opened(browser, pages[name]) as (page, errors):
        screen = page.evaluate(FIRST_SCREEN)
        assert lb["sentence"] in screen
        for row in lb["rows"]:
            assert row["system"] in screen
            for metric in lb["metrics"]:
                assert metric in screen
                value = row["values"][metric]
                if value["mean"] is not None:
                    assert _fmt(value["mean"]) in screen, (row["system"], metric)
        for mark in marks:
            assert mark in screen, mark
        # each column with a single best marks it, in the best system's cell
        for metric, best in lb["best"].items():
            if best is not None:
                cell = page.locator(f"#leaderboard tr[data-system='{best}'] td[data-metric='{metric}']")
                assert "best" in cell.inner_text() and "best" in cell.get_attribute("class")
        # the page does not scroll sideways, and metadata and signatures are not on the Overview
        assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
        overview = page.inner_text("#tab-overview")
        assert "signatures" not in overview.lower() and "Bootstrap seed" not in overview
        page.click("button[data-tab=details]")
        details = page.inner_text("#tab-details")
        assert "signatures" in details.lower() and "Bootstrap seed" in details and "Judge" in details
        assert errors == []


def test_planted_run_names_the_leader_in_its_sentence(pages):
    lb = embedded(pages["planted"].read_text(encoding="utf-8"))["leaderboard"]
    assert lb["best"]["token_f1"] == "strong"
    assert "strong leads token_f1" in lb["sentence"] and "p < 0.001" in lb["sentence"]


def test_systems_side_by_side_in_one_table(browser, pages):
    """One table, a column group per system, a row per metric; never one table per system."""
    with opened(browser, pages["planted"]) as (page, errors):
        assert page.locator("#tab-overview table.overview-table").count() == 1
        heads = page.locator("#metrics-table th.system-head").all_inner_texts()
        labels = [s["label"] for s in embedded(pages["planted"].read_text(encoding="utf-8"))["systems"]]
        assert sorted(labels) == ["middle", "strong", "weak"]
        assert [h.split("\n")[0].strip() for h in heads] == labels
        row = page.locator("#metrics-table tr[data-metric=token_f1]")
        assert row.locator("td").count() == 1 + 3 * 3
        assert errors == []


def test_bands_that_disagree_are_explained_where_they_appear(browser, pages):
    """Every metric's row says what it measures; the widest disagreement of bands is explained above the table
    with both definitions (exact_match "Poor" beside recall "Excellent" in the demo)."""
    data = embedded(pages["demo"].read_text(encoding="utf-8"))
    definitions = {m["name"]: m["definition"] for m in data["metrics"] if m.get("definition")}
    assert "token_f1" in definitions and "recall@10" in definitions
    with opened(browser, pages["demo"]) as (page, errors):
        note = page.inner_text("#band-disagreement")
        named = [m for m in definitions if re.search(rf"\b{re.escape(m)} is (Excellent|Good|Moderate|Fair|Poor)", note)]
        assert len(named) == 2 and all(definitions[m] in note for m in named)
        assert "Excellent" in note and "Poor" in note
        row = page.locator("#metrics-table tr[data-metric='token_f1'] .definition")
        assert row.inner_text() == definitions["token_f1"]
        assert errors == []
    # the README's demo: the issue's own example, between two leaderboard metrics (read first, so preferred)
    with opened(browser, pages["readme"]) as (page, errors):
        note = page.inner_text("#band-disagreement")
        assert "answer_correctness is Excellent" in note and "context_relevance is Poor at 0.09" in note
        assert "share of the retrieved chunks judged relevant to the question" in note
        assert errors == []


def test_caveats_are_one_line_each_and_expand(browser, pages):
    with opened(browser, pages["single"]) as (page, errors):
        assert page.locator("#judge-warning details.caveat").count() == 2  # the tiny model's, invented claims
        caveat = page.locator("#judge-warning details.caveat", has_text=TINY_WARNING)
        summary = caveat.locator("summary")
        line = 14 * 1.5  # the page's font size, at a generous line height
        closed = summary.bounding_box()["height"]
        assert closed < 2 * line and TINY_WARNING in caveat.inner_text()
        leaderboard = page.locator("#leaderboard").bounding_box()
        assert page.locator("#caveats").bounding_box()["y"] > leaderboard["y"]  # below the answer, not above it
        page.set_viewport_size({"width": 700, "height": 900})  # the warning no longer fits one line
        narrow = summary.bounding_box()["height"]
        assert narrow < 2 * line
        summary.click()
        assert caveat.get_attribute("open") is not None and summary.bounding_box()["height"] > 1.5 * narrow
        assert errors == []


def test_single_system_leaderboard_has_no_comparison_marks(browser, pages):
    data = embedded(pages["single"].read_text(encoding="utf-8"))
    assert [r["system"] for r in data["leaderboard"]["rows"]] == ["strong"]
    with opened(browser, pages["single"]) as (page, errors):
        screen = page.evaluate(FIRST_SCREEN)
        assert data["leaderboard"]["sentence"] in screen and "strong" in screen
        assert page.locator("#leaderboard .sig-mark, #leaderboard .best-mark").count() == 0
        assert errors == []


def test_no_glyph_draws_as_an_empty_box(browser, pages):
    """U+24D8 (the "i" in a circle after unscored counts and "no band") has no glyph in Debian's Chromium fonts
    and drew an empty box: the page draws an SVG instead, and every other character it shows has a glyph."""
    script = "".join((render.HERE / name).read_text(encoding="utf-8") for name in render.JS_FILES)
    assert "\u24d8" not in script and "\\u24d8" not in script.lower()
    with opened(browser, pages["demo"]) as (page, errors):
        icons = page.locator("#metrics-table .info-icon")
        assert icons.count() > 0  # the demo has unscored samples (no contexts for some metrics, not_found ranks)
        box = icons.first.bounding_box()
        assert box["width"] > 0 and box["height"] > 0
        texts = page.inner_text("#tab-overview")
        page.click("button[data-tab=details]")
        texts += page.inner_text("#tab-details")
        shown = sorted({ch for ch in texts if ord(ch) > 127})
        assert "\u24d8" not in shown
        assert page.evaluate(TOFU, shown + ["\u24d8"]) == ["\u24d8"]  # the check sees U+24D8 as a box
        assert errors == []


def test_page_data_carries_the_leaderboard_of_the_compare_tabs_figures(pages):
    """The leaderboard's differences are the Compare tab's (same paired bootstrap, same seed)."""
    data = embedded(pages["planted"].read_text(encoding="utf-8"))
    labels = [s["label"] for s in data["systems"]]
    compare = {(c["metric"], labels[c["a"]], labels[c["b"]]): c for c in data["comparisons"]}
    for t in data["leaderboard"]["versus_best"]:
        c = compare.get((t["metric"], t["best"], t["system"])) or compare[(t["metric"], t["system"], t["best"])]
        assert t["p_value"] == c["p_value"] and abs(abs(t["mean_difference"]) - abs(c["mean_difference"])) < 1e-9
    json.dumps(data["leaderboard"])
