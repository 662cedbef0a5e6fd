"""Citations from the command line: markers in the answer (default and --citation-pattern), the citations field,
and bad input or options refused with exit 2, naming the file, line and field or the option."""
from __future__ import annotations

import json
import subprocess
import sys

CONTEXTS = [{"id": "ferry#1", "text": "The ferry crossing takes 55 minutes."},
            {"id": "bins#1", "text": "Bins are emptied on Mondays in Port Ansel."}]


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def results(out) -> dict:
    return {json.loads(line)["id"]: json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()}


def test_markers_pattern_and_field_from_the_cli(tmp_path):
    rows = [{"id": "marked", "answer": "The ferry crossing takes 55 minutes {{2}}. Bins are emptied on Mondays {{2}}.",
             "contexts": CONTEXTS},
            {"id": "field", "answer": "The ferry crossing takes 55 minutes. Bins are emptied on Mondays.",
             "contexts": CONTEXTS, "citations": [["ferry#1"], [2]]}]
    done = genevals("run", write(tmp_path / "in.jsonl", rows), "-m", "citations", "-o", str(tmp_path / "out"), "-q",
                    "--citation-pattern", r"\{\{(\d+)\}\}")
    assert done.returncode == 0, done.stderr
    got = results(tmp_path / "out")
    marked = got["marked"]["metrics"]
    # {{2}} on the ferry sentence points at the bins chunk: miscited; the bins sentence is supported by [2]
    assert marked["citation_recall"]["value"] == 0.5 and marked["miscited"]["value"] == 0.5
    verdicts = [s["verdict"] for s in marked["citation_recall"]["details"]["sentences"]]
    assert verdicts == ["miscited", "supported"]
    assert got["field"]["metrics"]["citation_recall"]["value"] == 1.0
    assert got["field"]["citations"] == [{"text": None, "contexts": ["ferry#1"]}, {"text": None, "contexts": ["2"]}]
    # without the pattern, {{2}} is no marker: no citations at all, said so (a run that scores nothing fails),
    # never a 0
    done = genevals("run", write(tmp_path / "in.jsonl", rows[:1]), "-m", "citations", "-o", str(tmp_path / "o2"), "-q")
    assert done.returncode != 0 and "citations scored no sample (unscored: no_citations 1)" in done.stderr
    assert results(tmp_path / "o2")["marked"]["metrics"]["citation_recall"]["status"] == "no_citations"


def test_bad_citations_field_and_pattern_exit_2(tmp_path):
    bad = [{"id": "a", "answer": "x y z.", "contexts": CONTEXTS, "citations": [[1.5]]}]
    done = genevals("run", write(tmp_path / "bad.jsonl", bad), "-m", "citations", "-o", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "bad.jsonl:1: field 'citations[0][0]': expected a context id or 1-based position" in done.stderr
    assert "Traceback" not in done.stderr
    done = genevals("run", write(tmp_path / "ok.jsonl", bad[:0] + [{"answer": "x"}]), "-m", "citations",
                    "--citation-pattern", "([", "-o", str(tmp_path / "o"))
    assert done.returncode == 2 and "--citation-pattern: citation pattern '([' is not a regular expression" in done.stderr
