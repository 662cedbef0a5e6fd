"""Bootstrap intervals and paired comparisons: reproducible, and right on cases worked by hand."""
import numpy as np
import pytest

from genevals.stats import (MIN_PAIRS, bootstrap_ci, paired_bootstrap_means, paired_comparison, summarise,
                            too_few_pairs_text)
from genevals.stats.cluster import paired_clustered


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = list(np.random.default_rng(0).random(200))
    first, second = bootstrap_ci(values, seed=7), bootstrap_ci(values, seed=7)
    assert first == second
    assert first[0] < np.mean(values) < first[1]
    assert bootstrap_ci(values, seed=8) != first


def test_bootstrap_matches_a_direct_numpy_resample():
    values = [0.0, 0.5, 1.0, 0.25, 0.75]
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 5, size=(1000, 5))
    means = np.asarray(values)[idx].mean(axis=1)
    expected = tuple(np.quantile(means, [0.025, 0.975]))
    assert bootstrap_ci(values, seed=3) == pytest.approx(expected, abs=1e-12)


def test_constant_values_give_a_point_interval():
    assert bootstrap_ci([0.4] * 10) == pytest.approx((0.4, 0.4))
    assert bootstrap_ci([0.9]) == (0.9, 0.9)


def test_summarise_keeps_unscored_out_of_the_mean():
    summary = summarise([1.0, None, 0.0, None], ["ok", "no_reference", "ok", "judge_error"])
    assert summary.mean == 0.5 and summary.scored == 2 and summary.unscored == 2
    assert summary.statuses == {"ok": 2, "no_reference": 1, "judge_error": 1}
    empty = summarise([None], ["no_claims"])
    assert empty.mean is None and empty.to_dict()["ci95"] is None


def test_paired_comparison_detects_a_real_difference_only():
    ids = [f"q{i}" for i in range(40)]
    rng = np.random.default_rng(1)
    base = {k: float(v) for k, v in zip(ids, rng.random(40))}
    better = {k: v + 0.2 for k, v in base.items()}
    noisy = {k: v + float(e) for (k, v), e in zip(base.items(), rng.normal(0, 0.01, 40))}
    strong = paired_comparison("token_f1", "b", better, "a", base)
    assert strong.mean_difference == pytest.approx(0.2) and strong.significant
    assert strong.p_value == pytest.approx(1 / 10000)  # no resample mean at or below 0: the 1/R floor
    weak = paired_comparison("token_f1", "n", noisy, "a", base)
    assert not weak.significant
    assert paired_comparison("x", "a", {"q1": 1.0}, "b", {"q2": 0.0}) is None  # nothing shared


def test_paired_ci_and_p_value_never_contradict():
    """One paired bootstrap gives both: p < 0.05 exactly when the 95% interval excludes 0, also at the edge."""
    rng = np.random.default_rng(3)
    seen = set()
    for case in range(300):
        n = int(rng.integers(2, 30))
        a = {f"q{i}": float(v) for i, v in enumerate(rng.random(n))}
        shift = float(rng.normal(0, 0.15))
        b = {k: v + shift + float(rng.normal(0, 0.3)) for k, v in a.items()}
        for resamples in (40, 1000, 1001):
            c = paired_comparison("m", "a", a, "b", b, seed=case, resamples=resamples)
            if n < MIN_PAIRS:  # no test below the minimum (issue 38/39 follow-up): no interval, no p
                assert c.p_value is None and c.ci_low is None and not c.significant, (case, c)
                continue
            excludes = c.ci_low > 0 or c.ci_high < 0
            assert (c.p_value < 0.05) == excludes == c.significant, (case, resamples, c)
            seen.add(excludes)
    assert seen == {True, False}


def test_paired_bootstrap_by_hand():
    """Two pairs, differences 0 and 1: each resample mean is 0, 0.5 or 1 with probability 1/4, 1/2, 1/4."""
    means = paired_bootstrap_means(np.array([0.0, 1.0]), seed=5, resamples=4000)
    assert set(means) == {0.0, 0.5, 1.0}
    # #(means <= 0) ~ Binomial(4000, 1/4)
    assert np.mean(means <= 0) == pytest.approx(0.25, abs=0.02) and np.mean(means == 0.5) == pytest.approx(0.5, abs=0.03)
    # the same two pairs as a comparison: too few to test (below)
    assert paired_comparison("m", "a", {"x": 1.0, "y": 2.0}, "b", {"x": 1.0, "y": 1.0}).p_value is None
    same = {f"q{i}": 1.0 for i in range(MIN_PAIRS)}
    assert paired_comparison("m", "a", same, "b", same).p_value == 1.0


def _bootstrap_ci_before(values, seed=12345, resamples=1000, confidence=0.95):
    """bootstrap_ci as it was before columns of one length shared their draw (kept to pin the intervals)."""
    data = np.asarray(values, dtype=float)
    if data.size == 1:
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, 2_000_000 // data.size)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        idx = rng.integers(0, data.size, size=(stop - start, data.size))
        means[start:stop] = data[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def test_shared_draws_give_byte_identical_intervals():
    from genevals.stats import bootstrap_cis, summarise, summarise_many

    rng = np.random.default_rng(3)
    # lengths sharing a draw, a length of one, and one long enough to be drawn in several blocks
    columns = [np.sort(rng.random(n)) for n in (5, 5, 1, 300, 300, 300, 2, 9000, 9000)]
    columns.append(np.sort(rng.integers(0, 2, 300).astype(float)))
    got = bootstrap_cis(columns, seed=7)
    assert got == [_bootstrap_ci_before(c, seed=7) for c in columns]
    pairs = [(list(c), ["ok"] * len(c)) for c in columns] + [([None], ["no_reference"])]
    assert [s.to_dict() for s in summarise_many(pairs, seed=7)] == [summarise(v, st, seed=7).to_dict()
                                                                   for v, st in pairs]


# ------------------------------------------------------------------------------ too few pairs to test

def _pairs(diffs):
    return ({f"q{i}": d for i, d in enumerate(diffs)}, {f"q{i}": 0.0 for i in range(len(diffs))})


def test_minimum_pairs_is_where_a_sign_flip_test_can_reach_five_percent():
    """n pairs of one sign have the exact two-sided sign-flip p-value 2/2^n: 1/16 = 0.0625 for 5, 1/32 =
    0.03125 for 6, so 6 is the fewest pairs that can be significant at 0.05."""
    assert MIN_PAIRS == 6
    assert 2 / 2 ** 5 >= 0.05 > 2 / 2 ** 6
    assert "5 pairs, the smallest p-value possible is 1/2^4 = 0.0625; p < 0.05 needs 6" in too_few_pairs_text(5)


@pytest.mark.parametrize("diffs", [[1.0, 1.0], [0.5, 0.25, 1.0], [0.3] * 5])
def test_two_three_and_five_pairs_are_too_few_to_test(diffs):
    """Before the rule, two pairs of +1 were significant at p = 1/R (every resample mean is 1)."""
    assert paired_bootstrap_means(np.array(diffs), seed=1, resamples=1000).min() > 0  # bootstrap alone: p = 1/R
    a, b = _pairs(diffs)
    c = paired_comparison("m", "a", a, "b", b)
    assert c.n_pairs == len(diffs) and c.mean_difference == pytest.approx(sum(diffs) / len(diffs))
    assert c.too_few_pairs and c.p_value is None and (c.ci_low, c.ci_high) == (None, None)
    assert not c.significant
    assert c.to_dict()["p_value"] is None and c.to_dict()["significant"] is False


def test_six_pairs_of_one_sign_and_a_clear_twenty_pair_difference_are_significant():
    """Six positive differences: no resample mean is <= 0, so the bootstrap says 1/R, but six signs can say no
    more than the exact sign-flip p 1/2^5 = 0.03125. Twenty differences of 0.1, 0.2, 0.3 (i % 3; 7, 7 and 6 of
    them): mean 3.9/20 = 0.195, every resample mean within [0.1, 0.3], p = max(1/R, 1/2^19) = 1/R."""
    a, b = _pairs([0.1, 0.2, 0.3, 0.1, 0.2, 0.3])
    six = paired_comparison("m", "a", a, "b", b, resamples=10_000)
    assert six.p_value == 0.03125 and six.significant and not six.too_few_pairs
    a, b = _pairs([0.1 * (i % 3 + 1) for i in range(20)])
    twenty = paired_comparison("m", "a", a, "b", b, resamples=10_000)
    assert twenty.mean_difference == pytest.approx(0.195) and twenty.p_value == 1 / 10_000 and twenty.significant
    assert 0.1 <= twenty.ci_low < 0.195 < twenty.ci_high <= 0.3


def test_conversations_too_few_to_test_count_conversations():
    """Twelve turns in three conversations are three pairs: too few; in twelve conversations, tested."""
    a, b = _pairs([0.5] * 12)
    three = paired_clustered("m", "a", a, "b", b, {k: f"c{i % 3}" for i, k in enumerate(a)})
    assert three.n_pairs == 3 and three.p_value is None and not three.significant
    twelve = paired_clustered("m", "a", a, "b", b, {k: f"c{i}" for i, k in enumerate(a)})
    assert twelve.n_pairs == 12 and twelve.significant and twelve.p_value == 0.5 ** 11  # above 1/R
    seven = paired_clustered("m", "a", a, "b", b, {k: f"c{i % 7}" for i, k in enumerate(a)})
    assert seven.n_pairs == 7 and seven.p_value == 0.5 ** 6  # seven conversations of one sign: 1/64


def test_paired_means_shared_across_columns_are_each_column_s_own():
    # one draw per size serves every column of that size: each column's sorted means are those it gets alone
    from genevals.stats import paired_means_of

    rng = np.random.default_rng(8)
    columns = [rng.normal(size=300), rng.normal(size=300), rng.normal(size=41), np.array([0.5, -0.2, 0.1]),
               rng.normal(size=300) * 0, rng.normal(size=41)]
    made = paired_means_of(columns, seed=9, resamples=2500)
    for column, means in zip(columns, made):
        if column.size < MIN_PAIRS:
            assert means is None
        else:
            assert np.array_equal(means, paired_bootstrap_means(column, seed=9, resamples=2500))
