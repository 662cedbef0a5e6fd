"""The report's page embeds at most MAX_PAGE_CONTEXTS retrieved contexts with the detailed samples' texts (issue 34,
point 18): 2,000 TREC topics of 1,000 documents made a 132 MB page and a 1 GB report build. Past the bound the
remaining samples come without texts, as past --max-samples, and the Overview says which bound it was."""
import json
import os
import subprocess
import sys
from pathlib import Path

from support.report_page import report_page

from genevals.report.model import MAX_PAGE_CONTEXTS

DOCS = 5_000  # contexts per sample: MAX_PAGE_CONTEXTS / DOCS samples keep their texts
TOPICS = 60


def _page_data(html: str) -> dict:
    start = html.index('<script type="application/json"')
    start = html.index(">", start) + 1
    return json.loads(html[start:html.index("</script>", start)])


def test_long_retrieval_lists_are_embedded_within_the_context_budget(tmp_path, browser):
    with open(tmp_path / "run.jsonl", "w") as handle:
        for t in range(TOPICS):
            contexts = [{"id": f"d{i}", "text": ""} for i in range(DOCS)]
            handle.write(json.dumps({"id": f"t{t}", "answer": "", "contexts": contexts, "relevant": {"d3": 1}}) + "\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "GENEVALS_HISTORY": str(tmp_path / "h.sqlite")}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", "run.jsonl", "--out", "out", "-m", "retrieval",
                           "-q"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = tmp_path / "out" / "report.html"
    data = _page_data(report.read_text(encoding="utf-8"))
    coverage = data["coverage"]
    assert coverage["total"] == TOPICS and coverage["detailed"] == MAX_PAGE_CONTEXTS // DOCS
    assert coverage["max_contexts"] == MAX_PAGE_CONTEXTS
    detailed = [s for s in data["samples"] if not s.get("x")]
    assert sum(len(s["ctx"]) for s in detailed) == MAX_PAGE_CONTEXTS and len(data["samples"]) == TOPICS
    with report_page(browser, report) as view:
        note = view.page.inner_text("#coverage-note")
        assert f"Detailed samples: {MAX_PAGE_CONTEXTS // DOCS} of {TOPICS}" in note
        assert "200,000 retrieved contexts in all" in note
        assert not view.errors, view.errors
