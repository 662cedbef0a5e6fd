"""The RAG judge formulas against values worked out by hand."""
from __future__ import annotations

import pytest

from genevals.metrics.rag_formulas import claim_scores, context_precision, share


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
    # 3 answer claims in the reference, 1 not; 2 reference claims missed
    s = claim_scores(tp=3, fp=1, fn=2)
    assert s["precision"] == pytest.approx(3 / 4)
    assert s["recall"] == pytest.approx(3 / 5)
    assert s["f1"] == pytest.approx(3 / (3 + 0.5 * 3))  # = 2/3
    p, r = s["precision"], s["recall"]
    assert s["f1"] == pytest.approx(2 * p * r / (p + r))
    assert claim_scores(0, 2, 1) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert claim_scores(0, 0, 0) == {"precision": None, "recall": None, "f1": None}


def test_share():
    assert share([True, False, True, False]) == 0.5
    with pytest.raises(ValueError):
        share([])
