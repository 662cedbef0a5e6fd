"""TREC pooling: each run's top ``depth`` documents per topic, their union in a stable order."""
import pytest

from genevals.labels import pool


def test_the_pool_is_the_union_of_each_runs_top_depth_in_a_stable_order():
    runs = {"bm25": {"q1": ["d1", "d2", "d3"], "q2": ["d9"]}, "dense": {"q1": ["d3", "d4", "d1"], "q3": ["d5", "d6"]}}
    pooled = pool(runs, depth=2)
    assert pooled == {"q1": ["d1", "d2", "d3", "d4"], "q2": ["d9"], "q3": ["d5", "d6"]}
    assert list(pooled) == ["q1", "q2", "q3"]  # topics as they first appear
    assert (pooled.depth, pooled.runs, pooled.pairs) == (2, ["bm25", "dense"], 7)
    assert pool(runs, depth=1) == {"q1": ["d1", "d3"], "q2": ["d9"], "q3": ["d5"]}
    assert pool(runs, depth=2) == pooled  # the same runs give the same pool: the same judge requests


@pytest.mark.parametrize("depth", [0, -1, 2.5, True, "10"])
def test_a_depth_that_is_not_a_whole_number_from_1_is_refused_with_the_value(depth):
    with pytest.raises(ValueError, match=r"depth: the pool depth must be a whole number of at least 1, got"):
        pool({"r": {"q": ["d"]}}, depth)
