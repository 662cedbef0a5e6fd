"""The learned detector behind the default offline faithfulness: phrase tokens and binding (no model), the
shipped weights' record, and the planted hallucinations it must catch (demo dataset and hand-written cases)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genevals import types
from genevals.grounding import detector, phrases
from genevals.metrics.grounding import Grounding
from genevals.types import Context, Sample

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"


def _tokens(claim, context, aligned=None):
    toks = phrases.claim_tokens(claim, phrases.Evidence([context]), phrases.Evidence([aligned or context]))
    return {t.text: (t.kind, t.in_context, t.in_aligned) for t in toks}


# -- without the model ---------------------------------------------------------------------------------------
def test_spelled_numbers_and_dates():
    assert [n for n, _, _ in phrases.spelled_numbers("Thirty-one boats, fifteen crew, the fourth day")] == [
        "31", "15", "4"]
    assert phrases.spelled_numbers("one of them") == []  # "one" is too common to be a claim's number
    assert [d for d, _, _ in phrases.dates_in("On 31 May, not in May we may go on Tuesdays")] == ["may", "tuesday"]


def test_binding_to_the_clause():
    ctx = "General waste is collected every week, on Mondays in Port Ansel and on Tuesdays in the rest of the island."
    t = _tokens("Rubbish in Port Ansel is collected on Tuesdays.", ctx)
    assert t["tuesday"] == ("date", True, False)  # in the sentence, but bound to "the rest of the island"
    t = _tokens("General waste is collected on Mondays in Port Ansel.", ctx)
    assert t["monday"] == ("date", True, True)
    t = _tokens("The centre opens on Saturdays.", "The recycling centre is open on Wednesdays, Saturdays and Sundays.")
    assert t["saturday"] == ("date", True, True)  # a list is one clause
    t = _tokens("The crossing takes 55 minutes.", "It sails to Carrick Quay, and the crossing takes about 55 minutes.")
    assert t["55"] == ("number", True, True)


def test_unsupported_phrase_span():
    claim = "Applications to the fund close on 31 May each year."
    toks = phrases.claim_tokens(claim, phrases.Evidence(["Applications close on 31 March each year."]),
                                phrases.Evidence(["Applications close on 31 March each year."]))
    s, e = phrases.unsupported_phrase(claim, toks)
    assert claim[s:e] == "May"
    assert phrases.unsupported_phrase("All fine.", []) is None


def test_shipped_weights_record_their_training():
    data = json.loads(detector.WEIGHTS_PATH.read_text())
    assert data["trained_on"]["data"] == "ragtruth_dev.jsonl" and data["trained_on"]["seed"] == 0
    cv = data["scores"]["cross_validated"]["judges"]
    # the reason it ships: it beats the rule checker it replaces on the same folds
    assert cv["detector"]["f1"] > cv["checker"]["f1"] > 0
    det = detector.load()
    assert len(det.answer.coef) == len(detector.ANSWER_FEATURES)
    assert len(det.claim.coef) == len(detector.CLAIM_MODEL_FEATURES)
    # the logistic regression by hand: sigmoid(w . (x - mean) / scale + b)
    x = det.answer.mean + det.answer.scale
    expected = 1 / (1 + np.exp(-(det.answer.coef.sum() + det.answer.intercept)))
    assert det.answer.proba(x)[0] == pytest.approx(expected)


def test_method_setting():
    with pytest.raises(ValueError, match="method"):
        Grounding(method="magic")
    assert "method:learned" in Grounding().signature()
    assert Grounding(method="rules").detector is None


# -- with the model ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def grounding():
    return Grounding()


def _sample(answer, *contexts, sid="s"):
    return Sample(id=sid, answer=answer, question="",
                  contexts=tuple(Context(text=c, rank=i + 1) for i, c in enumerate(contexts)))


USER_CASES = [
    ("James Gosling created Python.", "Python was created by Guido van Rossum and first released in 1991."),
    pytest.param("Buzz Aldrin stayed in lunar orbit.",
                 "Neil Armstrong and Buzz Aldrin walked on the Moon. Michael Collins remained in lunar orbit.",
                 marks=pytest.mark.xfail(strict=True, reason="known miss: both names occur in the context, and a "
                                         "name-swap rule had precision 0 on RAGTruth dev, so none is shipped")),
]


@pytest.mark.parametrize("answer,context", USER_CASES)
def test_user_examples_are_flagged(grounding, answer, context):
    [r] = grounding.score([_sample(answer, context)])
    assert r["faithfulness"].status == types.OK
    assert r["faithfulness"].value < 1.0, r["faithfulness"].details["verdicts"]


def test_unrelated_evidence_is_not_quoted(grounding):
    ctx = ("Insulin is a hormone made by the pancreas. It lets cells take up glucose from the blood. "
           "People with type 1 diabetes inject insulin every day.")
    [r] = grounding.score([_sample("Mercury boils at about 357 degrees Celsius.", ctx)])
    [v] = r["faithfulness"].details["verdicts"]
    assert v["label"] != types.SUPPORTED
    assert v["quote"] == "" and v["quote_span"] is None and "no related evidence" in v["reason"]


@pytest.mark.skipif(not DEMO.exists(), reason="datasets/demo absent")
def test_demo_planted_contradictions_are_caught(grounding):
    rows = {(r["system"], r["id"]): r for r in map(json.loads, DEMO.read_text().splitlines())}
    wanted = {("dense", "q02"): "four", ("hybrid", "q11"): "Tuesdays", ("hybrid", "q17"): "May"}
    samples = [Sample(id=k[1], answer=rows[k]["answer"], question=rows[k]["question"],
                      contexts=tuple(Context(text=c["text"], rank=i + 1) for i, c in enumerate(rows[k]["contexts"])))
               for k in wanted]
    for (key, word), s, r in zip(wanted.items(), samples, grounding.score(samples)):
        faith = r["faithfulness"]
        assert faith.value < 1.0, (key, faith.details["verdicts"])
        flagged = [v for v in faith.details["verdicts"] if v["label"] != types.SUPPORTED]
        spans = [v.get("answer_span") for v in flagged]
        assert any(sp and word in s.answer[sp[0]:sp[1]] for sp in spans), (key, spans)
