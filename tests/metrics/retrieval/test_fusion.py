"""Reciprocal rank fusion (genevals.metrics.retrieval.fusion) against a hand calculation of
score(d) = sum_i w_i / (k + rank_i(d)), in exact fractions."""
from fractions import Fraction as F

import pytest

from genevals.metrics.retrieval.fusion import rrf

DENSE = {"q1": ["d1", "d2", "d3"], "q2": ["x"]}
SPARSE = {"q1": ["d3", "d1", "d4"], "q3": ["y", "z"]}


def test_two_runs_fused_by_hand():
    fused = rrf([DENSE, SPARSE])
    # d1: 1/61 + 1/62, d3: 1/63 + 1/61, d2: 1/62, d4: 1/63
    hand = {"d1": F(1, 61) + F(1, 62), "d3": F(1, 63) + F(1, 61), "d2": F(1, 62), "d4": F(1, 63)}
    assert [doc for doc, _ in fused["q1"]] == ["d1", "d3", "d2", "d4"]
    for doc, score in fused["q1"]:  # each term is a rounded double: equal to the exact sum within an ulp or two
        assert score == pytest.approx(float(hand[doc]), rel=1e-15)
    assert list(fused) == ["q1", "q2", "q3"]  # the first run's topics, then those only later runs have
    assert fused["q3"] == [("y", 1 / 61), ("z", 1 / 62)]


def test_weights_and_k_enter_the_formula():
    fused = dict(rrf([DENSE, SPARSE], k=10, weights=[1.0, 3.0])["q1"])
    assert fused["d1"] == pytest.approx(float(F(1, 11) + 3 * F(1, 12)), rel=1e-15)
    assert fused["d4"] == pytest.approx(float(3 * F(1, 13)), rel=1e-15)
    assert [d for d, _ in rrf([DENSE, SPARSE], k=10, weights=[1.0, 3.0])["q1"]] == ["d3", "d1", "d4", "d2"]


def test_ties_are_broken_by_document_id_descending_and_do_not_depend_on_run_order():
    a, b = {"q": ["apple", "pear"]}, {"q": ["pear", "apple"]}
    assert [d for d, _ in rrf([a, b])["q"]] == ["pear", "apple"]  # equal scores: trec_eval's id order
    three = [{"q": ["u", "v", "w"]}, {"q": ["v", "w", "u"]}, {"q": ["w", "u", "v"]}]
    scores = {doc: score for doc, score in rrf(three)["q"]}
    assert scores["u"] == scores["v"] == scores["w"]  # the same terms in another order: an exact tie (fsum)
    assert rrf(three) == rrf(three[::-1])


def test_a_document_listed_twice_in_one_run_counts_once():
    assert rrf([{"q": ["a", "a", "b"]}])["q"] == [("a", 1 / 61), ("b", 1 / 62)]


@pytest.mark.parametrize("k, weights, message", [
    (-1, None, "k must be"), (60, [1.0], "1 weight(s) for 2 run(s)"), (60, [0.0, 0.0], "at least one weight"),
    (60, [1.0, float("nan")], "a weight must be")])
def test_settings_that_cannot_work_are_refused(k, weights, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rrf([DENSE, SPARSE], k=k, weights=weights)


def test_topics_fused_one_at_a_time_are_the_fusion():
    from genevals.metrics.retrieval.fusion import rrf_topics

    runs = [{"q2": ["b", "a"], "q1": ["a"]}, {"q1": ["c", "a"], "q3": ["z"]}]
    assert list(rrf_topics(runs, 0.0, [2.0, 1.0])) == list(rrf(runs, 0.0, [2.0, 1.0]).items())
    assert [topic for topic, _ in rrf_topics(runs)] == ["q2", "q1", "q3"]
