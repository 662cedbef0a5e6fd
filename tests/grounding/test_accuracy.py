"""The offline detector's accuracy figure: stored once (out-of-fold, with its baseline), recomputable from the
stored out-of-fold predictions, on folds grouped by source."""
from __future__ import annotations

import json

import numpy as np
import pytest

from genevals.grounding import accuracy, detector


def flat(value, prefix: str = "") -> dict:
    """{"a.b.0": leaf} for nested dicts and lists (pytest.approx compares flat mappings only)."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in flat(item, f"{prefix}{key}.").items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in flat(item, f"{prefix}{i}.").items()}
    return {prefix: value}


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(detector.WEIGHTS_PATH.read_text(encoding="utf-8"))


def test_f1_and_tie_on_a_small_example():
    # two sources; judge: TP 2, FP 1, FN 1 -> F1 4/6; baseline: TP 1, FP 0, FN 2 -> F1 2/4
    gold = np.array([1, 1, 1, 0, 0], bool)
    judge = np.array([1, 1, 0, 1, 0], bool)
    baseline = np.array([1, 0, 0, 0, 0], bool)
    out = accuracy.compare(gold, np.array(["a", "a", "b", "b", "b"]), judge, baseline, seed=0, resamples=200)
    assert out["detector"]["f1"] == pytest.approx(4 / 6) and out["word_overlap"]["f1"] == pytest.approx(0.5)
    assert out["difference"]["diff"] == pytest.approx(4 / 6 - 0.5)
    assert (out["n"], out["sources"]) == (5, 2)
    lo, hi = out["difference"]["ci95"]
    assert out["tie"] == (lo <= 0 <= hi)
    assert accuracy.f1_counts(0, 3, 4) == 0.0  # no true positive: 0, not NaN


def test_stored_figure_is_recomputed_from_the_stored_out_of_fold_predictions(record):
    cv = record["scores"]["cross_validated"]
    assert flat(cv["headline"]) == pytest.approx(flat(accuracy.recompute(cv)))
    # and it is the same measurement as the training script's own table (its paired bootstrap included)
    judges = cv["judges"]
    assert cv["headline"]["detector"]["f1"] == pytest.approx(judges["detector"]["f1"])
    assert cv["headline"]["word_overlap"]["f1"] == pytest.approx(judges["word_overlap"]["f1"])
    paired = judges["detector"]["f1_minus_word_overlap"]
    assert cv["headline"]["difference"] == pytest.approx({"diff": paired["diff"], "ci95": paired["ci95"]})
    assert cv["headline"]["n"] == record["scores"]["rows"] == len(cv["oof"]["gold"])


def test_the_folds_are_grouped_by_source_and_reproducible(record):
    cv = record["scores"]["cross_validated"]
    oof = cv["oof"]
    source, fold = np.array(oof["source"]), np.array([int(f) for f in oof["fold"]])
    assert cv["grouped_by"] == "source_id" and set(fold.tolist()) == set(range(cv["folds"]))
    for s in set(source.tolist()):  # no source has answers in two folds
        assert len(set(fold[source == s].tolist())) == 1
    # the training script's assignment: sorted sources, shuffled with the seed, dealt round-robin
    order = sorted(set(source.tolist()))
    np.random.default_rng(cv["seed"]).shuffle(order)
    fold_of = {g: i % cv["folds"] for i, g in enumerate(order)}
    assert [fold_of[g] for g in source.tolist()] == fold.tolist()


def test_the_stored_out_of_fold_labels_are_the_dataset_s(record, shared_dir):
    rows = [json.loads(line) for line in (shared_dir / "datasets" / "ragtruth_dev.jsonl").read_text().splitlines()
            if line.strip()]
    oof = record["scores"]["cross_validated"]["oof"]
    assert oof["gold"] == "".join("1" if r["hallucinated"] else "0" for r in rows)
    names = sorted({str(r["source_id"]) for r in rows})
    assert oof["source"] == [names.index(str(r["source_id"])) for r in rows]
    assert oof["task"] == [r["task_type"] for r in rows]
