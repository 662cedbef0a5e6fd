"""The learned detector behind the default offline faithfulness: phrase tokens and binding (no model), the
shipped weights' record, and the planted hallucinations it must catch (demo dataset and hand-written cases)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genevals import types
from genevals.grounding import checker, detector, phrases
from genevals.metrics.faithfulness.grounding import Grounding
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


def test_fractions_are_percentages():
    assert phrases.spelled_numbers("Roughly seven-tenths of it, three-quarters") == [("70", 8, 20), ("75", 28, 42)]
    assert phrases.spelled_numbers("two-thirds of the crew") == []  # no whole percentage: not a number claim
    t = _tokens("Roughly seven-tenths of the electricity is wind.", "Wind gives about 70 percent of the electricity.")
    assert t["70"] == ("number", True, True)


def test_times_do_not_split_clauses():
    ctx = "The museum is open daily from 11:00 to 16:00 between April and October."
    t = _tokens("The museum opens daily from 11:00 to 16:00 between April and October.", ctx)
    assert t["april"] == ("date", True, True) and t["16"] == ("number", True, True)


def test_a_date_is_wrong_only_against_a_rival_date():
    # a paraphrase around the right date ("October's final Saturday") is not a wrong date ...
    t = _tokens("It falls on October's final Saturday.", "Lantern Night takes place on the last Saturday of October.")
    assert t["october"] == ("date", True, True) and t["saturday"] == ("date", True, True)
    # ... a date whose clause-mates the evidence binds to another date is
    ctx = "Waste is collected on Mondays in Port Ansel and on Tuesdays in the rest of the island."
    assert _tokens("Waste in Port Ansel is collected on Tuesdays.", ctx)["tuesday"] == ("date", True, False)
    # ... even when another sentence puts that date next to some of the claim's words
    t = _tokens("Rubbish in Port Ansel is collected on Tuesdays.", "x", ctx + " The council meets on the first "
                "Tuesday of each month in Port Ansel.")
    assert t["tuesday"] == ("date", False, False)
    ctx = "From 1 May to 30 September the ferry makes six return sailings a day."
    t = _tokens("In summer (1 May to 30 September) the ferry makes six return sailings a day.", ctx)
    assert t["may"] == ("date", True, True) and t["september"] == ("date", True, True)


def test_answer_span_modes():
    claim = "It offers parking options, including street parking, and a terrace."
    phrase = (claim.index("street"), claim.index("street") + len("street"))
    assert phrases.answer_span(claim, phrase, "phrase") == phrase
    s, e = phrases.answer_span(claim, phrase, "clause")
    assert claim[s:e] == "including street parking,"
    assert phrases.answer_span(claim, phrase, "sentence") == (0, len(claim))
    assert phrases.answer_span(claim, None, "clause") is None  # no phrase: the sentence stands
    assert phrases.answer_span(claim, None, "sentence") == (0, len(claim))


def test_shipped_weights_record_their_training():
    data = json.loads(detector.WEIGHTS_PATH.read_text())
    assert data["trained_on"]["data"] == "ragtruth_dev.jsonl" and data["trained_on"]["seed"] == 0
    cv = data["scores"]["cross_validated"]["judges"]
    # the reason it ships: it beats the rule checker it replaces on the same folds
    assert cv["detector"]["f1"] > cv["checker"]["f1"] > 0
    det = detector.load()
    assert data["trained_on"]["embedding_model"] == det.encoder.name
    assert det.spans in phrases.SPAN_MODES
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


def test_compressed_encoder_is_its_own_model():
    enc = checker.Encoder(3, True)
    model = checker.get_model(encoder=enc)
    assert len(model[0].auto_model.encoder.layer) == 3 and len(checker.get_model()[0].auto_model.encoder.layer) == 6
    texts = ["The ferry crossing takes about 55 minutes.", "The boat trip lasts just under an hour.",
             "Insulin is a hormone made by the pancreas."]
    small, full = checker.embed(texts, encoder=enc), checker.embed(texts)
    assert not np.allclose(small, full)  # cached per encoder, not shared
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0, atol=1e-5)
    assert small[0] @ small[1] > small[0] @ small[2] + 0.1  # still ranks a paraphrase above an unrelated text


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


@pytest.mark.skipif(not DEMO.exists(), reason="datasets/demo absent")
def test_a_score_does_not_depend_on_its_batch(grounding):
    """The shipped encoder is fp32: an answer scored alone and scored among others gets the same probabilities
    (an int8 encoder's per-batch activation scales broke this)."""
    rows = [json.loads(line) for line in DEMO.read_text().splitlines()[:12]]
    samples = [Sample(id=f"{r['system']}/{r['id']}", answer=r["answer"], question=r["question"],
                      contexts=tuple(Context(text=c["text"], rank=i + 1) for i, c in enumerate(r["contexts"])))
               for r in rows]
    checker._CACHE.clear()  # embeddings are cached per text: each scoring must encode afresh
    together = grounding.score(samples)
    for s, r in zip(samples[:4], together[:4]):
        checker._CACHE.clear()
        [alone] = grounding.score([s])
        a, b = alone["faithfulness"].details, r["faithfulness"].details
        assert alone["faithfulness"].value == r["faithfulness"].value
        assert a["probability"] == pytest.approx(b["probability"], abs=1e-6)
        assert [v["label"] for v in a["verdicts"]] == [v["label"] for v in b["verdicts"]]
