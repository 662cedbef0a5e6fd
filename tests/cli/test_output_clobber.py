"""No command writes over what it reads (issue 52, point 15), in real ``genevals`` processes: ``label
--qrels-out`` naming its run, topics or docs file (by its name, a symbolic link, a hard link, ``..``), or whose
sidecar ``FILE.json`` is one of them, exits 2 naming the option and the file, and leaves it as it was; a
``FILE.json`` that genevals label did not write is refused, not replaced, while its own sidecar is rewritten by a
second run. ``report -o``, ``review export -o`` / ``--citations-out``, ``fuse -o`` and ``validate -o`` refuse an
output that is a file they read."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN = "q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n"
TOPICS = "q1\twhere does the ferry leave\n"
DOCS = (json.dumps({"id": "d1", "text": "The ferry leaves from the north pier."}) + "\n"
        + json.dumps({"id": "d2", "text": "The library opens at ten."}) + "\n")
ROW = ('{"id": "1", "question": "q", "answer": "Paris is in France.", "contexts": ["Paris is in France."], '
       '"references": ["Paris is in France."]}\n')


def genevals(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
           "HF_HUB_OFFLINE": "1", "GENEVALS_HISTORY": str(cwd / "history.sqlite")}
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=cwd)


@pytest.fixture
def inputs(tmp_path):
    files = {"run.trec": RUN, "topics.tsv": TOPICS, "docs.jsonl": DOCS}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path, files


def label(cwd: Path, out: str, docs: str = "docs.jsonl") -> subprocess.CompletedProcess:
    return genevals(cwd, "label", "run.trec", "--topics", "topics.tsv", "--docs", docs, "--offline", "--qrels-out", out)


def unchanged(folder: Path, files: dict[str, str]) -> bool:
    return all((folder / name).read_text(encoding="utf-8") == text for name, text in files.items())


@pytest.mark.parametrize("how", ["run", "topics", "docs", "symlink", "hardlink", "dotdot"])
def test_label_refuses_a_qrels_out_that_is_an_input(inputs, how):
    folder, files = inputs
    (folder / "sub").mkdir()
    out = {"run": "run.trec", "topics": "topics.tsv", "docs": "docs.jsonl", "symlink": "link.qrels",
           "hardlink": "hard.qrels", "dotdot": "sub/../docs.jsonl"}[how]
    if how == "symlink":
        (folder / "link.qrels").symlink_to("topics.tsv")
    if how == "hardlink":
        os.link(folder / "run.trec", folder / "hard.qrels")
    done = label(folder, out)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"--qrels-out {out}" in done.stderr and "is the same file as" in done.stderr
    assert unchanged(folder, files)
    assert not any(folder.glob("*.json")) and not any(folder.glob("*.part"))


def test_label_refuses_a_sidecar_that_is_an_input_or_not_its_own(inputs):
    folder, files = inputs
    (folder / "labels.json").write_text(DOCS, encoding="utf-8")  # a docs file named as the sidecar would be
    done = label(folder, "labels", docs="labels.json")
    assert done.returncode == 2 and "its sidecar labels.json is the same file as --docs labels.json" in done.stderr
    assert (folder / "labels.json").read_text(encoding="utf-8") == DOCS and not (folder / "labels").exists()
    mine = '{"notes": "my own file"}\n'
    (folder / "q.json").write_text(mine, encoding="utf-8")
    done = label(folder, "q")
    assert done.returncode == 2 and "q.json is there and is not a provenance file genevals label wrote" in done.stderr
    assert (folder / "q.json").read_text(encoding="utf-8") == mine and not (folder / "q").exists()
    assert unchanged(folder, files)


def test_label_rewrites_its_own_sidecar(inputs):
    folder, files = inputs
    for _ in range(2):
        done = label(folder, "judged.qrels")
        assert done.returncode == 0, done.stderr
    assert json.loads((folder / "judged.qrels.json").read_text(encoding="utf-8"))["tool"] == "genevals label"
    assert unchanged(folder, files) and not list(folder.glob("*.part")) and not list(folder.glob(".*.part"))


def test_other_commands_refuse_to_write_over_what_they_read(tmp_path):
    (tmp_path / "in.jsonl").write_text(ROW, encoding="utf-8")
    (tmp_path / "run.trec").write_text(RUN, encoding="utf-8")
    done = genevals(tmp_path, "run", "in.jsonl", "-o", "out", "--metrics", "exact_match", "--no-history")
    assert done.returncode == 0, done.stderr
    results = (tmp_path / "out" / "results.jsonl").read_bytes()
    summary = (tmp_path / "out" / "summary.json").read_bytes()
    for args, option in ((("report", "out", "-o", "out/results.jsonl"), "-o out/results.jsonl"),
                         (("review", "export", "out", "-o", "out/summary.json"), "-o out/summary.json"),
                         (("review", "export", "out", "-o", "l.jsonl", "--citations-out", "out/results.jsonl"),
                          "--citations-out out/results.jsonl"),
                         (("fuse", "run.trec", "run.trec", "-o", "run.trec"), "-o run.trec"),
                         (("validate", "out/results.jsonl", "-o", "out", "--judge", "local"), "--out out")):
        if args[0] == "validate":  # labels saved as the predictions.jsonl the validation writes
            (tmp_path / "out" / "predictions.jsonl").write_text(ROW, encoding="utf-8")
            args = ("validate", "out/predictions.jsonl", *args[2:])
        done = genevals(tmp_path, *args)
        assert done.returncode == 2 and option in done.stderr and "is the same file as" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert (tmp_path / "out" / "results.jsonl").read_bytes() == results
    assert (tmp_path / "out" / "summary.json").read_bytes() == summary
    assert (tmp_path / "run.trec").read_text(encoding="utf-8") == RUN
    assert (tmp_path / "out" / "predictions.jsonl").read_text(encoding="utf-8") == ROW
