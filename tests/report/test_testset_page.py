"""The test set's page (report.html beside card.json) in real headless Chromium: every figure it shows is the
card's own (the path it names in card.json, to the 4 decimals shown), a not-measured figure shows the card's
status and reason, nothing is fetched, and hostile text from documents or the card is shown as text, never run.
``genevals report SET_DIR`` draws the same page again from card.json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import genevals, write_jsonl

pytestmark = pytest.mark.slow  # Chromium and real genevals processes

HOSTILE = "<script>alert('q')</script><img src=x onerror=alert('img')>"
WORDS = ("turbine", "gasket", "boiler", "ledger", "probe", "shaft", "rotor", "pump", "valve", "flange")


def corpus() -> list[dict]:
    """Ten documents of distinct words, the first holding HTML and script as text."""
    rows = []
    for d, word in enumerate(WORDS):
        text = (f"The {word} of station {d} was inspected in spring by the night crew. Every {word} reading "
                f"went into the ledger number {d + 3} with its pressure and its temperature.")
        rows.append({"id": f"doc{d}", "text": (HOSTILE + " " + text) if d == 0 else text})
    return rows


class Opened:
    """A page recording console errors, page errors, dialogs and any request that is not the file itself."""

    def __init__(self, browser, path: Path) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.remote: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("request", lambda r: None if r.url.startswith(("file://", "data:")) else self.remote.append(r.url))
        self.page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-ready=true]", timeout=15_000)

    def figures(self) -> list[dict]:
        return self.page.eval_on_selector_all("[data-path]", """els => els.map(e => ({
            path: JSON.parse(e.getAttribute('data-path')), text: e.textContent,
            status: e.getAttribute('data-status'), number: e.classList.contains('fig')}))""")


def at(card: dict, path: list):
    value = card
    for key in path:
        value = value[key]
    return value


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("set")
    docs = write_jsonl(root / "docs.jsonl", corpus())
    done = genevals("generate", docs, "--out", root / "set", "-n", 6, "--no-embeddings")
    assert done.returncode == 0, done.stderr
    return root / "set"


def test_every_figure_is_the_cards(browser, made):
    card = json.loads((made / "card.json").read_text(encoding="utf-8"))
    opened = Opened(browser, made / "report.html")
    try:
        shown = opened.figures()
        numbers = [f for f in shown if f["number"]]
        for f in numbers:
            value = at(card, f["path"])
            assert isinstance(value, (int, float)) and float(f["text"]) == pytest.approx(round(value, 4), abs=1e-9), f
        paths = {tuple(f["path"]) for f in numbers}
        bm25 = ("leakage", "bm25_rank_of_source_chunk")
        assert {("contract", "kept"), ("contract", "requested"), ("attempts",), ("requested", "known_item"),
                ("kept", "extractive"), ("coverage", "documents", "cited"), ("coverage", "documents", "n"),
                ("coverage", "chunks", "cited"), ("coverage", "chunks", "n"),
                ("diversity", "questions", "distinct_1", "value"), ("diversity", "questions", "distinct_1", "n"),
                ("diversity", "baseline_lead_8", "self_bleu", "value"),
                ("leakage", "question_chunk_rougeL", "mean"), ("leakage", "question_chunk_rougeL", "n"),
                bm25 + ("mrr",), bm25 + ("at_1",), bm25 + ("within_10",), bm25 + ("median_rank",), bm25 + ("n",),
                ("languages", "en"), ("cost_per_kept_item", "per_kept_item", "requests"),
                ("cost_per_kept_item", "per_kept_item", "n"),
                ("ranking_agreement", "kendall_tau_vs_human", "ndcg@10", "genevals_offline", "tau")} <= paths
        statuses = {tuple(f["path"]): f for f in shown if f["status"]}
        dense = statuses[("leakage", "dense_rank_of_source_chunk")]
        assert dense["status"] == "not_measured" and "--no-embeddings" in dense["text"]
        assert statuses[("answerable_without_context",)]["status"] == "not_measured"
        answer = opened.page.text_content("#ts-answer .ts-answer")
        assert answer == "kept 6 of 6 requested: contract met" and card["contract"]["met"] is True
        caveats = opened.page.text_content("#ts-caveats")
        assert all(line in caveats for line in card["not_good_for"])
        assert "offline: no judge call was made" in opened.page.text_content("#ts-cost")
        gates = opened.page.text_content("#ts-gates")
        assert card["gate_accuracy"]["says"] and all(line in gates for line in card["gate_accuracy"]["says"])
        assert opened.errors == [] and opened.dialogs == [] and opened.remote == []
    finally:
        opened.context.close()


def test_hostile_text_is_shown_as_text_and_the_page_is_drawn_again(browser, made, tmp_path):
    """Hostile strings planted in the card (an example's question, a type, a rejection's reason, the documents'
    name) and from the documents (the extractive references): shown verbatim, no script run, no element made."""
    card = json.loads((made / "card.json").read_text(encoding="utf-8"))
    assert HOSTILE in card["examples"]["kept"][0]["reference"]  # the first document's own text, extracted
    card["examples"]["kept"][0]["question"] = HOSTILE
    card["examples"]["rejected"] = [{"id": "g9", "type": HOSTILE, "question": "</script><script>alert(1)</script>",
                                     "rejection": "duplicate", "reason": HOSTILE}]
    card["requested"][HOSTILE] = 1
    card["documents"] = HOSTILE
    folder = tmp_path / "edited"
    folder.mkdir()
    (folder / "card.json").write_text(json.dumps(card), encoding="utf-8")
    done = genevals("report", folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {folder / 'report.html'}"
    opened = Opened(browser, folder / "report.html")
    try:
        page = opened.page
        assert page.eval_on_selector_all("#main script, #main img", "els => els.length") == 0
        assert page.eval_on_selector_all("body script", "els => els.length") == 2  # the card's JSON and the page's
        examples = page.text_content("#ts-examples")
        assert HOSTILE in examples and "</script><script>alert(1)</script>" in examples
        assert HOSTILE in page.text_content("#ts-types") and HOSTILE in page.text_content("#ts-source")
        assert HOSTILE in page.title()
        assert opened.errors == [] and opened.dialogs == [] and opened.remote == []
    finally:
        opened.context.close()


def test_a_contract_not_met_and_the_rejections_with_their_meanings(browser, made, tmp_path):
    card = json.loads((made / "card.json").read_text(encoding="utf-8"))
    card["contract"] = {"kept": 4, "requested": 6, "met": False}
    card["rejections"] = {"duplicate": 3, "wrong_language": 1}
    card["gate_meanings"] = {"duplicate": "DUP MEANING", "wrong_language": "LANG MEANING"}
    card["cost_per_kept_item"] = {  # what genevals.generate.cost writes for these counts (tests/generate/test_cost.py)
        "total": {"requests": 12, "cached_requests": 1, "prompt_tokens": 2000, "completion_tokens": 400,
                  "cost_usd": 0.012},
        "generator": {"requests": 5, "cached_requests": 1, "prompt_tokens": 1200, "completion_tokens": 300,
                      "cost_usd": 0.009},
        "gates": {"requests": 7, "cached_requests": 0, "prompt_tokens": 800, "completion_tokens": 100,
                  "cost_usd": 0.003},
        "per_kept_item": {"requests": 3.0, "cached_requests": 0.25, "prompt_tokens": 500.0,
                          "completion_tokens": 100.0, "cost_usd": 0.003, "n": 4}}
    folder = tmp_path / "short"
    folder.mkdir()
    (folder / "card.json").write_text(json.dumps(card), encoding="utf-8")
    assert genevals("report", folder).returncode == 0
    opened = Opened(browser, folder / "report.html")
    try:
        assert opened.page.text_content("#ts-answer .ts-answer") == "kept 4 of 6 requested: contract not met"
        rows = opened.page.eval_on_selector_all("#ts-rejections tbody tr",
                                                "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        assert rows == [["duplicate", "3", "DUP MEANING"], ["wrong_language", "1", "LANG MEANING"]]
        cost = opened.page.eval_on_selector_all("#ts-cost tbody tr",
                                                "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        assert cost == [["requests", "3", "12", "5", "7"], ["cached_requests", "0.25", "1", "1", "0"],
                        ["prompt_tokens", "500", "2000", "1200", "800"], ["completion_tokens", "100", "400", "300", "100"],
                        ["cost_usd", "0.003", "0.012", "0.009", "0.003"]]
        assert opened.errors == [] and opened.remote == []
    finally:
        opened.context.close()


def test_a_human_review_written_into_the_card_redraws_the_page(browser, made, tmp_path):
    """genevals review's card section (genevals.review.set_review.write_card) redraws report.html; the page shows
    the valid-item rate with its interval and n, and the rejected items' rate apart."""
    import shutil

    from genevals.review import set_review
    from genevals.review.testset import load_set

    folder = tmp_path / "reviewed"
    shutil.copytree(made, folder)
    before = (folder / "report.html").read_text(encoding="utf-8")
    section = {"status": "ok", "valid_item_rate": 2 / 3, "ci95": [0.2077, 0.9385], "n": 3, "valid": 2, "invalid": 1,
               "unsure": 2, "undecided": 1, "queue_size": 6, "items": 6, "seed": 1, "date": "2026-12-02",
               "invalid_reasons": {"not_answerable": 1},
               "rejected": {"rate": 1.0, "ci95": [0.2065, 1.0], "n": 1, "unsure": 0, "queue": 3, "items": 4}}
    set_review.write_card(load_set(folder), section)
    assert (folder / "report.html").read_text(encoding="utf-8") != before
    opened = Opened(browser, folder / "report.html")
    try:
        text = opened.page.text_content("#ts-review")
        assert "valid items: 0.6667 [0.2077, 0.9385] (n = 3)" in text
        assert "queue of 6 drawn from 6 kept items (seed 1, 2026-12-02)" in text
        assert "rejected items judged valid (what the gates threw away): 1 [0.2065, 1] (n = 1 of a queue of 3)" in text
        assert opened.errors == [] and opened.remote == []
    finally:
        opened.context.close()
    fresh = Opened(browser, made / "report.html")
    try:
        assert "no human review yet" in fresh.page.text_content("#ts-review")
    finally:
        fresh.context.close()


def test_the_page_is_drawn_again_byte_for_byte(made, tmp_path):
    again = tmp_path / "again.html"
    done = genevals("report", made, "-o", again)
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == (made / "report.html").read_bytes()


def test_a_broken_card_is_named_with_its_line(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "card.json").write_text('{\n  "requested": {"fact": 1},\n  "kept": NaN,\n', encoding="utf-8")
    done = genevals("report", folder)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{folder / 'card.json'}:" in done.stderr and not (folder / "report.html").exists()
    (folder / "card.json").write_text("[1, 2]\n", encoding="utf-8")
    done = genevals("report", folder)
    assert done.returncode == 2 and "not a test set's card" in done.stderr
    (folder / "card.json").write_text('{"requested": {}}', encoding="utf-8")
    done = genevals("report", folder, "--fail-under", "mrr=0.5")
    assert done.returncode == 2 and "apply to run folders" in done.stderr
