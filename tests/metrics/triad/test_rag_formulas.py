"""The RAG judge formulas against values worked out by hand."""
from __future__ import annotations

import pytest

from genevals.metrics.triad.rag_formulas import claim_scores, context_precision, share


def test_context_precision_on_a_ranking_worked_by_hand():
    # v = 1 0 1 1 0: precision@1 = 1, @3 = 2/3, @4 = 3/4 at the relevant ranks; 3 relevant
    assert context_precision([True, False, True, True, False]) == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    assert context_precision([True, False, True, True, False]) == pytest.approx(0.805556, abs=1e-6)
    # K = 3 keeps 1 0 1: (1 + 2/3) / 2
    assert context_precision([True, False, True, True, False], k=3) == pytest.approx(5 / 6)
    # relevance late in the ranking is worth less: 0 0 1 -> 1/3; 0 1 -> 1/2
    assert context_precision([False, False, True]) == pytest.approx(1 / 3)
    assert context_precision([False, True]) == pytest.approx(0.5)
    assert context_precision([True, True, True]) == 1.0
    assert context_precision([False, False]) == 0.0  # nothing relevant in the top K
    with pytest.raises(ValueError):
        context_precision([])


def test_claim_level_precision_recall_f1_by_hand():
    # answer: 3 claims in the reference, 1 not; reference: 3 claims found in the answer, 2 missed
    s = claim_scores(tp=3, fp=1, found=3, fn=2)
    assert s["precision"] == pytest.approx(3 / 4)
    assert s["recall"] == pytest.approx(3 / 5)
    assert s["f1"] == pytest.approx(2 * (3 / 4) * (3 / 5) / (3 / 4 + 3 / 5))  # = 2/3
    assert s["f1"] == pytest.approx(2 / 3)
    # one answer claim covering two reference claims: P = 1/1, R = 2/3 (ragas' TP / (TP + FN) would say 1/2)
    assert claim_scores(tp=1, fp=0, found=2, fn=1) == pytest.approx({"precision": 1.0, "recall": 2 / 3, "f1": 0.8})
    assert claim_scores(0, 2, 0, 1) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    # nothing the answer says is in the reference, but the answer covers the reference: P 0, R 1
    assert claim_scores(0, 1, 1, 0) == {"precision": 0.0, "recall": 1.0, "f1": 0.0}
    assert claim_scores(0, 0, 0, 0) == {"precision": None, "recall": None, "f1": None}


def test_share():
    assert share([True, False, True, False]) == 0.5
    with pytest.raises(ValueError):
        share([])


def test_agreement_with_relevance_labels_by_hand():
    from genevals.metrics.triad.rag_formulas import label_agreement, label_statistics
    from genevals.types import MetricResult

    chunks = [{"score": 1.0, "label": 2, "relevant": True}, {"score": 0.5, "label": 0, "relevant": True},
              {"score": 0.0, "label": 1, "relevant": False}, {"score": 0.0, "label": 0, "relevant": False},
              {"score": 1.0, "label": None, "relevant": True}]  # no labels for this one: left out
    stats = label_statistics(MetricResult("context_relevance", 0.6, details={"chunks": chunks}))
    a = label_agreement(stats)
    # positives score 1 and 0, negatives 0.5 and 0: pairs 1>0.5, 1>0, 0<0.5, 0=0 (a half) -> 2.5 / 4
    assert a["context_relevance_label_auc"] == pytest.approx(0.625)
    # tp 1, fp 1, fn 1, tn 1
    assert a["context_relevance_label_precision"] == a["context_relevance_label_recall"] == 0.5
    assert a["context_relevance_label_f1"] == 0.5 and a["context_relevance_label_chunks"] == 4
    assert label_agreement(label_statistics(MetricResult("x", 1.0, details={"chunks": chunks[:1]}))) == {}
