"""The local grounding metric (MiniLM alignment + rules): hand-written cases, the faithfulness details contract,
and spans and quotes on RAGTruth rows."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from genevals import types
from genevals.grounding import checker
from genevals.metrics.faithfulness.grounding import Grounding, response_confidence
from genevals.types import Context, Sample

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
RAGTRUTH = SHARED / "datasets" / "ragtruth_dev.jsonl"


@pytest.fixture(scope="module")
def grounding():
    """The hand-set rule checker (method "rules"); the learned default is tested in tests/grounding."""
    return Grounding(method="rules")


def _sample(answer, *contexts, question="", sid="s"):
    return Sample(id=sid, answer=answer, question=question,
                  contexts=tuple(Context(text=c, rank=i + 1) for i, c in enumerate(contexts)))


def _verdicts(result):
    return result["faithfulness"].details["verdicts"]


# -- without the model ---------------------------------------------------------------------------------------
def test_response_confidence():
    # flagged: the surest flag; all supported: the least sure support; no claims: 0.5
    assert response_confidence(["supported", "unverifiable", "contradicted"], [0.99, 0.7, 0.85]) == 0.85
    assert response_confidence(["supported", "supported"], [0.95, 0.6]) == 0.6
    assert response_confidence([], []) == 0.5


def test_settings_thresholds_and_signature(tmp_path):
    inline = Grounding(thresholds={"text": {"threshold": 0.8}}, method="rules")
    rules = Grounding(method="rules")
    assert inline.thresholds["text"]["threshold"] == 0.8
    assert inline.thresholds["record"] == checker.load_thresholds()["record"]
    assert inline.thresholds_source == "inline" and rules.thresholds_source == "packaged"
    assert inline.signature() != rules.signature()
    assert rules.signature().startswith("grounding|model:all-MiniLM-L6-v2|thresholds:")
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"text": {"threshold": 0.3}}))
    assert Grounding(thresholds=str(path), method="rules").thresholds_source == str(path)
    with pytest.raises(ValueError, match="batch_size"):
        Grounding(batch_size=0)
    with pytest.raises(FileNotFoundError):
        Grounding(thresholds=str(tmp_path / "missing.json"), method="rules")
    with pytest.raises(ValueError, match="thresholds apply to method 'rules'"):
        Grounding(thresholds={"text": {"threshold": 0.8}})


# -- hand-written cases --------------------------------------------------------------------------------------
def test_contradicted_number(grounding):
    ctx = "The Harbour Bridge opened in 1932. It is 503 metres long and carries eight lanes of traffic."
    [r] = grounding.score([_sample("The Harbour Bridge opened in 1935.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.CONTRADICTED and v["confidence"] == 0.85
    assert v["reason"] == ("number(s) 1935 not in the contexts; the aligned evidence gives other numbers")
    assert v["quote"] == "The Harbour Bridge opened in 1932." and v["quote_span"] == [0, 34]
    assert (r["faithfulness"].value, r["contradiction_rate"].value, r["unverifiable_rate"].value) == (0.0, 1.0, 0.0)
    assert r["faithfulness"].details["confidence"] == 0.85


def test_unsupported_entity(grounding):
    ctx = "Maria Lopez founded the bakery in Lyon in the spring. The bakery sells bread and pastries."
    [r] = grounding.score([_sample("Maria Lopez founded the bakery with her partner Pierre Dubois.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.UNVERIFIABLE and v["confidence"] == 0.7
    assert v["reason"] == "name(s) Pierre, Dubois appear nowhere in the contexts or question"
    assert (r["faithfulness"].value, r["unverifiable_rate"].value) == (0.0, 1.0)


def test_supported_paraphrase(grounding):
    ctx = ("The company reported a sharp increase in profits last year. Its chief executive said demand "
           "in Asia had driven the growth.")
    [r] = grounding.score([_sample("Last year the company's profits rose sharply.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.SUPPORTED, v["reason"]
    assert v["quote"] == "The company reported a sharp increase in profits last year."
    assert r["faithfulness"].value == 1.0 and 0.5 <= v["confidence"] <= 1.0
    # support = 0.5 * similarity + 0.25 * aligned recall + 0.25 * overall recall, with the packaged weights
    t = grounding.thresholds["text"]
    assert v["support"] == pytest.approx(t["w_sim"] * v["similarity"] + t["w_top"] * v["recall_aligned"]
                                         + t["w_all"] * v["recall_all"], abs=1e-3)
    assert v["support"] >= t["threshold"]


def test_record_field_conflict(grounding):
    ctx = json.dumps({"name": "Finch & Fork", "attributes": {"OutdoorSeating": False, "WiFi": "free"}})
    [r] = grounding.score([_sample("Finch & Fork offers outdoor seating and free WiFi.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.CONTRADICTED and v["confidence"] == 0.9
    assert v["reason"] == "the claim asserts 'OutdoorSeating', which the record gives as false"
    assert v["quote"] == '"OutdoorSeating": false' and ctx[slice(*v["quote_span"])] == v["quote"]
    assert r["faithfulness"].details["judge"]["context_kind"] == "record"


def test_unscored_statuses(grounding):
    results = grounding.score([_sample("", "ctx"), _sample("I don't know.", "ctx"), _sample("An answer here.", ""),
                               _sample("Yes.", "Some context text.")])
    statuses = [r["faithfulness"].status for r in results]
    assert statuses == [types.EMPTY_ANSWER, types.REFUSAL, types.NO_CONTEXT, types.NO_CLAIMS]
    assert results[1]["faithfulness"].reason == "the answer abstains ('I don't know'); nothing to check"
    for r in results:
        assert all(m.value is None and m.reason for m in r.values())
        assert r["faithfulness"].details["judge"]["backend"] == "local-grounding"
        assert r["faithfulness"].details["usage"] == {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                                      "cost_usd": 0.0}


def test_details_contract(grounding):
    ctx = "Paris is the capital of France. It has about 2.1 million residents."
    answer = "Paris is the capital of France. It has 9 million residents."
    [r] = grounding.score([_sample(answer, ctx)])
    d = r["faithfulness"].details
    assert set(r) == {"faithfulness", "contradiction_rate", "unverifiable_rate"}
    assert d["judge"]["backend"] == "local-grounding" and d["judge"]["model"] == "all-MiniLM-L6-v2"
    assert d["judge"]["context_kind"] == "text" and d["judge"]["thresholds"] == "packaged"
    assert [(c["text"], c["spans"], c["located"]) for c in d["claims"]] == [
        ("Paris is the capital of France.", [[0, 31]], True), ("It has 9 million residents.", [[32, 59]], True)]
    for v in d["verdicts"]:
        assert set(v) == {"claim_index", "label", "context_index", "quote", "quote_found", "quote_span", "reason",
                          "missing", "confidence", "support", "similarity", "recall_aligned", "recall_all"}
    assert [v["label"] for v in d["verdicts"]] == [types.SUPPORTED, types.CONTRADICTED]
    assert d["counts"] == {"supported": 1, "contradicted": 1, "unverifiable": 0, "missing": 0}
    assert (r["faithfulness"].value, r["contradiction_rate"].value) == (0.5, 0.5)
    # flagged answer: its confidence is the surest flag's, the number conflict's 0.85
    assert d["confidence"] == 0.85


@pytest.mark.skipif(not RAGTRUTH.exists(), reason="../shared/datasets/ragtruth_dev.jsonl absent")
@pytest.mark.parametrize("method", ["rules", "learned"])
def test_spans_and_quotes_on_ragtruth(method):
    grounding = Grounding(method=method)
    rows = [json.loads(line) for line in RAGTRUTH.read_text().splitlines()[:30]]
    samples = [_sample(r["response"], r["context"], question=r["question"] or "", sid=str(r["id"])) for r in rows]
    results = grounding.score(samples)
    scored = 0
    for s, r in zip(samples, results):
        faith = r["faithfulness"]
        if faith.status != types.OK:
            continue
        scored += 1
        d = faith.details
        for c in d["claims"]:
            [(start, end)] = c["spans"]
            assert s.answer[start:end] == c["text"]
        for v in d["verdicts"]:
            if v.get("answer_span"):  # the flagged phrase lies inside its claim
                [(start, end)] = d["claims"][v["claim_index"]]["spans"]
                assert start <= v["answer_span"][0] < v["answer_span"][1] <= end
            if v["quote_found"]:
                ctx = s.contexts[v["context_index"]].text
                assert ctx[v["quote_span"][0]:v["quote_span"][1]] == v["quote"]
    assert scored >= 25
