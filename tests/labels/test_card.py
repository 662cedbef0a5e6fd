"""The offline grader's card (genevals/labels/label_card.json, written by benchmarks/bench_judged_qrels.py --card)
is the landed grader's: computed from the model, calibration and data the package and ../shared hold now (their
digests), its grades those the landed grader gives (two pools regraded), every figure what the benchmark's
per-topic matrices give (computed again here), and said in words with the out-of-sample figures first."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from genevals.labels import card

REPO = Path(__file__).resolve().parents[2]
JSON = REPO / "benchmarks" / "judged_qrels.json"
REGENERATE = "regenerate it: HF_HUB_OFFLINE=1 python benchmarks/bench_judged_qrels.py --json benchmarks/judged_qrels.json --card"


def _benchmark(name: str):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


def test_the_card_was_computed_from_the_landed_model_calibration_and_data(shared_dir):
    assert card.PATH.is_file(), REGENERATE
    stale = card.stale(shared_dir / "datasets")
    assert not stale, f"the label card is stale ({'; '.join(stale)}): {REGENERATE}"


def test_the_landed_grader_gives_the_grades_the_card_was_made_with(shared_dir):
    """Two topics' pools graded again by genevals.labels.offline (what `genevals label --offline` runs): a change in
    the features' code that no digest sees still fails here."""
    from genevals.labels.offline import grade

    cran = shared_dir / "datasets" / "cranfield"
    check = card.card()["figures"]["check"]
    queries = dict(line.split("\t", 1) for line in (cran / "queries.tsv").read_text(encoding="utf-8").splitlines())
    docs = {}
    for line in (cran / "docs.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        docs[d["id"]] = d["text"]
    assert len(check) == 2 and all(len(pool) > 10 for pool in check.values())
    qrels, _ = grade({t: list(pool) for t, pool in check.items()}, queries, docs)
    assert qrels == check, REGENERATE


def test_every_figure_follows_from_the_benchmark_s_matrices():
    report = json.loads(JSON.read_text(encoding="utf-8"))
    shown = card.card()["figures"]
    assert report["card"] == shown, "benchmarks/judged_qrels.json and the card come from one run: " + REGENERATE
    make, bench = _benchmark("judged_qrels_card"), _benchmark("bench_judged_qrels")
    again = make.figures(make.matrices_of(report), report["random_taus"], report["systems"], bench.MINILM,
                         report["bootstrap"])
    for key, value in again.items():
        assert shown[key] == value, key
    assert shown["topics"] == 116 and shown["systems"] == 12 and shown["pool_depth"] == 10
    # the in-sample MAP tau is the landed grader's (issue 52: 0.849), not the 0.88 of the calibration before
    assert shown["in_sample"]["map"]["tau"] == report["agreement"]["offline"]["map"]["tau"]
    assert shown["out_of_sample"]["map"]["tau"] == report["agreement"]["offline_cv"]["map"]["tau"]


def test_the_card_in_words_leads_out_of_sample_and_labels_in_sample():
    shown = card.card("offline")
    f = shown["figures"]
    text = " ".join(shown["lines"])
    out_map, out_ndcg = f["out_of_sample"]["map"], f["out_of_sample"]["ndcg@10"]
    lead = shown["lines"][0]
    assert lead.startswith("Out of sample (each query graded by a grader fit without it, 5 folds grouped by query)")
    assert (f"Kendall tau {out_map['tau']:.2f} [{out_map['ci95'][0]:.2f}, {out_map['ci95'][1]:.2f}] by MAP, "
            f"{out_ndcg['tau']:.2f} [{out_ndcg['ci95'][0]:.2f}, {out_ndcg['ci95'][1]:.2f}] by nDCG@10") in lead
    assert "n = 116 queries x 12 systems" in lead and "In-sample" not in lead
    best = f["best_trivial"]["map"]
    assert f"Best trivial baseline on the same pool: by MAP {best['label']} {best['tau']:.2f}" in text
    assert f"paired difference {best['difference']:+.2f}" in text and f"the grader is {best['verdict']}" in text
    inside = shown["lines"][-1]
    assert inside.startswith("In-sample, not a figure for new queries") and f"{f['in_sample']['map']['tau']:.2f}" in inside
    shown["figures"]["in_sample"] = None  # a copy: the caller cannot change the card
    assert card.card()["figures"]["in_sample"] is not None
    assert card.card("umbrela") is None  # an LLM judge is not measured
