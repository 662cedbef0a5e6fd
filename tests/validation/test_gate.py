"""The agreement gate's figure (genevals.validation.gate) on planted verdicts: matching by id, system and answer
text, what is left out and why, the outcome at the minimum, and a lower bound that does not collapse to a point
on a handful of agreeing labels."""
import json

import pytest

from genevals.stats.agreement import agreement_cis, binary_metrics, confusion
from genevals.validation.gate import (BELOW, NO_MATCH, PASSED, TOO_FEW, Judged, from_rows, judged_outputs, measure,
                                      read_labels, wilson_lower)
from genevals.validation.labels import LabelledInputError


def label(i, hallucinated, model="default", response=None):
    return {"id": f"s{i}", "model": model, "context": ["c"], "response": response or f"answer {i}",
            "hallucinated": hallucinated}


def judged(i, hallucinated, system="default", answer=None):
    return Judged(f"s{i}", system, answer or f"answer {i}", hallucinated)


def test_wilson_lower_bound_matches_its_published_values():
    # Newcombe (1998), Table I: 81/263 -> 0.2553; 15/148 -> 0.0624; and n/n -> n / (n + z^2)
    assert wilson_lower(81, 263) == pytest.approx(0.2553, abs=1e-4)
    assert wilson_lower(15, 148) == pytest.approx(0.0624, abs=1e-4)
    assert wilson_lower(4, 4) == pytest.approx(4 / (4 + 1.959964 ** 2), abs=1e-9)


def test_agreeing_labels_pass_with_the_figure_validate_computes():
    labels = [label(i, i % 2 == 1) for i in range(40)]
    verdicts = [judged(i, i % 2 == 1 if i != 3 else False) for i in range(40)]
    found = measure(labels, verdicts, 0.6, "labels.jsonl", seed=7)
    pred, gold = [v.hallucinated for v in verdicts], [row["hallucinated"] for row in labels]
    assert found.kappa == binary_metrics(confusion(pred, gold))["kappa"] == pytest.approx(0.95)
    bootstrap = agreement_cis(pred, gold, 7)["kappa"]
    # the lower bound: the bootstrap's or, lower here, the Wilson bound of 39/40 mapped through p_e = 0.5
    assert found.kappa_ci == [min(bootstrap[0], (wilson_lower(39, 40) - 0.5) / 0.5), bootstrap[1]]
    assert found.outcome == PASSED and found.passed and found.n == 40 and found.accuracy == pytest.approx(0.975)
    assert "kappa 0.95 [95% CI 0.74, 1.00], accuracy 0.97 on 40 labelled samples" in found.line()


def test_disagreeing_labels_are_below_the_minimum():
    labels = [label(i, i % 2 == 1) for i in range(40)]
    found = measure(labels, [judged(i, i % 4 in (1, 2)) for i in range(40)], 0.6, "labels.jsonl")
    assert found.kappa == pytest.approx(0.0) and found.outcome == BELOW
    assert "below the minimum 0.6" in found.line()


def test_a_handful_of_agreeing_labels_is_too_few_to_tell():
    labels = [label(i, i % 2 == 1) for i in range(4)]
    found = measure(labels, [judged(i, i % 2 == 1) for i in range(4)], 0.6, "labels.jsonl")
    # the percentile bootstrap alone says [1.00, 1.00]; the Wilson bound of 4/4 mapped to kappa says 0.02
    assert found.kappa == 1.0 and found.kappa_ci[0] == pytest.approx((wilson_lower(4, 4) - 0.5) / 0.5)
    assert found.outcome == TOO_FEW and "[95% CI 0.02, 1.00]" in found.line()
    assert "too few labels to tell" in found.line()


def test_one_class_only_leaves_kappa_undefined_and_too_few_to_tell():
    found = measure([label(i, False) for i in range(10)], [judged(i, False) for i in range(10)], 0.6, "l")
    assert found.kappa is None and found.outcome == TOO_FEW and "kappa undefined" in found.line()


def test_labels_match_by_id_system_and_answer_text_and_the_rest_is_counted():
    labels = [label(0, True), label(1, False, model="other"), label(2, True, response="an older answer"),
              label(3, True), label(4, False, model=None), label(9, True)]
    verdicts = [judged(0, True), judged(1, False), judged(2, True), judged(3, None), judged(4, True, "b")]
    found = measure(labels, verdicts, 0.6, "l")
    assert found.n == 2  # s0, and s4 (a label without a model matches any system)
    assert found.left_out == {"not in this run": 2, "answer changed since labelled": 1, "unscored by the judge": 1}
    assert "(left out: 2 not in this run, 1 answer changed since labelled, 1 unscored by the judge)" in found.line()


def test_no_labelled_sample_in_the_run_says_so():
    found = measure([label(0, True)], [judged(1, True)], 0.6, "l.jsonl")
    assert found.outcome == NO_MATCH and not found.passed and found.n == 0
    assert found.line().startswith("no labelled sample of l.jsonl is in this run")
    assert found.to_dict()["passed"] is False and found.to_dict()["kappa"] is None


def test_results_rows_give_the_faithfulness_verdict():
    rows = [{"id": 1, "system": "a", "answer": "x", "metrics": {"faithfulness": {"value": 0.5, "status": "ok"}}},
            {"id": 2, "system": "a", "answer": "y", "metrics": {"faithfulness": {"value": None, "status": "judge_error"}}},
            {"id": 3, "system": "a", "answer": "z", "metrics": {"token_f1": {"value": 1.0, "status": "ok"}}}]
    assert list(from_rows(rows)) == [Judged("1", "a", "x", True), Judged("2", "a", "y", None)]


def test_judged_outputs_are_the_hallucination_judges():
    declared = {"faithfulness": {"family": "grounding"}, "contradiction_rate": {"family": "faithfulness"},
                "answer_relevance": {"family": "answer_relevance"}, "token_f1": {"family": "token_f1"}}
    assert judged_outputs(declared) == ["faithfulness", "contradiction_rate"]


def test_a_bad_labels_file_names_the_file_line_and_field(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(label(0, True)) + "\n" + json.dumps({**label(1, True), "hallucinated": "yes"}) + "\n"
                    + json.dumps({k: v for k, v in label(2, True).items() if k != "id"}) + "\n")
    with pytest.raises(LabelledInputError) as caught:
        read_labels(path)
    assert "labels.jsonl:2: field 'hallucinated': expected true or false" in str(caught.value)
    assert "labels.jsonl:3: field 'id': missing" in str(caught.value)
    path.write_text("\n")
    with pytest.raises(LabelledInputError, match="holds no labelled answer"):
        read_labels(path)
