"""Issue 34, points 3 and 11, through `genevals run` in a real process: a catastrophic --citation-pattern ends
quickly, 40k markers take seconds (not minutes), "²" and 5,000-digit numbers are statuses that say why, and a
pattern RE2 cannot run is refused before scoring, naming the option."""
from __future__ import annotations

import json
import subprocess
import sys

CONTEXTS = [{"id": "c1", "text": "Paris is the capital and largest city of France."},
            {"id": "c2", "text": "Lyon is a large city in France."}]


def genevals(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True,
                          timeout=timeout)


def run(tmp_path, rows, *extra, timeout=120):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"contexts": CONTEXTS, **r}) + "\n" for r in rows))
    out = tmp_path / "out"
    done = genevals("run", str(path), "-m", "citations_local", "-o", str(out), "-q", *extra, timeout=timeout)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = (out / "results.jsonl").read_text().splitlines() if (out / "results.jsonl").exists() else []
    return done, {json.loads(x)["id"]: json.loads(x)["metrics"]["citation_recall"] for x in lines}


def test_the_issues_catastrophic_pattern_ends_in_seconds(tmp_path):
    rows = [{"id": "short", "answer": "[see " + "word " * 79 + "!"},  # 400 characters: past 90 s with Python's re
            {"id": "long", "answer": "[see " + "word " * 200_000 + "!"}]
    done, got = run(tmp_path, rows, "--citation-pattern", r"\[see ((?:\w+\s?)+)\]", timeout=60)
    assert done.returncode == 1 and {m["status"] for m in got.values()} == {"no_citations"}


def test_40k_markers_take_seconds(tmp_path):
    done, got = run(tmp_path, [{"id": "many", "answer": "Word [1]. " * 40_000}], timeout=90)
    assert done.returncode == 1 and got["many"]["status"] == "no_claims"  # "Word." is no factual sentence


def test_non_ascii_and_huge_numbers_are_statuses_that_say_why(tmp_path):
    rows = [{"id": "superscript", "answer": "Paris is the capital of France [²]."},
            {"id": "caret", "answer": "Paris is the capital of France ^" + "9" * 5000 + "."},
            {"id": "field", "answer": "Paris is the capital of France.", "citations": [["²"]]}]
    done, got = run(tmp_path, rows)
    assert done.returncode == 1
    assert got["superscript"]["status"] == "no_citations"  # "[²]" is text, not a marker
    assert got["caret"]["status"] == "citation_out_of_range"
    assert "(a 5,000-digit number)" in got["caret"]["reason"] and len(got["caret"]["reason"]) < 400
    assert got["field"]["status"] == "citation_out_of_range"
    assert got["field"]["reason"].startswith("field 'citations': ")
    assert "'²' (not a number: positions are written in ASCII digits 0-9)" in got["field"]["reason"]


def test_patterns_re2_cannot_run_are_refused_naming_the_option(tmp_path):
    for pattern, why in (("(" * 5000 + "a" + ")" * 5000, "at most 1,000 characters"),
                         (r"(\d)\1", "no backreferences"), (r"\[(?=\d)(\d+)\]", "no lookaround")):
        done = genevals("run", "nosuch.jsonl", "-m", "citations_local", "-o", str(tmp_path / "o"),
                        "--citation-pattern", pattern)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
        assert "error: --citation-pattern: citation pattern" in done.stderr and why in done.stderr
        assert len(done.stderr) < 1000  # the pattern is quoted cut, not whole


def test_the_signature_names_the_custom_pattern_by_its_hash():
    from genevals.metrics.citations.local import markers_setting

    one, other = markers_setting(r"\[see (\d+)\]"), markers_setting(r"\[cf (\d+)\]")
    assert markers_setting(None) == "default" and one.startswith("re2-") and one != other
    assert one == markers_setting(r"\[see (\d+)\]")
