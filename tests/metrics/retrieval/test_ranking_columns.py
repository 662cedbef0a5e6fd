"""evaluate_many gives, query by query, the very floats ranking.evaluate gives (which the trec_eval, ranx and
ir_measures vectors pin)."""
from __future__ import annotations

import math
import random

from genevals.metrics.retrieval import ranking as rk
from genevals.metrics.retrieval.ranking_columns import evaluate_many

CUTOFFS = (1, 2, 3, 5, 10, 20)


def _queries(n: int, seed: int, pool_size: int = 30, deepest: int = 25, most_labels: int = 12):
    rng = random.Random(seed)
    rankings, qrels = [], []
    for _ in range(n):
        pool = [f"d{j}" for j in range(pool_size)]
        ranking = rng.sample(pool, rng.randint(0, deepest))
        labels = {d: rng.choice([0, 0.5, 1, 1, 2, 3, -1]) for d in rng.sample(pool, rng.randint(0, most_labels))}
        rankings.append(ranking)
        qrels.append(labels)
    return rankings, qrels


def _same_as_query_by_query(rankings, qrels, cutoffs, level):
    got = evaluate_many(rankings, qrels, cutoffs, level)
    for q, (ranking, labels) in enumerate(zip(rankings, qrels)):
        want = rk.evaluate(ranking, labels, cutoffs, level)
        for name, value in want.items():
            column = got[name][q]
            if value is None:
                assert (name == "first_relevant_rank" and column == 0) or (name == "auc" and math.isnan(column))
            else:
                assert column == value, (q, name, column, value)


def test_identical_to_evaluate_query_by_query():
    for level in (1, 2, 0.5):
        rankings, qrels = _queries(600, seed=int(level * 10))
        _same_as_query_by_query(rankings, qrels, CUTOFFS, level)


def test_identical_for_rankings_far_deeper_than_every_cutoff():
    # the @k outputs read only the first max(cutoffs) ranks; map, auc and the first relevant rank are summed over
    # the relevant ranks alone, wherever they are: the same floats as the one-query loop over every rank
    for level, cutoffs in ((1, (1, 3)), (2, (5,)), (0.5, (1, 10, 400))):
        rankings, qrels = _queries(300, seed=7 + int(level * 10), pool_size=400, deepest=300, most_labels=80)
        _same_as_query_by_query(rankings, qrels, cutoffs, level)


def test_empty_batch_and_empty_rankings():
    got = evaluate_many([[], []], [{}, {"a": 1}], (1, 3))
    assert list(got["precision@3"]) == [0.0, 0.0] and list(got["num_relevant"]) == [0, 1]
    assert evaluate_many([], [], (1,))["map"].shape == (0,)
