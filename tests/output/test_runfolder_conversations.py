"""results.jsonl with one line per conversation (issue 38, point 6) reads as one record per turn for every consumer:
the readers' locators find a turn again, and the report, review, the agreement gate, `export otel`, `compare`,
Results.load and --resume read it as they read a folder of the earlier format (one line per turn), which still
reads too. Run folders are written by real `genevals` processes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.output import runfolder
from genevals.output.results import Results
from genevals.review.claims import load_samples
from genevals.validation.gate import from_rows
from support import conversation_runs as conv
from support.otlp_receiver import Receiver

REPO = Path(__file__).resolve().parents[2]
N, TURNS = 4, 3
METRICS = "token_f1,grounding"


def genevals(*args, expect: int = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == expect, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def per_turn_format(new: Path, old: Path) -> Path:
    """``new``'s folder as the earlier format writes it: one line per turn, each with its history written out."""
    shutil.copytree(new, old)
    turns = [t for _, t in runfolder.iter_rows(new)]
    (old / runfolder.RESULTS_FILE).write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")
    return old


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("conv-folder")
    data = conv.write(root / "chats.jsonl", N, TURNS)
    genevals("run", data, "-m", METRICS, "-o", root / "new", "--no-history", "-q")
    return data, root / "new", per_turn_format(root / "new", root / "old")


def test_one_line_per_conversation_reads_as_the_turns_with_locators(folders):
    _, new, old = folders
    assert len(conv.lines(new / runfolder.RESULTS_FILE)) == N
    rows_new, rows_old = list(runfolder.iter_rows(new)), list(runfolder.iter_rows(old))
    assert [n for n, _ in rows_new] == list(range(1, N * TURNS + 1))  # the old format's line numbers
    assert rows_new == rows_old
    wanted = {2: None, 6: None, 12: None}
    for folder, rows in ((new, rows_new), (old, rows_old)):
        found = dict(runfolder.read_lines(folder, wanted))
        assert found == {k: dict(rows)[k] for k in wanted}
    assert [r.to_dict() for r in runfolder.read_results(new)] == [r.to_dict() for r in runfolder.read_results(old)]
    assert [s.to_dict() for s in Results.load(new).samples] == [s.to_dict() for s in Results.load(old).samples]


def test_a_bad_conversation_line_is_named_by_its_line(tmp_path):
    path = tmp_path / runfolder.RESULTS_FILE
    path.write_text('{"id": "a", "answer": "x", "metrics": {}}\n{"conversation_id": "c", "system": "default", '
                    '"turns": 3}\n', encoding="utf-8")
    with pytest.raises(runfolder.ResultsError) as error:
        list(runfolder.iter_rows(path))
    assert error.value.line == 2 and "'turns' is not a list of result objects" in str(error.value)
    path.write_text('{"conversation_id": "c", "system": "default", "turns": [{"id": "c:1"}]}\n', encoding="utf-8")
    with pytest.raises(runfolder.ResultsError) as error:
        list(runfolder.read_results(path))
    assert str(error.value).startswith(f"{path}:1: not a result: not a result record (missing 'answer')")


def test_review_and_the_agreement_gate_read_each_turn(folders):
    _, new, old = folders
    samples = load_samples(new)
    assert samples == load_samples(old)  # the same turns, at the same locators
    assert sorted(s.line for s in samples.values()) == list(range(1, N * TURNS + 1))
    assert ("default", "conv3:3") in samples and samples[("default", "conv3:3")].claims
    judged = list(from_rows(row for _, row in runfolder.iter_rows(new)))
    assert sorted(j.id for j in judged) == sorted(f"conv{c}:{t}" for c in range(N) for t in range(1, TURNS + 1))


def test_report_compare_and_otel_read_the_new_format_and_the_old(folders, tmp_path):
    _, new, old = folders
    last = conv.conversation(N - 1, TURNS)["turns"][-1]["content"]
    for folder in (new, old):
        page = tmp_path / f"{folder.name}.html"
        genevals("report", folder, "-o", page)
        html = page.read_text(encoding="utf-8")
        assert f"conv{N - 1}:{TURNS}" in html and last in html
    compared = genevals("compare", old, new, "-m", "token_f1")
    assert "token_f1" in compared.stdout
    counts = {}
    for folder in (new, old):
        with Receiver() as receiver:
            genevals("export", "otel", folder, "--otel-endpoint", receiver.url)
            counts[folder.name] = sorted((e["attributes"]["genevals.sample.id"], e["attributes"]["gen_ai.evaluation.name"])
                                         for e in receiver.records)
    assert counts["new"] == counts["old"] and len({i for i, _ in counts["new"]}) == N * TURNS


def test_resume_an_old_format_folder_holding_half_a_conversation(folders, tmp_path):
    data, new, old = folders
    folder = per_turn_format(new, tmp_path / "half")
    results = folder / runfolder.RESULTS_FILE
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    results.write_text("".join(lines[:TURNS + 1]), encoding="utf-8")  # conv0 whole, conv1's first turn only
    genevals("run", data, "-m", METRICS, "-o", folder, "--no-history", "-q", "--resume")
    after = conv.lines(results)
    assert after[:TURNS + 1] == [json.loads(line) for line in lines[:TURNS + 1]]
    # the rest of conv1 is one line, then conv2 and conv3 whole
    assert [len(line["turns"]) for line in after[TURNS + 1:]] == [TURNS - 1, TURNS, TURNS]
    assert list(runfolder.iter_rows(folder)) == list(runfolder.iter_rows(new))
    summary, reference = (json.loads((d / "summary.json").read_text()) for d in (folder, new))
    assert summary["systems"] == reference["systems"]


def test_locators_agree_whatever_the_key_order_and_a_details_key_named_turns(tmp_path):
    one = {"id": "a", "answer": "x", "metrics": {"m": {"value": 1, "status": "ok", "details": {"turns": [1, 2]}}}}
    turn = lambda t: {"id": f"c:{t}", "answer": f"y{t}", "conversation_id": "c", "turn": t, "metrics": {}}  # noqa: E731
    path = tmp_path / runfolder.RESULTS_FILE
    path.write_text("".join(json.dumps(r) + "\n" for r in (
        one, {"turns": [turn(1), turn(2)], "system": "default", "conversation_id": "c"}, {**one, "id": "b"})),
        encoding="utf-8")
    rows = list(runfolder.iter_rows(path))
    assert [(n, r["id"]) for n, r in rows] == [(1, "a"), (2, "c:1"), (3, "c:2"), (4, "b")]
    assert list(runfolder.read_lines(path, {1: 0, 3: 0, 4: 0})) == [rows[0], rows[2], rows[3]]
