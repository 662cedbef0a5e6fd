""""Label relevance with a judge", "TREC runs, topics and documents": its two commands, run as written from a folder
holding the demo's runs as TREC files, its questions as topics.tsv and its chunks as docs.jsonl: the labels are
written with their provenance and the run on them says who made them."""
import json
import subprocess
import sys

from support.docs_blocks import DOCS, commands, section_blocks
from support.label_data import demo_trec


def test_the_label_example_runs_as_written(tmp_path):
    page = DOCS / "how-to" / "label-relevance.md"
    label, run = [words for code in section_blocks(page, "TREC runs, topics and documents", "bash")
                  for words in commands(code)]
    demo_trec(tmp_path, topics=30)
    done = [subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=tmp_path, capture_output=True,
                           text=True, timeout=600) for words in (label, run)]
    assert done[0].returncode == 0, done[0].stderr
    assert "grades come from the offline model" in " ".join(page.read_text().split())
    assert "no judge configured: grades come from the offline MiniLM model" in done[0].stderr
    header = (tmp_path / "judged.qrels").read_text().splitlines()[0]
    assert header.startswith("# genevals label judge=offline model=all-MiniLM-L6-v2 depth=10")
    assert done[1].returncode == 0, done[1].stderr
    meta = json.loads((tmp_path / "reports" / "judged" / "summary.json").read_text())["meta"]
    assert meta["qrels_judged_by"]["judge"] == "offline" and "not by people" in done[1].stderr


def test_the_shallow_pool_example_prints_the_warning_the_page_shows(tmp_path):
    """"Pool as deep as your cutoffs" (issue 52, point 4): its two commands, run as written, print the page's
    warning word for word."""
    page = DOCS / "how-to" / "label-relevance.md"
    label, run = [words for code in section_blocks(page, "Pool as deep as your cutoffs", "bash")
                  for words in commands(code)]
    [shown] = section_blocks(page, "Pool as deep as your cutoffs", "text")
    demo_trec(tmp_path, topics=30)
    done = [subprocess.run([sys.executable, "-m", "genevals", *words[1:], *extra], cwd=tmp_path, capture_output=True,
                           text=True, timeout=600) for words, extra in ((label, ()), (run, ("--no-history",)))]
    assert done[0].returncode == 0 and done[1].returncode == 0, done[0].stderr + done[1].stderr
    warning = next(line for line in done[1].stderr.splitlines() if line.startswith("genevals: warning: retrieval"))
    assert " ".join(shown.split()) == warning
    summary = json.loads((tmp_path / "reports" / "shallow" / "summary.json").read_text())
    assert summary["systems"]["dense"]["recall@4"]["mean"] == 1.0 and "1.0000 [1.00, 1.00]" in page.read_text()
