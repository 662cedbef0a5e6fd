"""The records of the results schema: a value only with status ok, and claims and verdicts that round-trip
through their dicts (and say which field is wrong when they cannot)."""
import dataclasses

import pytest

from genevals.types import Claim, Context, MetricResult, Sample, Verdict


def test_metric_result_keeps_a_value_only_when_ok():
    with pytest.raises(ValueError, match="needs a value"):
        MetricResult("m", None)
    with pytest.raises(ValueError, match="must not carry a value"):
        MetricResult("m", 0.5, status="no_claims", reason="none")
    with pytest.raises(ValueError, match="needs a reason"):
        MetricResult("m", None, status="no_claims")
    r = MetricResult.unscored("m", "judge_error", "timeout", transcript=[])
    assert r.to_dict() == {"value": None, "status": "judge_error", "reason": "timeout", "details": {"transcript": []}}
    assert MetricResult.from_dict("m", r.to_dict()) == r


def test_context_to_dict_is_asdict_field_for_field_in_order():
    # results.jsonl and the manifest's input digest were written with dataclasses.asdict: byte for byte the same
    for context in (Context("t", 3), Context("t\u00e9", 1, id="c1", doc_id="d", score=0.25)):
        assert list(context.to_dict().items()) == list(dataclasses.asdict(context).items())
    assert set(Context.__dataclass_fields__) == set(Context("x", 1).to_dict())  # a new field must be added there
    for args in (("t", 3), ("t", 1, "c1", "d", 0.25), ("t", 2, None, "d", 1)):
        fast, slow = Context.checked(*args), Context(*args)
        assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
        assert fast.to_dict() == slow.to_dict() and vars(fast) == vars(slow)
        with pytest.raises(dataclasses.FrozenInstanceError):
            fast.rank = 5
    sample = Sample("1", "a", contexts=(Context("t", 1, id="c"),))
    assert sample.to_dict()["contexts"] == [dataclasses.asdict(sample.contexts[0])]


def test_claims_round_trip():
    claim = Claim(2, "Paris is in France.", ((0, 5), (9, 15)), located=False, note="not in the answer")
    d = claim.to_dict()
    assert d == {"index": 2, "text": "Paris is in France.", "spans": [[0, 5], [9, 15]], "located": False,
                 "status": "invented", "note": "not in the answer"}  # a claim not located is the judge's invention
    assert Claim.from_dict(d) == claim
    assert "note" not in Claim(0, "x").to_dict()


def test_verdicts_round_trip_with_their_extra_scores_last():
    verdict = Verdict(1, "contradicted", 0, "aged 66", True, (10, 17), "66, not 120",
                      scores={"confidence": 0.85, "support": 0.4})
    d = verdict.to_dict()
    assert list(d) == ["claim_index", "label", "context_index", "quote", "quote_found", "quote_span", "reason",
                       "missing", "confidence", "support"]
    assert Verdict.from_dict(d) == verdict
    assert Verdict.from_dict({"claim_index": 0, "label": "supported"}) == Verdict(0, "supported")


@pytest.mark.parametrize("bad, field", [
    ({"index": "0", "text": "x"}, "claim index"), ({"index": 0, "text": 5}, "claim text"),
    ({"index": 0, "text": "x", "spans": [[0]]}, "claim span"), ({"index": True, "text": "x"}, "claim index"),
    ("x", "claim"),
])
def test_bad_claims_name_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        Claim.from_dict(bad)


@pytest.mark.parametrize("bad, field", [
    ({"claim_index": 0, "label": "maybe"}, "verdict label"),
    ({"claim_index": None, "label": "supported"}, "verdict claim_index"),
    ({"claim_index": 0, "label": "supported", "quote_span": [1, "2"]}, "verdict quote_span"),
    ({"claim_index": 0, "label": "supported", "context_index": 1.5}, "verdict context_index"),
])
def test_bad_verdicts_name_the_field(bad, field):
    with pytest.raises(ValueError, match=field):
        Verdict.from_dict(bad)
