"""The local grounding checker and metric: hand-written cases, the faithfulness details contract, spans and
quotes on RAGTruth rows, and the cascade's routing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from genevals import types
from genevals.grounding import checker, entities
from genevals.types import Context, MetricResult, Sample

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RAGTRUTH = SHARED / "datasets" / "ragtruth_dev.jsonl"


@pytest.fixture(scope="module")
def grounding():
    from genevals.metrics.grounding import Grounding

    return Grounding()


def _sample(answer, *contexts, question="", sid="s"):
    return Sample(id=sid, answer=answer, question=question,
                  contexts=tuple(Context(text=c, rank=i + 1) for i, c in enumerate(contexts)))


def _verdicts(result):
    return result["faithfulness"].details["verdicts"]


# -- pure helpers -----------------------------------------------------------------------------------------
def test_numbers_and_entities():
    assert [n for n, _, _ in entities.numbers_in("It cost $1,500.00 in 2014, up 4.0%")] == ["1500", "2014", "4"]
    assert {"5", "17", "30"} <= entities.number_forms("open 17:30-21:0, five days")
    names = [w for w, _, _ in entities.entities_in("The report, written by Jane Doe in Paris, was late.")]
    assert names == ["Jane", "Doe", "Paris"]
    fields = entities.record_fields('{"name": "X", "attributes": {"OutdoorSeating": false, "WiFi": "free", '
                                    '"RestaurantsReservations": null}}')
    by_key = {f.key: f for f in fields}
    assert by_key["OutdoorSeating"].value is False and by_key["WiFi"].value is True
    assert by_key["RestaurantsReservations"].value is None
    mentions = entities.field_mentions("There is no outdoor seating but free wifi.", fields)
    assert {(f.key, neg) for f, neg in mentions} == {("OutdoorSeating", True), ("WiFi", False)}


def test_split_claims_spans_are_exact():
    answer = "Based on the passages, the benefits include:\n\n* Cleaner teeth and gums (Passage 1)\n" \
             "* Much less plaque. Fresher breath overall.\nOk."
    spans = checker.split_claims(answer)
    texts = [answer[s:e] for s, e in spans]
    assert texts == ["Cleaner teeth and gums (Passage 1)", "Much less plaque.", "Fresher breath overall."]


# -- hand-written cases -----------------------------------------------------------------------------------
def test_contradicted_number(grounding):
    ctx = "The Harbour Bridge opened in 1932. It is 503 metres long and carries eight lanes of traffic."
    [r] = grounding.score([_sample("The Harbour Bridge opened in 1935.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.CONTRADICTED and "1935" in v["reason"]
    assert v["quote"] == "The Harbour Bridge opened in 1932." and ctx[slice(*v["quote_span"])] == v["quote"]
    assert r["faithfulness"].value == 0.0 and r["contradiction_rate"].value == 1.0


def test_unsupported_entity(grounding):
    ctx = "Maria Lopez founded the bakery in Lyon in the spring. The bakery sells bread and pastries."
    [r] = grounding.score([_sample("Maria Lopez founded the bakery with her partner Pierre Dubois.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.UNVERIFIABLE and "Pierre" in v["reason"]
    assert r["unverifiable_rate"].value == 1.0


def test_supported_paraphrase(grounding):
    ctx = ("The company reported a sharp increase in profits last year. Its chief executive said demand "
           "in Asia had driven the growth.")
    [r] = grounding.score([_sample("Last year the company's profits rose sharply.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.SUPPORTED, v["reason"]
    assert r["faithfulness"].value == 1.0 and 0.5 <= v["confidence"] <= 1.0


def test_record_field_conflict(grounding):
    ctx = json.dumps({"name": "Finch & Fork", "attributes": {"OutdoorSeating": False, "WiFi": "free"}})
    [r] = grounding.score([_sample("Finch & Fork offers outdoor seating and free WiFi.", ctx)])
    [v] = _verdicts(r)
    assert v["label"] == types.CONTRADICTED and "OutdoorSeating" in v["reason"]
    assert v["quote"] == '"OutdoorSeating": false'


def test_unscored_statuses(grounding):
    results = grounding.score([_sample("", "ctx"), _sample("I don't know.", "ctx"), _sample("An answer here.", ""),
                               _sample("Yes.", "Some context text.")])
    statuses = [r["faithfulness"].status for r in results]
    assert statuses == [types.EMPTY_ANSWER, types.REFUSAL, types.NO_CONTEXT, types.NO_CLAIMS]
    for r in results:
        assert r["faithfulness"].value is None and r["faithfulness"].reason
        assert r["faithfulness"].details["judge"]["backend"] == "local-grounding"


def test_details_contract(grounding):
    ctx = "Paris is the capital of France. It has about 2.1 million residents."
    [r] = grounding.score([_sample("Paris is the capital of France. It has 9 million residents.", ctx)])
    d = r["faithfulness"].details
    assert set(r) == {"faithfulness", "contradiction_rate", "unverifiable_rate"}
    assert d["judge"]["backend"] == "local-grounding" and d["judge"]["model"] == "all-MiniLM-L6-v2"
    assert {"requests", "prompt_tokens", "completion_tokens"} <= set(d["usage"])
    for c in d["claims"]:
        assert set(c) >= {"index", "text", "spans", "located"}
    for v in d["verdicts"]:
        assert set(v) >= {"claim_index", "label", "context_index", "quote", "quote_found", "quote_span", "reason",
                          "missing", "confidence"}
    assert [v["label"] for v in d["verdicts"]] == [types.SUPPORTED, types.CONTRADICTED]
    assert 0.5 <= d["confidence"] <= 1.0


@pytest.mark.skipif(not RAGTRUTH.exists(), reason="../shared/datasets/ragtruth_dev.jsonl absent")
def test_spans_and_quotes_on_ragtruth(grounding):
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
            if v["quote_found"]:
                ctx = s.contexts[v["context_index"]].text
                assert ctx[v["quote_span"][0]:v["quote_span"][1]] == v["quote"]
    assert scored >= 25


# -- cascade ------------------------------------------------------------------------------------------------
class _FakeJudge:
    def __init__(self, fail=False):
        self.seen, self.fail = [], fail

    def signature(self):
        return "fake"

    def score_each(self, samples, emit):  # as Metric's default: the batch, then each in order
        for index, outputs in enumerate(self.score(samples)):
            emit(index, outputs)

    def score(self, samples):
        self.seen += [s.id for s in samples]
        out = []
        for s in samples:
            if self.fail:
                out.append({n: MetricResult.unscored(n, types.JUDGE_ERROR, "down")
                            for n in ("faithfulness", "contradiction_rate", "unverifiable_rate")})
            else:
                out.append({"faithfulness": MetricResult("faithfulness", 1.0, details={"usage": {"requests": 2}}),
                            "contradiction_rate": MetricResult("contradiction_rate", 0.0),
                            "unverifiable_rate": MetricResult("unverifiable_rate", 0.0)})
        return out


def test_cascade_routes_by_confidence():
    from genevals.metrics.cascade import Cascade

    ctx = "The Harbour Bridge opened in 1932. It is 503 metres long."
    samples = [_sample("The Harbour Bridge opened in 1932.", ctx, sid="clear"),
               _sample("I don't know.", ctx, sid="refusal"),
               _sample("The bridge is a popular place for weddings and concerts.", ctx, sid="unsure")]
    judge = _FakeJudge()
    everything = Cascade(settle_confidence=1.0, judge=judge).score(samples)
    assert judge.seen == ["clear", "unsure"]  # refusals never go to the LLM
    assert [r["faithfulness"].details["cascade"]["settled_by"] for r in everything] == ["llm", "local", "llm"]
    judge = _FakeJudge()
    cascade = Cascade(settle_confidence=0.5, judge=judge)
    results = cascade.score(samples)
    assert judge.seen == [] and all(r["faithfulness"].details["cascade"]["settled_by"] == "local" for r in results)
    totals = cascade.corpus_scores(results)
    assert totals["cascade_settled_local"] == 3 and totals["cascade_sent_to_llm"] == 0
    failing = Cascade(settle_confidence=1.0, judge=_FakeJudge(fail=True)).score(samples[:1])
    c = failing[0]["faithfulness"].details["cascade"]
    assert c["settled_by"] == "local" and c["sent_to_llm"] and "judge_error" in c["fallback"]
    with pytest.raises(ValueError):
        Cascade(settle_confidence=0.2)
