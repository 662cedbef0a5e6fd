"""genevals.stats.comparisons: the paired comparisons, the headline choice and the leaderboard, on small cases worked
out by hand."""
import numpy as np
import pytest

from genevals.stats import comparisons as cmp
from genevals.keys import id_digest
from genevals.stats import paired_comparison_of_differences


def values(**systems):
    """system -> {metric: {id: value}} from system -> {metric: [values for q0, q1, ...]}."""
    return {s: {m: {f"q{i}": v for i, v in enumerate(vals)} for m, vals in metrics.items()}
            for s, metrics in systems.items()}


def test_a_planted_difference_is_significant_with_the_right_sign():
    # a beats b by exactly 0.5 on each of 20 questions: every resample's mean is 0.5, none reaches 0, so
    # p is the smallest the bootstrap can say, 1/5000, and the CI is [0.5, 0.5]
    got = cmp.compare_named(values(a={"m": [1.0] * 20}, b={"m": [0.5] * 20}), ["a", "b"], ["m"], seed=7)
    assert got == [{"metric": "m", "a": "a", "b": "b", "n_pairs": 20, "mean_a": 1.0, "mean_b": 0.5,
                    "mean_difference": 0.5, "ci95": [0.5, 0.5], "p_value": 0.0002, "significant": True,
                    "test": "paired bootstrap, 5000 resamples, seed 7"}]
    flipped = cmp.compare_named(values(b={"m": [1.0] * 20}, a={"m": [0.5] * 20}), ["a", "b"], ["m"], seed=7)
    assert flipped[0]["mean_difference"] == -0.5 and flipped[0]["significant"]


def test_equal_systems_are_not_significant():
    same = [0.1, 0.9, 0.4, 0.6] * 5
    got = cmp.compare_named(values(a={"m": same}, b={"m": same}), ["a", "b"], ["m"])[0]
    # every difference is 0: every resample mean is 0, on both sides of 0, so p = 1
    assert got["mean_difference"] == 0 and got["p_value"] == 1.0 and not got["significant"]
    assert got["ci95"] == [0.0, 0.0]


def test_noise_around_zero_is_not_significant_and_matches_the_bootstrap():
    diffs = [0.2, -0.2, 0.1, -0.1, 0.3, -0.3, 0.0, 0.05, -0.05, 0.0]
    a = [0.5 + d for d in diffs]
    got = cmp.compare_named(values(a={"m": a}, b={"m": [0.5] * 10}), ["a", "b"], ["m"], seed=3)[0]
    ordered = np.array([a[i] - 0.5 for _, i in sorted((id_digest(f"q{i}"), i) for i in range(10))])
    want = paired_comparison_of_differences("m", "a", "b", ordered, seed=3, resamples=5000)
    assert got["p_value"] == round(want.p_value, 6) and not got["significant"]
    assert got["ci95"] == [round(want.ci_low, 6), round(want.ci_high, 6)]
    assert got["ci95"][0] < 0 < got["ci95"][1]


def test_only_shared_ids_are_paired():
    v = values(a={"m": [1.0, 1.0, 1.0, 0.0]}, b={"m": [0.0, 0.0, 0.0]})
    v["b"]["m"]["other"] = 1.0
    got = cmp.compare_named(v, ["a", "b"], ["m"])[0]
    assert got["n_pairs"] == 3 and got["mean_a"] == 1.0 and got["mean_difference"] == 1.0


def test_a_single_system_or_one_shared_id_compares_nothing():
    assert cmp.compare_named(values(a={"m": [1.0, 0.0]}), ["a"], ["m"]) == []
    assert cmp.compare_named({"a": {"m": {"x": 1.0}}, "b": {"m": {"x": 0.0}}}, ["a", "b"], ["m"]) == []


def test_meaningful_pairs_within_a_run_and_across_runs():
    assert cmp.meaningful_pairs([(0, "a"), (0, "b"), (0, "c")]) == [(0, 1), (0, 2), (1, 2)]
    assert cmp.meaningful_pairs([(0, "a"), (0, "b"), (1, "a"), (1, "b")]) == [(0, 1), (2, 3), (0, 2), (1, 3)]
    five = [(0, s) for s in "abcde"]
    assert cmp.meaningful_pairs(five) == [(0, 1), (0, 2), (0, 3), (0, 4)]


def test_direction():
    assert cmp.higher_is_better("token_f1") and cmp.higher_is_better("mrr")
    for name in ("first_relevant_rank", "latency_ms", "cost_usd", "contradiction_rate", "miscited"):
        assert not cmp.higher_is_better(name), name
    assert not cmp.higher_is_better("my_metric", "lower") and cmp.higher_is_better("first_relevant_rank", "higher")


def test_headline_choice():
    lexical_retrieval = ["exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "bleu", "precision@1", "recall@1",
                         "recall@5", "recall@10", "ndcg@10", "mrr", "map", "first_relevant_rank", "hit_rate@1"]
    assert cmp.headline_metrics(lexical_retrieval) == ["token_f1", "exact_match", "rougeL", "mrr", "recall@10",
                                                       "ndcg@10"]
    # gated metrics first, whatever the choice; a cutoff the run lacks is its nearest computed one
    assert cmp.headline_metrics(["recall@5", "token_f1", "map"], gated=["map", "absent"]) == ["map", "token_f1",
                                                                                            "recall@5"]
    assert cmp.headline_metrics(["custom_b", "first_relevant_rank", "custom_a"]) == ["custom_b", "custom_a"]
    assert cmp.headline_metrics([]) == []


def summary(mean, n=10, coverage=1.0):
    return {"mean": mean, "ci95": [mean - 0.1, mean + 0.1], "scored": n, "coverage": coverage}


def test_leaderboard_marks_the_best_and_says_so():
    v = values(sparse={"hit": [1.0] * 10, "f1": [0.5, 0.6] * 5},
               dense={"hit": [0.0] * 10, "f1": [0.6, 0.5] * 5})
    comps = cmp.compare_named(v, ["sparse", "dense"], ["hit", "f1"])
    sums = {"sparse": {"hit": summary(1.0), "f1": summary(0.55)}, "dense": {"hit": summary(0.0), "f1": summary(0.55)}}
    board = cmp.leaderboard(["sparse", "dense"], sums, comps, ["hit", "f1"])
    assert board["metrics"] == ["hit", "f1"]
    assert board["rows"][0] == {"system": "sparse", "values": {
        "hit": {"mean": 1.0, "ci95": [0.9, 1.1], "n": 10, "coverage": 1.0},
        "f1": {"mean": 0.55, "ci95": [0.45, 0.65], "n": 10, "coverage": 1.0}}}
    assert board["best"] == {"hit": "sparse", "f1": None}  # equal f1 means: a tie, no best
    assert board["versus_best"] == [{"metric": "hit", "system": "dense", "best": "sparse", "mean_difference": 1.0,
                                     "ci95": [1.0, 1.0], "p_value": 0.001953, "significant": True, "n_pairs": 10}]
    # ten pairs of one sign: the exact sign-flip bound 1/2^9 = 0.001953, not the bootstrap's 1/R
    assert board["sentence"] == "sparse leads hit by 1.00 over dense, p = 0.002; no single leader on f1"


def test_leaderboard_orients_the_difference_from_the_best():
    v = values(a={"m": [0.0] * 10}, b={"m": [0.5] * 10}, c={"m": [0.4, 0.6] * 5})
    comps = cmp.compare_named(v, ["a", "b", "c"], ["m"])
    sums = {"a": {"m": summary(0.0)}, "b": {"m": summary(0.5)}, "c": {"m": summary(0.5001)}}
    board = cmp.leaderboard(["a", "b", "c"], sums, comps, ["m"])
    assert board["best"]["m"] == "c"
    vs = {v["system"]: v for v in board["versus_best"]}
    assert vs["a"]["mean_difference"] == 0.5 and vs["a"]["significant"] and vs["a"]["best"] == "c"
    assert vs["b"]["mean_difference"] == 0.0 and not vs["b"]["significant"]
    assert board["sentence"] == "c leads m by 0.50 over a, p = 0.002 (not significantly over b)"


def test_lower_is_better_picks_the_smallest():
    v = values(a={"rank": [1.0] * 10}, b={"rank": [3.0] * 10})
    comps = cmp.compare_named(v, ["a", "b"], ["rank"])
    board = cmp.leaderboard(["a", "b"], {"a": {"rank": summary(1.0)}, "b": {"rank": summary(3.0)}}, comps, ["rank"])
    assert board["best"] == {"rank": "a"}
    assert board["versus_best"][0]["mean_difference"] == -2.0  # best minus other: lower is better
    assert board["sentence"] == "a leads rank (lower is better) by 2.00 over b, p = 0.002"
    declared = cmp.leaderboard(["a", "b"], {"a": {"rank": summary(1.0)}, "b": {"rank": summary(3.0)}}, comps,
                               ["rank"], directions={"rank": "higher"})
    assert declared["best"] == {"rank": "b"}


def test_not_significant_is_said_as_such():
    v = values(a={"m": [0.1, 0.9, 0.4, 0.6] * 3}, b={"m": [0.9, 0.1, 0.6, 0.4] * 3})
    comps = cmp.compare_named(v, ["a", "b"], ["m"])
    board = cmp.leaderboard(["a", "b"], {"a": {"m": summary(0.51)}, "b": {"m": summary(0.5)}}, comps, ["m"])
    assert board["best"] == {"m": "a"} and not board["versus_best"][0]["significant"]
    assert board["sentence"] == "m difference is not significant"


def test_single_system_leaderboard():
    board = cmp.leaderboard(["only"], {"only": {"m": summary(0.75)}}, [], ["m"])
    assert [r["system"] for r in board["rows"]] == ["only"] and board["versus_best"] == []
    assert board["best"] == {"m": None}
    assert board["sentence"] == "one system (only), nothing to compare: m 0.75"


def test_systems_sharing_no_ids_say_so():
    board = cmp.leaderboard(["a", "b"], {"a": {"m": summary(0.7)}, "b": {"m": summary(0.5)}}, [], ["m"])
    assert board["best"] == {"m": "a"} and board["versus_best"] == []
    assert "share no scored question ids" in board["sentence"]


@pytest.mark.parametrize("samples_kind", ["dicts", "function"])
def test_compare_systems_takes_dicts_or_a_differences_function(samples_kind):
    dicts = [{"sys": s, "id": f"q{i}", "v": {"m": float(s == 0) + i / 100}} for s in (0, 1) for i in range(8)]
    if samples_kind == "function":
        samples = lambda a, b, m: np.array([1.0] * 8)  # noqa: E731
    else:
        samples = dicts
    got = cmp.compare_systems(samples, ["A", "B"], ["m"])
    assert got[0]["a"] == 0 and got[0]["b"] == 1 and got[0]["mean_difference"] == 1.0 and got[0]["significant"]
