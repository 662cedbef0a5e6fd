"""genevals validate: metric arithmetic, span overlap, rules, the CLI end to end, and the HTML's escaping."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from genevals import types
from genevals.types import MetricResult
from genevals.validate import (Rule, binary_metrics, bootstrap_cis, check_row, confusion, merge_spans,
                               predicted_spans, span_intersection, span_scores, validate)
from genevals.validate_report import highlight, render

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RAGTRUTH = SHARED / "datasets" / "ragtruth_dev.jsonl"


# -- arithmetic --------------------------------------------------------------------------------------------
def test_binary_metrics_by_hand():
    # tp=6 fp=2 fn=3 tn=9, n=20
    m = binary_metrics({"tp": 6, "fp": 2, "fn": 3, "tn": 9})
    assert m["precision"] == pytest.approx(6 / 8)
    assert m["recall"] == pytest.approx(6 / 9)
    assert m["f1"] == pytest.approx(2 * (6 / 8) * (6 / 9) / (6 / 8 + 6 / 9))
    assert m["accuracy"] == pytest.approx(15 / 20)
    assert m["balanced_accuracy"] == pytest.approx((6 / 9 + 9 / 11) / 2)
    po = 15 / 20
    pe = (8 / 20) * (9 / 20) + (12 / 20) * (11 / 20)
    assert m["kappa"] == pytest.approx((po - pe) / (1 - pe))


def test_binary_metrics_edge_cases():
    none_predicted = binary_metrics({"tp": 0, "fp": 0, "fn": 4, "tn": 6})
    assert none_predicted["precision"] == 0 and none_predicted["recall"] == 0 and none_predicted["f1"] == 0
    assert none_predicted["kappa"] == pytest.approx(0.0)
    perfect = binary_metrics({"tp": 3, "fp": 0, "fn": 0, "tn": 5})
    assert perfect["f1"] == 1 and perfect["kappa"] == pytest.approx(1.0) and perfect["balanced_accuracy"] == 1
    one_class = binary_metrics({"tp": 4, "fp": 0, "fn": 0, "tn": 0})
    assert one_class["kappa"] is None  # p_e = 1: undefined, not a number
    assert one_class["balanced_accuracy"] == 1.0


def test_all_hallucinated_baseline_formula():
    # predicting every answer hallucinated at a 40% positive rate: F1 = 2p / (1 + p) = 0.5714
    gold = [True] * 40 + [False] * 60
    m = binary_metrics(confusion([True] * 100, gold))
    assert m["f1"] == pytest.approx(2 * 0.4 / 1.4)
    assert m["kappa"] == pytest.approx(0.0)
    assert m["balanced_accuracy"] == pytest.approx(0.5)


def test_against_sklearn():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(5, 60))
        gold = rng.random(n) < rng.random()
        pred = rng.random(n) < rng.random()
        if gold.all() or (~gold).all():
            continue
        m = binary_metrics(confusion(pred, gold))
        assert m["precision"] == pytest.approx(sk.precision_score(gold, pred, zero_division=0))
        assert m["recall"] == pytest.approx(sk.recall_score(gold, pred, zero_division=0))
        assert m["f1"] == pytest.approx(sk.f1_score(gold, pred, zero_division=0))
        assert m["balanced_accuracy"] == pytest.approx(sk.balanced_accuracy_score(gold, pred))
        kappa = sk.cohen_kappa_score(gold, pred)
        if m["kappa"] is None:
            assert math.isnan(kappa)
        else:
            assert m["kappa"] == pytest.approx(kappa)


def test_bootstrap_is_seeded_and_brackets_the_value():
    rng = np.random.default_rng(1)
    gold = rng.random(200) < 0.4
    pred = np.where(rng.random(200) < 0.8, gold, ~gold)
    a = bootstrap_cis(pred, gold, seed=7, resamples=300)
    b = bootstrap_cis(pred, gold, seed=7, resamples=300)
    assert a == b
    f1 = binary_metrics(confusion(pred, gold))["f1"]
    assert a["f1"][0] <= f1 <= a["f1"][1]
    assert bootstrap_cis(pred, gold, seed=8, resamples=300) != a


# -- spans ------------------------------------------------------------------------------------------------
def test_span_overlap_by_hand():
    assert merge_spans([(5, 10), (0, 3), (8, 12), (12, 14), (20, 20)]) == [(0, 3), (5, 14)]
    assert span_intersection([(0, 10), (20, 30)], [(5, 25)]) == 5 + 5
    # row 1: predicted [0,10) [20,30), gold [5,25): overlap 10, predicted 20, gold 20
    # row 2: predicted [], gold [0,8): overlap 0, predicted 0, gold 8
    # row 3: predicted [2,6), gold []: predicted 4
    s = span_scores([([(0, 10), (20, 30)], [(5, 25)]), ([], [(0, 8)]), ([(2, 6)], [])])
    assert s["overlap_chars"] == 10 and s["predicted_chars"] == 24 and s["gold_chars"] == 28
    assert s["precision"] == pytest.approx(10 / 24)
    assert s["recall"] == pytest.approx(10 / 28)
    p, r = 10 / 24, 10 / 28
    assert s["f1"] == pytest.approx(2 * p * r / (p + r))
    assert span_scores([([], [])])["f1"] == 0.0


def _result(faith: float, contradicted: float = 0.0, details=None):
    return {"faithfulness": MetricResult("faithfulness", faith, details=details or {}),
            "contradiction_rate": MetricResult("contradiction_rate", contradicted),
            "unverifiable_rate": MetricResult("unverifiable_rate", 1 - faith - contradicted)}


def test_rules():
    assert Rule.parse("any").predict(_result(0.9)) is True
    assert Rule.parse("any").predict(_result(1.0)) is False
    assert Rule.parse("contradicted").predict(_result(0.5, 0.0)) is False
    assert Rule.parse("contradicted").predict(_result(0.5, 0.25)) is True
    assert Rule.parse("threshold:0.6").predict(_result(0.5)) is True
    assert Rule.parse("threshold:0.6").predict(_result(0.75)) is False
    for bad in ("sometimes", "threshold:x", "threshold:2"):
        with pytest.raises(ValueError):
            Rule.parse(bad)
    details = {"claims": [{"index": 0, "text": "a", "spans": [[0, 5]], "located": True},
                          {"index": 1, "text": "b", "spans": [[6, 9], [12, 15]], "located": True},
                          {"index": 2, "text": "c", "spans": [[20, 25]], "located": True}],
               "verdicts": [{"claim_index": 0, "label": types.SUPPORTED}, {"claim_index": 1, "label": types.UNVERIFIABLE},
                            {"claim_index": 2, "label": types.CONTRADICTED}]}
    assert predicted_spans(details, Rule.parse("any")) == [(6, 9), (12, 15), (20, 25)]
    assert predicted_spans(details, Rule.parse("contradicted")) == [(20, 25)]


def test_check_row_names_problems():
    assert check_row({"context": "c", "response": "r", "hallucinated": False}) is None
    assert check_row({"context": "c", "response": "r", "spans": [{"start": 0, "end": 1}]}) is None
    assert "label" in check_row({"context": "c", "response": "r"})
    assert "spans" in check_row({"context": "c", "response": "r", "spans": [{"start": 0, "end": 9}]})
    assert "response" in check_row({"context": "c", "hallucinated": True})


class _Scripted:
    """A stand-in judge: faithfulness per row from a table; rows marked 'error' come back unscored."""

    family = "scripted"

    def __init__(self, table):
        self.table = table

    def signature(self):
        return "scripted"

    def score(self, samples):
        out = []
        for s in samples:
            value = self.table[s.id]
            if value == "error":
                out.append({name: MetricResult.unscored(name, types.JUDGE_ERROR, "boom")
                            for name in ("faithfulness", "contradiction_rate", "unverifiable_rate")})
                continue
            details = {"claims": [{"index": 0, "text": s.answer, "spans": [[0, len(s.answer)]], "located": True}],
                       "verdicts": [{"claim_index": 0, "label": types.SUPPORTED if value == 1 else types.UNVERIFIABLE}]}
            out.append(_result(value, 0.0, details))
        return out


def test_unscored_rows_are_counted_not_negative():
    rows = [{"id": str(i), "context": "c", "response": "answer text", "hallucinated": h, "task_type": t}
            for i, (h, t) in enumerate([(True, "QA"), (True, "QA"), (False, "QA"), (False, "Summary"), (True, "Summary")])]
    table = {"0": 0.5, "1": "error", "2": 1.0, "3": 0.5, "4": 1.0}
    report, outcomes = validate(rows, metric=_Scripted(table), resamples=50)
    rl = report["response_level"]
    assert rl["scored"] == 4 and rl["unscored"] == 1 and rl["unscored_by_status"] == {types.JUDGE_ERROR: 1}
    assert rl["confusion"] == {"tp": 1, "fp": 1, "fn": 1, "tn": 1}
    assert report["per_task_type"]["QA"]["response_level"]["scored"] == 2
    assert len(report["disagreements"]["false_alarms"]) == 1 and len(report["disagreements"]["misses"]) == 1


# -- HTML -------------------------------------------------------------------------------------------------
def test_highlight_and_page_escape_hostile_text():
    hostile = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'
    out = highlight(hostile, [(0, 8), (30, 40)], "gold")
    assert "<script>" not in out and "&lt;script&gt;" in out and out.count("<mark") == 2
    rows = [{"id": '<b id="x">', "context": hostile, "response": hostile, "question": hostile,
             "hallucinated": False, "task_type": "<i>QA</i>", "spans": [{"start": 0, "end": 5, "meta": hostile}]},
            {"id": "2", "context": hostile, "response": hostile, "hallucinated": True, "task_type": "<i>QA</i>"}]
    report, _ = validate(rows, metric=_Scripted({'<b id="x">': 0.5, "2": 1.0}), resamples=20)
    page = render(report)
    assert "<script>" not in page and "<img" not in page and "<i>QA" not in page and '<b id="x">' not in page
    assert "&lt;script&gt;" in page
    assert "http://" not in page and "https://" not in page  # self-contained


# -- end to end on RAGTruth --------------------------------------------------------------------------------
needs_ragtruth = pytest.mark.skipif(not RAGTRUTH.exists(), reason="../shared/datasets/ragtruth_dev.jsonl absent")


@needs_ragtruth
def test_cli_end_to_end_local(tmp_path, capsys):
    from genevals.validate_cli import main

    out = tmp_path / "val"
    assert main([str(RAGTRUTH), "--judge", "local", "--limit", "30", "--out", str(out), "--quiet",
                 "--resamples", "200"]) == 0
    report = json.loads((out / "validation.json").read_text())
    html = (out / "validation.html").read_text()
    rl = report["response_level"]
    assert rl["n"] == 30 and rl["scored"] + rl["unscored"] == 30
    assert 0 <= rl["f1"] <= 1 and rl["ci95"]["f1"][0] <= rl["f1"] <= rl["ci95"]["f1"][1]
    assert report["span_level"]["gold_chars"] > 0
    assert report["judge_info"]["backend"] == "local-grounding"
    assert "<script" not in html and "Worst disagreements" in html
    lines = (out / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == 30


@needs_ragtruth
def test_cli_bad_input(tmp_path, capsys):
    from genevals.validate_cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"context": "c", "response": "r"}\nnot json\n')
    assert main([str(bad), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and "bad.jsonl:2" in err
    assert main([str(RAGTRUTH), "--out", str(tmp_path / "o"), "--rule", "maybe", "--quiet"]) == 2
