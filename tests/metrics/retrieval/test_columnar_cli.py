"""``genevals run --qrels Q --run A --run B`` (real processes): the columnar path writes the run folder the
per-sample path writes, byte for byte (results.jsonl, summary.json with its paired comparisons, the manifest),
except that a topic's line lists its top KEPT_CONTEXTS documents, and the summary says so;
and a file it cannot take (a comment line) still runs, through the line reader."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from genevals.engine.trec_columnar import CONTEXTS_NOTE, KEPT_CONTEXTS

ROOT = Path(__file__).resolve().parents[3]
PER_SAMPLE = ("import sys; import genevals.engine.trec_columnar as t; t.applies = lambda spec: False; "
              "from genevals.cli import main; sys.exit(main(sys.argv[1:]))")


def collection(folder: Path, topics: int = 60, depth: int = 40, seed: int = 3) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(seed)
    qrels = folder / "qrels.txt"
    runs = [folder / "bm25.txt", folder / "dense.txt"]
    with open(qrels, "w") as q:
        for t in range(topics - 1):  # the last topic has no judgements: unscored
            pool = rng.choice(200, 10, replace=False)
            q.write("".join(f"{t} 0 doc-{d} {g}\n" for d, g in zip(pool, rng.integers(0, 4, 10))))
    for path in runs:
        with open(path, "w") as r:
            for t in range(topics):
                docs = rng.choice(200, depth, replace=False)
                scores = np.round(rng.normal(size=depth), 1)  # ties: trec_eval's order by document id
                r.write("".join(f"{t}\tQ0\tdoc-{d}\t{i + 1}\t{float(s)!r}\trun\n"
                                for i, (d, s) in enumerate(zip(docs, scores))))
    return qrels, runs


def genevals(args: list[str], per_sample: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", PER_SAMPLE] if per_sample else [sys.executable, "-m", "genevals"]
    return subprocess.run(command + args, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})


def test_the_same_run_folder_as_the_per_sample_path(tmp_path: Path) -> None:
    qrels, runs = collection(tmp_path)
    args = ["run", "--qrels", str(qrels), *(a for r in runs for a in ("--run", str(r))), "--no-history", "-q",
            "--cutoffs", "1,5,10,20"]
    columnar = genevals(args + ["-o", str(tmp_path / "columnar")])
    assert columnar.returncode == 0, columnar.stderr
    per_sample = genevals(args + ["-o", str(tmp_path / "per_sample")], per_sample=True)
    assert per_sample.returncode == 0, per_sample.stderr
    for name in ("manifest.json", "outputs.json"):
        assert (tmp_path / "columnar" / name).read_bytes() == (tmp_path / "per_sample" / name).read_bytes(), name
    # results.jsonl: the same lines, byte for byte, but for the contexts: a topic's top KEPT_CONTEXTS (issue 40)
    ours = (tmp_path / "columnar" / "results.jsonl").read_text().splitlines()
    theirs = (tmp_path / "per_sample" / "results.jsonl").read_text().splitlines()
    assert len(ours) == len(theirs) == 120
    for line, other in zip(ours, theirs):
        row = json.loads(other)
        assert len(row["contexts"]) == 40
        row["contexts"] = row["contexts"][:KEPT_CONTEXTS]
        assert line == json.dumps(row)
    # summary.json: the same, and a note that says the contexts were cut (shown in the report)
    summary = json.loads((tmp_path / "columnar" / "summary.json").read_text())
    assert summary["meta"].pop("contexts_kept") == {"per_topic": KEPT_CONTEXTS, "note": CONTEXTS_NOTE}
    assert summary == json.loads((tmp_path / "per_sample" / "summary.json").read_text())
    assert CONTEXTS_NOTE in (tmp_path / "columnar" / "report.html").read_text()
    assert set(summary["systems"]) == {"bm25", "dense"}
    assert summary["comparisons"]  # the paired comparisons, from the columns held in memory
    assert (tmp_path / "columnar" / "report.html").stat().st_size > 0


def test_a_comment_line_goes_through_the_line_reader(tmp_path: Path) -> None:
    qrels, runs = collection(tmp_path, topics=5, depth=5)
    commented = tmp_path / "commented.txt"
    commented.write_text("# a header\n" + runs[0].read_text())
    done = genevals(["run", "--qrels", str(qrels), "--run", str(commented), "--no-history", "-q",
                     "-o", str(tmp_path / "out")])
    assert done.returncode == 2
    assert "commented.txt:1" in done.stderr and "Traceback" not in done.stderr


def test_the_table_and_the_leaderboard_are_printed(tmp_path: Path) -> None:
    qrels, runs = collection(tmp_path, topics=8, depth=10)
    done = genevals(["run", "--qrels", str(qrels), "--run", str(runs[0]), "--run", str(runs[1]), "--no-history",
                     "-o", str(tmp_path / "out")])
    assert done.returncode == 0, done.stderr
    assert "mrr" in done.stdout and "wrote" in done.stdout and "Traceback" not in done.stderr


def streamed(folder: Path, topics: int = 90, depth: int = 800, seed: int = 9) -> tuple[Path, Path]:
    """A space-separated run in rank order (read in blocks of topics: more lines than one block), with ties."""
    rng = np.random.default_rng(seed)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    with open(qrels, "w") as q, open(run, "w") as r:
        for t in range(topics):
            docs = rng.choice(10_000, depth, replace=False)
            q.write("".join(f"q{t} 0 d{d} {g}\n" for d, g in zip(rng.choice(docs, 8), rng.integers(0, 4, 8))))
            scores = -np.sort(-np.round(rng.normal(size=depth), 2))
            r.write("".join(f"q{t} Q0 d{d} {i + 1} {float(s)!r} run\n" for i, (d, s) in enumerate(zip(docs, scores))))
    return qrels, run


def values(folder: Path) -> list[tuple]:
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return [(r["id"], r["origin"], r["relevant"], r["metrics"], r["contexts"][:KEPT_CONTEXTS]) for r in rows]


@pytest.mark.parametrize("order", ["sorted", "topics apart"])
def test_a_run_read_in_blocks_or_whole_scores_as_the_per_sample_path(tmp_path: Path, order: str) -> None:
    """Issue 40: a run sorted by topic is streamed in blocks (memory flat in topics); one whose topics are not
    together is read whole and sorted. Either way every line is the per-sample path's."""
    from genevals.input.trec_blocks import STREAM_ROWS

    qrels, run = streamed(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    assert len(lines) > STREAM_ROWS
    if order != "sorted":
        run.write_text("".join(lines[1:] + lines[:1]))  # q0's best line last
    args = ["run", "--qrels", str(qrels), "--run", str(run), "--no-history", "-q", "--cutoffs", "1,10,100"]
    ours = genevals(args + ["-o", str(tmp_path / "columnar")])
    assert ours.returncode == 0, ours.stderr
    theirs = genevals(args + ["-o", str(tmp_path / "per_sample")], per_sample=True)
    assert theirs.returncode == 0, theirs.stderr
    assert values(tmp_path / "columnar") == values(tmp_path / "per_sample")


def test_a_bad_line_past_the_first_block_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    qrels, run = streamed(tmp_path, topics=70)
    n = len(run.read_text().splitlines())
    with open(run, "a") as handle:
        handle.write("q999 Q0 d1 1 1.5 run\nq999 Q0 d1 2 1.0 run\n")  # a document twice, in the last block
    done = genevals(["run", "--qrels", str(qrels), "--run", str(run), "--no-history", "-q",
                     "-o", str(tmp_path / "out")])
    assert done.returncode == 2, done.stderr
    assert f"run.txt:{n + 2}" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_retrieval_report_renders_and_says_the_contexts_were_cut(tmp_path: Path, browser) -> None:
    """Real Chromium: the columnar run's report loads with no console error, the Overview's caveats say that each
    topic lists its top KEPT_CONTEXTS documents, and the Samples tab shows a topic's contexts."""
    from support.report_page import report_page

    qrels, run = streamed(tmp_path, topics=30, depth=100)
    done = genevals(["run", "--qrels", str(qrels), "--run", str(run), "--no-history", "-q",
                     "-o", str(tmp_path / "out")])
    assert done.returncode == 0, done.stderr
    with report_page(browser, tmp_path / "out" / "report.html") as view:
        assert f"top {KEPT_CONTEXTS} retrieved documents" in view.page.inner_text("#judge-warning")
        for tab in ("samples", "compare"):
            view.tab(tab)
        assert not view.errors, view.errors
