"""The whole-run estimate from a review queue's stratified sample: golden figures worked by hand, the census
stratum without sampling error, strata left without labels named, bad design fields refused naming the line;
and a tiny run of benchmarks/bench_review_queue.py pinning its coverage logic."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from genevals.validation.weighted import WeightError, check_design, from_rows, weighted_agreement

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_review_queue.py"


def test_golden_stratified_estimate():
    """Stratum a: N=100, 4 labelled, 3 right (pred = gold); stratum b: N=10, 2 labelled, both wrong.
    acc = (100 * 3/4 + 10 * 0/2) / 110 = 75 / 110; the weighted confusion matrix has weights 25 and 5."""
    pred = [True, True, False, False, True, False]
    gold = [True, True, False, True, False, True]
    strata = ["a", "a", "a", "a", "b", "b"]
    out = weighted_agreement(pred, gold, strata, {"a": 100, "b": 10}, [0.04] * 4 + [0.2] * 2, resamples=200)
    assert out["accuracy"] == pytest.approx(75 / 110)
    assert out["horvitz_thompson_accuracy"] == pytest.approx(75 / 110)  # every drawn answer labelled
    assert out["confusion"] == {"tp": 50.0, "fp": 5.0, "fn": 30.0, "tn": 25.0}
    po, pe = 75 / 110, (55 * 80 + 55 * 30) / 110 ** 2
    assert out["kappa"] == pytest.approx((po - pe) / (1 - pe))
    low, high = out["ci95"]["accuracy"]
    assert low <= out["accuracy"] <= high and high - low > 0
    plain = sum(p == g for p, g in zip(pred, gold)) / len(pred)
    assert plain == pytest.approx(0.5) and abs(out["accuracy"] - plain) > 0.15  # the weights matter


def test_a_stratum_reviewed_in_full_has_no_sampling_error():
    out = weighted_agreement([True, False, True], [True, False, False], ["a", "a", "a"], {"a": 3}, [1.0] * 3,
                             resamples=100)
    assert out["ci95"]["accuracy"] == [pytest.approx(2 / 3), pytest.approx(2 / 3)]


def test_a_stratum_without_labels_makes_the_estimate_impossible_and_is_named():
    out = weighted_agreement([True, True], [True, False], ["a", "a"], {"a": 50, "b": 500}, drawn={"a": 2, "b": 0})
    assert out["accuracy"] is None and out["unestimable_strata"] == ["b"] and out["undrawn_strata"] == ["b"]


def row(stratum, p, size, drawn=2, **extra):
    return {"response": "x", "context": "y", "hallucinated": False, "stratum": stratum, "inclusion_probability": p,
            "stratum_size": size, "stratum_drawn": drawn, "queue_strata": {"a": 10, "b": 40, "c": 5}, **extra}


def test_rows_of_an_export_unlabelled_drawn_answers_counted_off_queue_rows_left_out():
    rows = [row("a", 0.2, 10), row("a", 0.2, 10), row("b", 0.05, 40), row("c", 0.4, 5),
            {"response": "x", "context": "y", "hallucinated": True, "inclusion_probability": None}]
    out = from_rows(rows, [False, True, False, False, True], [False, False, False, False, True], resamples=50)
    assert out["rows_off_queue"] == 1 and out["unlabelled_drawn"] == {"b": 1, "c": 1}
    assert out["accuracy"] == pytest.approx((10 * 0.5 + 40 + 5) / 55)
    assert from_rows(rows[-1:], [True], [True]) is None


@pytest.mark.parametrize("bad, message", [
    ({"inclusion_probability": 1.5}, "inclusion_probability: a number in (0, 1]"),
    ({"inclusion_probability": 0.5, "stratum": ""}, "stratum: a name is needed"),
    ({"inclusion_probability": 0.5, "stratum": "a", "stratum_size": -1}, "stratum_size"),
])
def test_bad_design_fields_are_refused_naming_the_line(bad, message):
    with pytest.raises(WeightError, match=r"labels\.jsonl:3: " + message.replace("(", r"\(").replace("]", r"\]")):
        check_design([{"_origin": "labels.jsonl:3", **bad}])
    with pytest.raises(WeightError, match="labels.jsonl:2: stratum 'a' has stratum_size 11 here but 10 at "
                                          "labels.jsonl:1"):
        check_design([row("a", 0.2, 10, _origin="labels.jsonl:1"), row("a", 0.2, 11, _origin="labels.jsonl:2")])


def test_tiny_simulation_weighted_covers_and_interesting_first_is_biased():
    spec = importlib.util.spec_from_file_location("bench_review_queue", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench._covers([0.8, 0.9], 0.85) and bench._covers([0.8, 0.9], 0.9) and not bench._covers([0.8, 0.9], 0.91)
    assert not bench._covers(None, 0.5)
    runs = [bench.simulate(r, answers=600, review=80, resamples=200) for r in range(25)]
    truth = [r["truth"][0] for r in runs]
    weighted = [r["queue, weighted"] for r in runs]
    first = [r["interesting first, unweighted"] for r in runs]
    assert sum(c for _, c in weighted) >= 20  # 80% of 25 tiny runs; the benchmark's 500 reach >= 93%
    assert abs(sum(v for v, _ in weighted) / 25 - sum(truth) / 25) < 0.02
    assert sum(v for v, _ in first) / 25 - sum(truth) / 25 < -0.15 and sum(c for _, c in first) == 0
