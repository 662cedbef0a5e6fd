"""Fresh and stale decisions, progress, Cohen's kappa between reviewers and the judge's precision, by hand."""
from __future__ import annotations

import pytest

from genevals.review.claims import ReviewClaim, ReviewSample, digest, utf16_to_code_points
from genevals.review.store import Decision
from genevals.review.tally import consensus, stale_reason, tally

ANSWER = "Ferries sail daily. The fare is 4 pounds. Tickets are sold on board. Cars go free."
TEXTS = ["Ferries sail daily.", "The fare is 4 pounds.", "Tickets are sold on board.", "Cars go free."]


def sample() -> ReviewSample:
    claims = []
    for i, t in enumerate(TEXTS):
        start = ANSWER.index(t)
        claims.append(ReviewClaim(i, t, ((start, start + len(t)),), "contradicted" if i < 4 else "supported"))
    claims.append(ReviewClaim(4, "An extra supported claim.", (), "supported"))
    return ReviewSample("dense", "q1", 1, "Q?", ANSWER, ("ctx",), tuple(claims))


SAMPLES = {("dense", "q1"): sample()}
_ids = iter(range(1, 1000))


def d(reviewer, claim, decision, text=None, span=None) -> Decision:
    return Decision(reviewer=reviewer, system="dense", sample_id="q1", decision=decision, claim_index=claim,
                    span=span, digest=digest(text if text is not None else TEXTS[claim] if claim is not None
                                             else ANSWER[span[0]:span[1]]), id=next(_ids))


def test_kappa_and_precision_by_hand():
    # ann: C C F F, bob: C F F F on the four flagged claims.
    # tp = 1, fp = 1, fn = 0, tn = 2: p_o = 3/4, p_e = (2*1 + 2*3)/16 = 1/2, kappa = (3/4 - 1/2)/(1/2) = 0.5.
    # Consensus: claim 0 confirmed, claim 1 a tie (left out), claims 2 and 3 false alarms: precision 1/3.
    decisions = [d("ann", i, lab) for i, lab in enumerate(["confirmed", "confirmed", "false_alarm", "false_alarm"])]
    decisions += [d("bob", i, lab) for i, lab in enumerate(["confirmed", "false_alarm", "false_alarm", "false_alarm"])]
    state = tally(decisions, SAMPLES)
    [pair] = state["agreement"]
    assert (pair["a"], pair["b"], pair["n"], pair["agree"]) == ("ann", "bob", 4, 3)
    assert pair["kappa"] == pytest.approx(0.5)
    sk = pytest.importorskip("sklearn.metrics")
    assert pair["kappa"] == pytest.approx(sk.cohen_kappa_score([1, 1, 0, 0], [1, 0, 0, 0]))
    assert state["precision"]["precision"] == pytest.approx(1 / 3) and state["precision"]["n"] == 3
    low, high = state["precision"]["ci95"]
    assert 0 <= low <= 1 / 3 <= high <= 1
    assert state["progress"] == {"reviewed": 4, "flagged": 4}


def test_unsure_is_left_out_of_kappa_and_progress_counts_claims_not_decisions():
    decisions = [d("ann", 0, "unsure"), d("bob", 0, "confirmed"), d("ann", 1, "confirmed"), d("ann", 1, "confirmed")]
    state = tally(decisions, SAMPLES)
    [pair] = state["agreement"]
    assert pair["n"] == 0 and pair["unsure"] == 1 and pair["kappa"] is None
    assert state["progress"] == {"reviewed": 2, "flagged": 4}
    assert state["precision"]["n"] == 2 and state["precision"]["precision"] == 1.0
    assert consensus([]) is None


def test_a_decision_on_a_changed_claim_is_stale_and_not_counted():
    changed = d("ann", 1, "confirmed", text="The fare is 3 pounds.")
    gone = Decision(reviewer="ann", system="dense", sample_id="q1", decision="confirmed", claim_index=9, digest="x",
                    id=next(_ids))
    other = Decision(reviewer="ann", system="sparse", sample_id="q1", decision="confirmed", claim_index=0, digest="x",
                     id=next(_ids))
    start = ANSWER.index("4 pounds")
    mark = d("bob", None, "missed", span=(start, start + 8))
    moved = Decision(reviewer="bob", system="dense", sample_id="q1", decision="missed", span=(0, 8),
                     digest=digest("4 pounds"), id=next(_ids))
    assert "changed" in stale_reason(changed, SAMPLES)
    assert "no longer" in stale_reason(gone, SAMPLES) and "sample" in stale_reason(other, SAMPLES)
    assert stale_reason(mark, SAMPLES) == "" and "answer changed" in stale_reason(moved, SAMPLES)
    state = tally([changed, gone, other, mark, moved], SAMPLES)
    assert state["stale"] == 4 and state["missed"] == 1 and state["progress"]["reviewed"] == 0
    page = {x["id"]: x for x in state["decisions"]}
    assert page[mark.id]["span"] == [start, start + 8] and page[mark.id]["text"] == "4 pounds"


def test_utf16_offsets_map_back_to_code_points():
    text = "a\U0001F600b c"
    to_cp = utf16_to_code_points(text)
    assert [to_cp(i) for i in range(6)] == [0, 1, None, 2, 3, 4]
    assert to_cp(7) is None
