"""genevals validate: agreement statistics, span overlap, rules, labelled input, the validation run with a real
judge metric (Faithfulness answered by the packaged ScriptedProvider), the HTML's escaping, and the CLI end to
end (the local checker on RAGTruth, the LLM judge against the fault-injecting server)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import PermanentError
from genevals.metrics.faithfulness.cascade import Cascade
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.metrics.faithfulness.grounding import Grounding
from genevals.stats.agreement import agreement_cis, binary_metrics, confusion
from genevals.types import MetricResult
from genevals.validation import LabelledInputError, build_metric, load_labelled, validate, write_outputs
from genevals.validation.core import Rule, predicted_spans
from genevals.validation.labels import check_row, gold_label, gold_spans, row_to_sample
from genevals.validation.page import highlight, render
from genevals.validation.spans import merge_spans, span_intersection, span_length, span_scores
from support.fault_server import FaultServer
from support.judge_scripts import label_claims, one_claim_per_answer

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
RAGTRUTH = SHARED / "datasets" / "ragtruth_dev.jsonl"


# -- agreement statistics (genevals.stats) -------------------------------------------------------------------
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
    empty = binary_metrics({"tp": 0, "fp": 0, "fn": 0, "tn": 0})
    assert (empty["accuracy"], empty["balanced_accuracy"], empty["kappa"], empty["f1"]) == (None, None, None, 0.0)


def test_confusion_by_hand():
    assert confusion([True, True, False, False, True], [True, False, True, False, True]) == {
        "tp": 2, "fp": 1, "fn": 1, "tn": 1}


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
    checked = 0
    for _ in range(20):
        n = int(rng.integers(5, 60))
        gold = rng.random(n) < rng.random()
        pred = rng.random(n) < rng.random()
        if gold.all() or (~gold).all():
            continue
        checked += 1
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
    assert checked >= 10


def test_agreement_cis_are_seeded_and_bracket_the_value():
    rng = np.random.default_rng(1)
    gold = rng.random(200) < 0.4
    pred = np.where(rng.random(200) < 0.8, gold, ~gold)
    a = agreement_cis(pred, gold, seed=7, resamples=300)
    assert a == agreement_cis(pred, gold, seed=7, resamples=300)
    assert set(a) == {"precision", "recall", "f1", "accuracy", "balanced_accuracy", "kappa"}
    f1 = binary_metrics(confusion(pred, gold))["f1"]
    assert a["f1"][0] <= f1 <= a["f1"][1] and a["f1"][0] < a["f1"][1]
    assert agreement_cis(pred, gold, seed=8, resamples=300) != a
    assert agreement_cis([True], [True]) == dict.fromkeys(a)  # one row: no interval
    # every resample of an all-correct prediction is perfect: a zero-width interval at 1
    assert agreement_cis([True, False, True, False], [True, False, True, False], resamples=50)["accuracy"] == [1.0, 1.0]


# -- spans ---------------------------------------------------------------------------------------------------
def test_span_overlap_by_hand():
    assert merge_spans([(5, 10), (0, 3), (8, 12), (12, 14), (20, 20)]) == [(0, 3), (5, 14)]
    assert span_length([(5, 10), (8, 12)]) == 7
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


# -- rules ---------------------------------------------------------------------------------------------------
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
    assert str(Rule.parse("threshold:0.60")) == "threshold:0.6" and str(Rule.parse("")) == "any"
    for bad in ("sometimes", "threshold:x", "threshold:2"):
        with pytest.raises(ValueError):
            Rule.parse(bad)


def test_predicted_spans_are_the_flagged_located_claims():
    details = {"claims": [{"index": 0, "text": "a", "spans": [[0, 5]], "located": True},
                          {"index": 1, "text": "b", "spans": [[6, 9], [12, 15]], "located": True},
                          {"index": 2, "text": "c", "spans": [[20, 25]], "located": True},
                          {"index": 3, "text": "d", "spans": [[30, 35]], "located": False}],
               "verdicts": [{"claim_index": 0, "label": types.SUPPORTED},
                            {"claim_index": 1, "label": types.UNVERIFIABLE},
                            {"claim_index": 2, "label": types.CONTRADICTED},
                            {"claim_index": 3, "label": types.CONTRADICTED},  # not the answer's: no span
                            {"claim_index": 9, "label": types.CONTRADICTED}]}  # no such claim
    assert predicted_spans(details, Rule.parse("any")) == [(6, 9), (12, 15), (20, 25)]
    assert predicted_spans(details, Rule.parse("contradicted")) == [(20, 25)]
    assert predicted_spans({}, Rule.parse("any")) == []


# -- labelled input ------------------------------------------------------------------------------------------
def test_check_row_names_problems():
    assert check_row({"context": "c", "response": "r", "hallucinated": False}) is None
    assert check_row({"context": ["c", "d"], "response": "r", "spans": [{"start": 0, "end": 1}]}) is None
    assert check_row({"context": "c", "response": "r"}) == "no label: give 'hallucinated' (true/false) or 'spans'"
    assert "bad span" in check_row({"context": "c", "response": "r", "spans": [{"start": 0, "end": 9}]})
    assert "bad span" in check_row({"context": "c", "response": "r", "spans": [{"start": True, "end": 1}]})
    assert check_row({"context": "c", "hallucinated": True}) == "field 'response': missing or not a string"
    assert "context" in check_row({"context": 3, "response": "r", "hallucinated": True})
    assert check_row({"context": "c", "response": "r", "hallucinated": "yes"}) == (
        "field 'hallucinated': expected true or false")
    assert check_row([1]) == "expected a JSON object"


def test_labels_and_samples():
    row = {"id": 7, "context": ["one", "two"], "response": "r" * 20, "question": None, "model": "m",
           "spans": [{"start": 5, "end": 9}, {"start": 0, "end": 3}, {"start": 8, "end": 12}]}
    assert gold_label(row) is True and gold_label({**row, "spans": []}) is False
    assert gold_label({**row, "hallucinated": False}) is False  # the explicit label wins
    assert gold_spans(row) == [(0, 3), (5, 12)]
    sample = row_to_sample(row)
    assert (sample.id, sample.question, sample.system) == ("7", "", "m")
    assert [(c.text, c.rank) for c in sample.contexts] == [("one", 1), ("two", 2)]


def test_load_labelled(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"context": "c", "response": "r", "hallucinated": true, "task_type": "QA"}\n\n'
                    '{"id": "x", "context": "c", "response": "r", "hallucinated": false, "task_type": "Summary"}\n'
                    '{"context": "c", "response": "r", "hallucinated": false, "task_type": "QA"}\n')
    rows = load_labelled(path)
    assert [(r["id"], r["_origin"]) for r in rows] == [("1", "rows.jsonl:1"), ("x", "rows.jsonl:3"),
                                                       ("4", "rows.jsonl:4")]
    assert [r["id"] for r in load_labelled(path, task_type="QA")] == ["1", "4"]
    assert [r["id"] for r in load_labelled(path, task_type="QA", limit=1)] == ["1"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"context": "c", "response": "r"}\nnot json\n')
    with pytest.raises(LabelledInputError) as err:
        load_labelled(bad)
    assert "2 bad row(s)" in str(err.value) and "bad.jsonl:1: no label" in str(err.value)
    assert "bad.jsonl:2: malformed JSON" in str(err.value)
    with pytest.raises(LabelledInputError, match="cannot read"):
        load_labelled(tmp_path / "missing.jsonl")


# -- a validation run with a real judge metric ---------------------------------------------------------------
CONTEXT = "The sky is blue. The sea is wet. The moon orbits the earth."
ROWS = [  # (id, response, human label, task type, the judge's verdict on its one claim)
    ("0", "The sky is green today.", True, "QA", types.UNVERIFIABLE),
    ("1", "The grass is blue today.", True, "QA", "error"),
    ("2", "The sea is wet today.", False, "QA", types.SUPPORTED),
    ("3", "The sun is cold today.", False, "Summary", types.UNVERIFIABLE),
    ("4", "The moon is made of cheese.", True, "Summary", types.SUPPORTED),
]


def scripted_llm(rows=ROWS) -> tuple[Faithfulness, ScriptedProvider]:
    """Faithfulness whose judge makes each response one claim, labelled as ``rows`` say ("error": HTTP 500)."""
    verdict = {response: label for _, response, _, _, label in rows}
    fail = {response: PermanentError("HTTP 500: down") for response, label in verdict.items() if label == "error"}
    provider = ScriptedProvider({"decompose": one_claim_per_answer(fail), "verify": label_claims(verdict.get)})
    return Faithfulness(JudgeConfig(provider=provider, cache=False)), provider


def labelled(rows=ROWS, **extra):
    return [{"id": i, "context": CONTEXT, "response": r, "hallucinated": h, "task_type": t, **extra.get(i, {})}
            for i, r, h, t, _ in rows]


def test_unscored_rows_are_counted_not_negative():
    metric, _ = scripted_llm()
    report, outcomes = validate(labelled(), "llm", metric=metric, resamples=50)
    rl = report["response_level"]
    assert (rl["n"], rl["scored"], rl["unscored"]) == (5, 4, 1)
    assert rl["unscored_by_status"] == {types.JUDGE_ERROR: 1}
    # scored rows (pred, gold): 0 (T, T), 2 (F, F), 3 (T, F), 4 (F, T)
    assert rl["confusion"] == {"tp": 1, "fp": 1, "fn": 1, "tn": 1}
    assert (rl["precision"], rl["recall"], rl["f1"], rl["accuracy"], rl["kappa"]) == (0.5, 0.5, 0.5, 0.5, 0.0)
    assert (rl["positive_rate"], rl["predicted_positive_rate"]) == (0.5, 0.5)
    # calling all 4 hallucinated: tp 2, fp 2 -> precision 0.5, recall 1, F1 = 4 / 6
    assert rl["baseline_all_hallucinated"]["confusion"] == {"tp": 2, "fp": 2, "fn": 0, "tn": 0}
    assert rl["baseline_all_hallucinated"]["f1"] == pytest.approx(2 / 3)
    qa, summary = report["per_task_type"]["QA"]["response_level"], report["per_task_type"]["Summary"]["response_level"]
    assert (qa["scored"], qa["unscored"], qa["confusion"]) == (2, 1, {"tp": 1, "fp": 0, "fn": 0, "tn": 1})
    assert (summary["scored"], summary["confusion"]) == (2, {"tp": 0, "fp": 1, "fn": 1, "tn": 0})
    assert report["span_level"] is None  # no row has spans
    assert report["usage"]["requests"] == 4 * 2 + 1  # decompose + verify per scored row, 1 for the failure
    assert report["judge"] == "llm" and report["judge_info"]["backend"] == "scripted"
    assert report["metric_signature"] == metric.signature()
    false_alarms, misses = report["disagreements"]["false_alarms"], report["disagreements"]["misses"]
    assert [d["id"] for d in false_alarms] == ["3"] and [d["id"] for d in misses] == ["4"]
    assert false_alarms[0]["predicted_spans"] == [[0, 22]] and false_alarms[0]["faithfulness"] == 0.0
    assert false_alarms[0]["verdicts"] == [{"claim": "The sun is cold today.", "spans": [[0, 22]],
                                            "label": types.UNVERIFIABLE, "reason": "scripted", "quote": "",
                                            "context_index": 0, "confidence": None}]
    assert [o.disagreement for o in outcomes] == [None, None, None, "false_alarm", "miss"]
    assert outcomes[1].status == types.JUDGE_ERROR and outcomes[1].pred is None


def test_span_level_by_hand():
    spans = {"0": {"spans": [{"start": 11, "end": 16}]},  # "green"
             "4": {"spans": [{"start": 20, "end": 26}]}}  # "cheese"
    metric, _ = scripted_llm()
    report, outcomes = validate(labelled(**spans), "llm", metric=metric, resamples=20)
    # flagged claims: rows 0 and 3, each its whole response ([0, 23) and [0, 22)); gold: [11, 16) and [20, 26)
    # overlap 5 characters; predicted 23 + 22 = 45; gold 5 + 6 = 11
    s = report["span_level"]
    assert (s["overlap_chars"], s["predicted_chars"], s["gold_chars"]) == (5, 45, 11)
    assert s["precision"] == pytest.approx(5 / 45) and s["recall"] == pytest.approx(5 / 11)
    assert s["f1"] == pytest.approx(10 / 56)
    assert outcomes[0].pred_spans == [(0, 23)] and outcomes[0].gold_spans == [(11, 16)]


def test_the_cascade_summary():
    rows = [("a", "I don't know.", False, "QA", types.SUPPORTED),  # a refusal: settled locally
            ("b", "The sea is wet.", False, "QA", types.SUPPORTED),  # to the LLM, supported
            ("c", "The sky is green.", True, "QA", "error")]  # to the LLM, which fails: the local verdict stands
    llm, provider = scripted_llm(rows)
    cascade = Cascade(settle_confidence=1.0, llm=llm)
    report, outcomes = validate(labelled(rows), "cascade", metric=cascade, resamples=20)
    assert report["cascade"] == {"settled_local": 1, "sent_to_llm": 2, "llm_fallbacks_to_local": 1,
                                 "llm_calls_saved_share": 1 / 3, "settle_confidence": 1.0, "llm_requests": 2}
    assert provider.count("decompose") == 2 and provider.count("verify") == 1
    assert [o.to_dict()["settled_by"] for o in outcomes] == ["local", "llm", "local"]
    assert outcomes[0].status == types.REFUSAL and outcomes[1].faithfulness == 1.0


def test_build_metric():
    provider = ScriptedProvider({})
    config = JudgeConfig(provider=provider)
    assert isinstance(build_metric("local"), Grounding)
    llm = build_metric("llm", {"max_claims": 3}, config)
    assert isinstance(llm, Faithfulness) and llm.max_claims == 3 and llm.judge is config
    cascade = build_metric("cascade", {"settle_confidence": 0.7, "grounding": {"batch_size": 8}}, config)
    assert isinstance(cascade, Cascade) and cascade.settle_confidence == 0.7 and cascade.local.batch_size == 8
    with pytest.raises(ValueError, match="unknown judge 'gpt'"):
        build_metric("gpt")


def test_write_outputs(tmp_path):
    metric, _ = scripted_llm()
    report, outcomes = validate(labelled(), "llm", metric=metric, resamples=20)
    paths = write_outputs(report, outcomes, tmp_path / "val")
    assert set(paths) == {"json", "html", "rows"} and all(p.is_file() for p in paths.values())
    assert json.loads(paths["json"].read_text())["response_level"]["confusion"] == report["response_level"]["confusion"]
    lines = [json.loads(line) for line in paths["rows"].read_text().splitlines()]
    assert [(r["id"], r["gold"], r["predicted"], r["status"]) for r in lines] == [
        ("0", True, True, "ok"), ("1", True, None, "judge_error"), ("2", False, False, "ok"),
        ("3", False, True, "ok"), ("4", True, False, "ok")]


# -- HTML ----------------------------------------------------------------------------------------------------
def test_highlight_and_page_escape_hostile_text():
    hostile = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'
    out = highlight(hostile, [(0, 8), (30, 40)], "gold")
    assert "<script>" not in out and "&lt;script&gt;" in out and out.count("<mark") == 2
    rows = [('<b id="x">', hostile, False, "<i>QA</i>", types.UNVERIFIABLE),
            ("2", "Also " + hostile, True, "<i>QA</i>", types.SUPPORTED)]
    data = labelled(rows, **{'<b id="x">': {"question": hostile, "spans": [{"start": 0, "end": 5, "meta": hostile}]}})
    metric, _ = scripted_llm(rows)
    report, _ = validate(data, "llm", metric=metric, resamples=20)
    assert report["response_level"]["confusion"] == {"tp": 0, "fp": 1, "fn": 1, "tn": 0}
    page = render(report)
    assert "<script>" not in page and "<img" not in page and "<i>QA" not in page and '<b id="x">' not in page
    assert "&lt;script&gt;" in page
    assert "http://" not in page and "https://" not in page  # self-contained


# -- the command line ----------------------------------------------------------------------------------------
needs_ragtruth = pytest.mark.skipif(not RAGTRUTH.exists(), reason="../shared/datasets/ragtruth_dev.jsonl absent")


@needs_ragtruth
def test_cli_end_to_end_local(tmp_path):
    from genevals.cli import main

    out = tmp_path / "val"
    assert main(["validate", str(RAGTRUTH), "--judge", "local", "--limit", "30", "--out", str(out), "--quiet",
                 "--resamples", "200"]) == 0
    report = json.loads((out / "validation.json").read_text())
    html = (out / "validation.html").read_text()
    rl = report["response_level"]
    assert rl["n"] == 30 and rl["scored"] + rl["unscored"] == 30
    assert 0 <= rl["f1"] <= 1 and rl["ci95"]["f1"][0] <= rl["f1"] <= rl["ci95"]["f1"][1]
    assert report["span_level"]["gold_chars"] > 0
    assert report["judge_info"]["backend"] == "local-grounding" and report["limit"] == 30
    assert "<script" not in html and "Worst disagreements" in html
    assert len((out / "predictions.jsonl").read_text().splitlines()) == 30
    # these are the detector's own training rows: the figures are said to be in-sample, beside the real figure
    assert "in-sample" in report["in_sample"] and "word-overlap baseline" in report["in_sample"]
    assert "overstates it" in html


def test_validate_on_the_detector_s_training_data_says_it_is_in_sample(tmp_path):
    """In a real process: the training file itself gets the warning on stderr; the same rows less one do not."""
    import subprocess
    import sys

    if not RAGTRUTH.is_file():
        pytest.skip("../shared is not present")

    def run(path, out):
        return subprocess.run([sys.executable, "-m", "genevals", "validate", str(path), "--judge", "local", "--limit",
                               "5", "--resamples", "50", "-q", "-o", str(out)], capture_output=True, text=True,
                              timeout=300)

    trained = run(RAGTRUTH, tmp_path / "a")
    assert trained.returncode == 0, trained.stderr
    assert "genevals: warning: ragtruth_dev.jsonl is the data the local detector was trained on" in trained.stderr
    other = tmp_path / "other.jsonl"
    other.write_text("".join(RAGTRUTH.read_text().splitlines(keepends=True)[1:]))
    fresh = run(other, tmp_path / "b")
    assert fresh.returncode == 0 and "in-sample" not in fresh.stderr
    assert "in_sample" not in json.loads((tmp_path / "b" / "validation.json").read_text())


def test_cli_bad_input(tmp_path, capsys):
    from genevals.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"context": "c", "response": "r"}\nnot json\n')
    assert main(["validate", str(bad), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and "bad.jsonl:2" in err
    good = tmp_path / "good.jsonl"
    good.write_text('{"context": "c", "response": "r", "hallucinated": true}\n')
    assert main(["validate", str(good), "--out", str(tmp_path / "o"), "--rule", "maybe", "--quiet"]) == 2
    assert "--rule maybe" in capsys.readouterr().err
    assert main(["validate", str(good), "--out", str(tmp_path / "o"), "--judge", "llm", "--judge-base-url",
                 "http://127.0.0.1:9/v1", "--judge-option", "bogus=1", "--quiet"]) == 2
    assert "bogus" in capsys.readouterr().err


def test_cli_llm_judge_against_a_server(tmp_path):
    """The judge options reach the judge: the server's honest judge supports what the context states, and
    --judge-option max_retries=0 (a JudgeConfig field) leaves one request for the answer that meets HTTP 500."""
    from genevals.cli import main

    context = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "faithful", "context": context, "response": "Marie Curie was born in Warsaw.", "hallucinated": False},
        {"id": "made_up", "context": context, "response": "Marie Curie liked tea.", "hallucinated": True},
        {"id": "down", "context": context, "response": "Marie Curie was born. FAULT500.", "hallucinated": True}]))
    out = tmp_path / "val"
    with FaultServer() as server:
        code = main(["validate", str(data), "--judge", "llm", "--judge-base-url", server.base_url, "--judge-model",
                     "fault-judge", "--no-judge-cache", "--judge-option", "max_retries=0", "--judge-option",
                     "fuzzy_threshold=95", "--out", str(out), "--quiet", "--resamples", "20",
                     "--max-judge-errors", "0.5"])
        assert code == 0  # 1 judge error in 3 answers is within --max-judge-errors 0.5
        # the preflight request, then decompose + verify for 2 rows
        assert server.counts["FAULT500"] == 1 and server.counts["clean"] == 1 + 4
    report = json.loads((out / "validation.json").read_text())
    rl = report["response_level"]
    assert (rl["scored"], rl["unscored_by_status"], rl["confusion"]) == (
        2, {types.JUDGE_ERROR: 1}, {"tp": 1, "fp": 0, "fn": 0, "tn": 1})
    assert report["judge_info"]["backend"] == "openai" and report["judge_info"]["model"] == "fault-judge"
    assert "|backend:openai|model:fault-judge|" in report["metric_signature"]
