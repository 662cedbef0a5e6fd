"""A system whose every answer is blank fails the run (exit 1), as the lexical metrics score a blank 0 with status
ok by their reference scripts' rule and would otherwise report a score of nothing: the test set `genevals generate`
writes leaves `answer` empty, and running it as it is was a run of 0.00s that passed. Some blank answers get a note
with their count; metrics that give a blank status ``empty_answer`` or never read the answer (retrieval) are not
counted. The same for rankings: retrieval scores a sample with labels and no contexts as an empty ranking (0, as
trec_eval does); every ranking empty is an error when retrieval was named, a note when a preset ran it. The counts
go through every summary path: in one process, in worker processes (merged parts), the columnar paths (TREC files,
JSONL contexts) and a written folder."""
import json
import os
import subprocess
import sys

import pytest
from support.generate_corpus import corpus

import genevals
from genevals.output.results import Results


def rows(answers, system="default"):
    return [{"id": f"q{i}", "system": system, "question": f"Where is item {i}?", "answer": answer,
             "references": [f"in room {i}"]} for i, answer in enumerate(answers)]


def cli(*args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=cwd, check=False)


def test_every_answer_blank_fails_and_names_the_metrics():
    results = genevals.evaluate(rows(["", "  \n"]), ["token_f1", "rouge"])
    assert results.summary()["empty_answers"] == {"default": {"empty": 2, "of": 2}}
    assert results.verdict.exit_code == 1
    (line,) = results.verdict.unscored
    assert line.startswith("every answer is empty (2 of 2): token_f1, rouge scored blanks")
    # the values stay as the reference script gives them: 0, ok
    assert [r.metrics["token_f1"].value for r in results] == [0.0, 0.0]


def test_some_blank_answers_get_a_note_and_pass():
    results = genevals.evaluate(rows(["", "in room 1", "room 2"]), ["token_f1"])
    assert results.verdict.exit_code == 0
    assert results.verdict.unscored == ()
    notes = [m for m in results.verdict.messages if "answers are empty" in m.text]
    assert [m.text for m in notes] == ["genevals: note: 1 of 3 answers are empty: token_f1 score each 0, as the "
                                       "reference scripts do"]
    assert results.summary()["empty_answers"] == {"default": {"empty": 1, "of": 3}}


def test_no_blank_answer_adds_nothing():
    results = genevals.evaluate(rows(["in room 0", "room 1"]), ["token_f1"])
    assert "empty_answers" not in results.summary()
    assert results.verdict.exit_code == 0


def test_only_the_blank_system_is_named():
    results = genevals.evaluate(rows(["", ""], "empty") + rows(["in room 0", "in room 1"], "full"), ["exact_match"])
    assert results.verdict.exit_code == 1
    assert results.verdict.unscored == (
        "every answer of system 'empty' is empty (2 of 2): exact_match scored blanks, nothing of the system; put its "
        "answers in `answer` (a set from `genevals generate` or `curate` leaves it empty)",)


def test_retrieval_reads_no_answer_and_passes():
    data = [{"id": f"q{i}", "question": "q", "answer": "", "contexts": [{"id": "d1", "text": "x"}],
             "relevant": ["d1"]} for i in range(3)]
    results = genevals.evaluate(data, ["retrieval"])
    assert results.verdict.exit_code == 0 and results.verdict.unscored == ()


def test_worker_processes_and_the_written_folder_count_the_same(tmp_path):
    data = rows([""] * 40 + ["in room"] * 10)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in data))
    done = cli("run", path, "-m", "token_f1", "--workers", "2", "--out", tmp_path / "run", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "40 of 50 answers are empty" not in done.stderr  # a note: -q keeps it out of the terminal
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["empty_answers"] == {"default": {"empty": 40, "of": 50}}
    assert Results.load(tmp_path / "run").summary()["empty_answers"] == {"default": {"empty": 40, "of": 50}}


def test_a_generated_set_run_as_it_is_exits_1(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(r) + "\n" for r in corpus()))
    made = cli("generate", docs, "--out", tmp_path / "set", "-n", "4", "--seed", "1", "-q", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    done = cli("run", tmp_path / "set" / "testset.jsonl", "--out", tmp_path / "run", "-q", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "genevals: error: every answer is empty (4 of 4): exact_match, token_f1, rouge, bleu scored blanks" \
        in done.stderr
    assert (tmp_path / "run" / "results.jsonl").exists()  # computed results are never lost


@pytest.mark.parametrize("answer", ["", " ", "\u3000\t"])
def test_what_counts_as_blank(answer):
    assert genevals.evaluate(rows([answer]), ["token_f1"]).verdict.exit_code == 1


def ranked(contexts_per_row):
    return [{"id": f"q{i}", "question": "q", "answer": "in room", "references": ["in room"],
             "contexts": [{"id": c, "text": c} for c in ids], "relevant": ["d1"]}
            for i, ids in enumerate(contexts_per_row)]


def test_every_ranking_empty_fails_when_retrieval_is_named_and_is_a_note_in_a_preset():
    named = genevals.evaluate(ranked([[], []]), ["token_f1", "recall@10"])
    assert named.summary()["empty_rankings"] == {"default": {"empty": 2, "of": 2}}
    assert named.verdict.exit_code == 1
    assert named.verdict.unscored == (
        "every ranking is empty (2 of 2): retrieval scored blanks, nothing of the system; put the chunks it "
        "retrieved in `contexts` (a set from `genevals generate` or `curate` leaves it empty)",)
    preset = genevals.evaluate(ranked([[], []]))
    assert preset.verdict.exit_code == 0
    assert any(m.text.startswith("genevals: note: every ranking is empty (2 of 2)") for m in preset.verdict.messages)


def test_some_empty_rankings_get_a_note():
    results = genevals.evaluate(ranked([[], ["d1"], ["d2", "d1"]]), ["retrieval"])
    assert results.verdict.exit_code == 0
    assert [m.text for m in results.verdict.messages if "rankings" in m.text] == [
        "genevals: note: 1 of 3 rankings are empty: retrieval score each as an empty ranking (0), as trec_eval does"]
    assert [r.metrics["recall@10"].value for r in results] == [0.0, 1.0, 1.0]


def test_the_columnar_paths_count_empty_rankings(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": f"q{i}", "question": "q", "answer": "a", "relevant": {"d1": 1},
                                        "contexts": [{"id": c} for c in ids]}) + "\n"
                            for i, ids in enumerate([[], ["d1"], [], ["d3", "d1"]])))
    done = cli("run", rows, "-m", "retrieval", "--out", tmp_path / "rows", "--no-history", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "rows" / "summary.json").read_text())
    assert summary["empty_rankings"] == {"default": {"empty": 2, "of": 4}}
    assert "2 of 4 rankings are empty" in done.stderr
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.trec"
    qrels.write_text("q0 0 d1 1\nq1 0 d2 1\n")
    run.write_text("q0 Q0 d1 1 2.0 sys\nq0 Q0 d9 2 1.0 sys\nq1 Q0 d9 1 1.0 sys\n")
    done = cli("run", "--qrels", qrels, "--run", run, "--out", tmp_path / "trec", "--no-history", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "trec" / "summary.json").read_text())
    assert "empty_rankings" not in summary and "empty_answers" not in summary
    assert "empty" not in done.stderr
