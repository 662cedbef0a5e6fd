"""The calibration figures validate adds for a judge that gives a probability (the local detector), and the
flagged phrase (answer_span) standing in for its claim's span at span level; hand-calculated values."""
from __future__ import annotations

import pytest

from genevals.types import Verdict
from genevals.validation.core import RowOutcome, Rule, calibration_report, predicted_spans


def _outcome(p, gold, pred):
    return RowOutcome(row={"response": "x"}, gold=gold, status="ok", pred=pred, details={"probability": p})


def test_ece_and_settle_shares_by_hand():
    rows = [_outcome(0.05, False, False), _outcome(0.15, True, False), _outcome(0.95, True, True),
            _outcome(0.75, False, True)]
    rep = calibration_report(rows)
    # bins [0, .1): p .05, y 0 -> |.05| x 1/4; [.1, .2): .15 vs 1 -> .85/4; [.9, 1]: .95 vs 1 -> .05/4;
    # [.7, .8): .75 vs 0 -> .75/4
    assert rep["ece"] == pytest.approx((0.05 + 0.85 + 0.05 + 0.75) / 4)
    assert rep["n"] == 4
    # confidence max(p, 1 - p): .95, .85, .95, .75 -> at 0.8 three are settled, two of them right
    at = {s["settle_confidence"]: s for s in rep["cascade_settle"]}
    assert at[0.8]["settled_local_share"] == pytest.approx(0.75)
    assert at[0.8]["accuracy_settled"] == pytest.approx(2 / 3)
    assert at[0.9]["settled_local_share"] == pytest.approx(0.5)


def test_no_probability_no_calibration():
    assert calibration_report([RowOutcome(row={}, gold=True, status="ok", pred=True)]) is None


def test_answer_span_round_trip_and_span_level():
    v = Verdict(claim_index=0, label="unverifiable", answer_span=(10, 14))
    assert v.to_dict()["answer_span"] == [10, 14] and Verdict.from_dict(v.to_dict()) == v
    assert "answer_span" not in Verdict(claim_index=0, label="supported").to_dict()
    details = {"claims": [{"index": 0, "text": "a b c", "spans": [[0, 30]], "located": True},
                          {"index": 1, "text": "d e f", "spans": [[31, 50]], "located": True}],
               "verdicts": [v.to_dict(), {"claim_index": 1, "label": "contradicted"}]}
    # the phrase replaces its claim's span; a verdict without one flags its whole claim
    assert predicted_spans(details, Rule("any")) == [(10, 14), (31, 50)]
