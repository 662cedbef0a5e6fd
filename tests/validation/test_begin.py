"""BEGIN's attribution labels in genevals validate: the reader (one-exchange conversations, located errors), the
agreement figures and baselines (AUC, out-of-fold overlap threshold, stratified subsample), and the CLI end to
end in a real process (the offline grounding checker); the development split where it is present."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from genevals.validation import begin_card
from genevals.validation.begin import files, is_begin, load_begin, to_sample
from genevals.validation.begin_report import stratified
from genevals.validation.labels import LabelledInputError

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "datasets" / "conversations"
HEADER = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label\n"
KNOWLEDGE = [
    "The Varnholt Bridge spans the river Elde near Grabow and was built in 1892 from red brick.",
    "Crayola began as an industrial pigment company and later made chalk, crayons and colored pencils.",
    "The lynx is a wild cat with tufted ears that lives in the forests of Europe and Asia.",
]
ROWS = [
    ("t5", "wow", KNOWLEDGE[0], "Have you seen old bridges?", "The Varnholt Bridge spans the river Elde near Grabow.",
     "Fully attributable"),
    ("gpt2", "wow", KNOWLEDGE[0], "Have you seen old bridges?", "The bridge was painted blue by Napoleon in 1950.",
     "Not fully attributable"),
    ("t5", "wow", KNOWLEDGE[1], "I love drawing.", "Crayola made chalk, crayons and colored pencils.",
     "Fully attributable"),
    ("ctrl", "wow", KNOWLEDGE[1], "I love drawing.", "Crayola was founded on the moon by astronauts in 2001.",
     "Not fully attributable"),
    ("doha", "wow", KNOWLEDGE[2], "Cats are great.", "That sounds fun!", "Generic"),
    ("t5", "wow", KNOWLEDGE[2], "Cats are great.", "The lynx is a wild cat with tufted ears.", "Fully attributable"),
    ("gpt2", "wow", KNOWLEDGE[2], "Cats are great.", "The lynx sings opera in Paris every winter.",
     "Not fully attributable"),
]


def write_begin(path: Path, rows=ROWS) -> Path:
    path.write_text(HEADER + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_rows_are_one_exchange_conversations(tmp_path):
    rows = load_begin(write_begin(tmp_path / "begin_dev_x.tsv"))
    assert [r["attributable"] for r in rows] == [True, False, True, False, None, True, False]
    sample = to_sample(rows[0])
    assert (sample.question, sample.answer) == ("Have you seen old bridges?", ROWS[0][4])
    assert [c.text for c in sample.contexts] == [KNOWLEDGE[0]]
    assert (sample.conversation_id, sample.turn, sample.history) == ("begin_dev_x:2", 1, ())
    # the responses of several models to one snippet are one bootstrap cluster
    assert rows[0]["group"] == rows[1]["group"] != rows[2]["group"]


def test_a_bad_label_is_named_with_its_line_and_field(tmp_path):
    rows = list(ROWS)
    rows[3] = rows[3][:5] + ("Not fuly attributable",)
    with pytest.raises(LabelledInputError) as err:
        load_begin(write_begin(tmp_path / "b.tsv", rows))
    assert "b.tsv:5: field 'begin_label'" in str(err.value) and "did you mean 'Not fully attributable'" in str(err.value)
    (tmp_path / "c.tsv").write_text(HEADER + "t5\twow\tk\tm\n", encoding="utf-8")
    with pytest.raises(LabelledInputError, match=r"c.tsv:2: expected 6 tab-separated fields, got 4"):
        load_begin(tmp_path / "c.tsv")


def test_begin_files_are_recognised_by_their_header(tmp_path):
    write_begin(tmp_path / "a.tsv")
    (tmp_path / "other.tsv").write_text("x\ty\n1\t2\n", encoding="utf-8")
    assert is_begin(tmp_path / "a.tsv") and not is_begin(tmp_path / "other.tsv")
    assert files(tmp_path) == [tmp_path / "a.tsv"]


def test_auc_is_the_mann_whitney_probability_with_ties_one_half():
    gold = np.array([True, True, False, False])
    assert begin_card.auc(np.array([0.9, 0.5, 0.5, 0.1]), gold) == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    assert begin_card.auc(np.array([0.1, 0.2]), np.array([True, True])) is None


def test_overlap_threshold_is_fitted_out_of_fold():
    # each group's overlap separates the classes the other way round from every other group's: a cut fitted on
    # the other folds must get its own fold wrong, where one fitted on all rows would look perfect
    rng = np.random.default_rng(0)
    groups = [f"g{i}" for i in range(40) for _ in range(2)]
    values = rng.uniform(size=80)
    gold = values < 0.5
    pred = begin_card.overlap_predictions(values, gold, groups)
    assert begin_card.balanced_accuracy(pred, gold) > 0.9  # a real signal survives cross-fitting
    # a fold's predictions never depend on its own labels: flip them all, and its predictions stay
    folds = begin_card._fold_of(groups)
    flipped = np.where(folds == 0, ~gold, gold)
    again = begin_card.overlap_predictions(values, flipped, groups)
    assert (again[folds == 0] == pred[folds == 0]).all() and (again[folds != 0] != pred[folds != 0]).any()
    assert begin_card.overlap("The lynx sings", "the lynx is a cat") == pytest.approx(0.5)
    assert begin_card.overlap("That is it!", "anything") == 1.0  # no content word: nothing unsupported


def test_stratified_subsample_keeps_each_labels_share():
    rows = [{"id": f"r{i}", "label": "A" if i % 4 else "B"} for i in range(400)]
    sub = stratified(rows, 100)
    assert len(sub) == 100 and sum(r["label"] == "B" for r in sub) == 25
    assert sub == stratified(list(reversed(rows)), 100)[::-1]  # the same rows whatever the order


def _validate(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "genevals", "validate", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env={**__import__("os").environ, "PYTHONPATH": str(ROOT),
                                                   "HF_HUB_OFFLINE": "1"}, timeout=600)


def test_validate_prints_the_card_and_writes_validation_json(tmp_path):
    out = tmp_path / "out"
    done = _validate(write_begin(tmp_path / "begin_dev_x.tsv"), "-o", out, "--resamples", "200")
    assert done.returncode == 0, done.stderr
    assert "BEGIN validation card: judge local" in done.stdout
    assert "word overlap" in done.stdout and "always majority" in done.stdout and "the judge is" in done.stdout
    report = json.loads((out / "validation.json").read_text())
    main = report["attributable_vs_not"]
    assert main["best_baseline"] in ("word_overlap", "majority")
    assert set(main["judge"]) == {"auc", "balanced_accuracy", "kappa", "ci95"}
    assert report["generic"]["rows"] == 1 and report["labels"]["Generic"] == 1
    assert len((out / "predictions.jsonl").read_text().splitlines()) == 7


def test_validate_refuses_a_bad_begin_file_with_exit_2(tmp_path):
    rows = list(ROWS)
    rows[1] = rows[1][:5] + ("Generik",)
    done = _validate(write_begin(tmp_path / "bad.tsv", rows), "-o", tmp_path / "out")
    assert done.returncode == 2 and "bad.tsv:3: field 'begin_label'" in done.stderr
    assert "did you mean 'Generic'" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not DEV.is_dir(), reason="BEGIN's development split is not in ../shared/datasets/conversations")
def test_the_development_split_reads_whole():
    rows = [r for path in files(DEV) for r in load_begin(path)]
    assert len(rows) == 1229 and {r["source"] for r in rows} == {"wow", "tc", "cmu"}
    assert sum(r["label"] == "Generic" for r in rows) == 81


def test_validate_refuses_options_a_begin_file_has_no_use_for(tmp_path):
    path = write_begin(tmp_path / "b.tsv")
    done = _validate(path, "-o", tmp_path / "out", "--task-type", "QA")
    assert done.returncode == 2 and "--task-type: a BEGIN file has no task types" in done.stderr
    done = _validate(path, "-o", tmp_path / "out", "--judge", "citations-local")
    assert done.returncode == 2 and "not citation labels" in done.stderr
