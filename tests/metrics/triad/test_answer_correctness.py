"""answer_correctness (LLM judge) through the ScriptedProvider: claim-level TP/FP/FN, P/R/F1, spans."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.triad.answer_correctness import AnswerCorrectness
from genevals.types import Sample

ANSWER = "The crossing takes 55 minutes. Tickets cost 20 crowns. It sails hourly."
REFERENCE = "The crossing takes 55 minutes. Tickets cost 18 crowns. Dogs travel free."
SAMPLE = Sample("s", ANSWER, "Tell me about the ferry.", references=(REFERENCE,))
REPLY = {
    "answer_claims": [
        {"claim": "The crossing takes 55 minutes.", "source": "The crossing takes 55 minutes", "in_reference": True},
        {"claim": "Tickets cost 20 crowns.", "source": "Tickets cost 20 crowns", "in_reference": False},
        {"claim": "The ferry sails hourly.", "source": "It sails hourly", "in_reference": False},
    ],
    "reference_claims": [
        {"claim": "The crossing takes 55 minutes.", "source": "The crossing takes 55 minutes", "in_answer": True},
        {"claim": "Tickets cost 18 crowns.", "source": "Tickets cost 18 crowns", "in_answer": False},
        {"claim": "Dogs travel free.", "source": "Dogs travel free", "in_answer": False},
    ]}


def judged(reply):
    provider = ScriptedProvider({"answer_correctness": reply})
    return AnswerCorrectness(JudgeConfig(provider=provider, cache=False)), provider


def test_tp_fp_fn_and_scores_by_hand():
    metric, provider = judged(REPLY)
    out = metric.score([SAMPLE])[0]
    # answer: TP 1, FP 2 -> P = 1/3; reference: found 1, FN 2 -> R = 1/3; F1 = 2PR / (P + R) = 1/3
    assert out["answer_correctness"].details["counts"] == {"tp": 1, "fp": 2, "found": 1, "fn": 2}
    assert out["answer_correctness_precision"].value == pytest.approx(1 / 3)
    assert out["answer_correctness_recall"].value == pytest.approx(1 / 3)
    assert out["answer_correctness"].value == pytest.approx(1 / 3)
    d = out["answer_correctness"].details
    assert [c["label"] for c in d["answer_claims"]] == ["tp", "fp", "fp"]
    assert [c["label"] for c in d["reference_claims"]] == ["found", "fn", "fn"]
    assert d["answer_claims"][1]["spans"] == [[31, 53]] and ANSWER[31:53] == "Tickets cost 20 crowns"
    assert d["reference_claims"][2]["spans"] == [[55, 71]] and REFERENCE[55:71] == "Dogs travel free"
    assert d["missed"] == ["Tickets cost 18 crowns.", "Dogs travel free."]
    assert len(provider.calls) == 1


def test_asymmetric_counts():
    reply = {"answer_claims": REPLY["answer_claims"][:1] + [dict(REPLY["answer_claims"][2], in_reference=True)],
             "reference_claims": REPLY["reference_claims"]}
    out = judged(reply)[0].score([SAMPLE])[0]
    # answer: TP 2, FP 0 -> P = 1; reference: found 1, FN 2 -> R = 1/3; F1 = 2 * 1/3 / (4/3) = 1/2
    assert out["answer_correctness_precision"].value == 1.0
    assert out["answer_correctness_recall"].value == pytest.approx(1 / 3)
    assert out["answer_correctness"].value == pytest.approx(0.5)


@pytest.mark.parametrize("sample,status", [
    (Sample("e", "", "q", references=(REFERENCE,)), types.EMPTY_ANSWER),
    (Sample("r", "I cannot answer that from the context.", "q", references=(REFERENCE,)), types.REFUSAL),
    (Sample("n", ANSWER, "q"), types.EMPTY_REFERENCE),
])
def test_statuses_without_calls(sample, status):
    metric, provider = judged(REPLY)
    out = metric.score([sample])[0]
    assert {r.status for r in out.values()} == {status} and provider.calls == []


def test_no_located_claim_on_one_side_is_no_claims():
    reply = {"answer_claims": REPLY["answer_claims"], "reference_claims": [
        {"claim": "Invented.", "source": "words not in the reference at all", "in_answer": True}]}
    r = judged(reply)[0].score([SAMPLE])[0]["answer_correctness"]
    assert r.status == types.NO_CLAIMS and "reference" in r.reason
