"""The report's readers of hostile run-folder values (genevals.report.clean)."""
from genevals.report.clean import num, page_contexts


def test_num_takes_only_finite_numbers_an_integer_past_a_double_included():
    assert num(5) == 5.0 and num(0.1234567) == 0.123457 and num(2.5, None) == 2.5
    # a 400-digit context score raised OverflowError and stopped the report
    for value in (10**400, -(10**400), float("nan"), float("inf"), True, "1", None):
        assert num(value) is None, value


def test_a_context_with_a_huge_score_keeps_its_text_without_the_score():
    [ctx] = page_contexts([{"text": "Paris.", "rank": 1, "score": 10**400}])
    assert ctx["score"] is None


def test_rounded_columns_are_the_floats_num_gives_each_value():
    import math

    import numpy as np

    from genevals.report.clean import rounded

    rng = np.random.default_rng(0)
    # every kind of value: fractions, scores, negatives, exact halves (k/128, k/2e6), values next to a half and
    # past 2^40 once scaled, NaN, infinities, signed zeros, a subnormal
    values = np.concatenate([rng.random(20000), rng.random(5000) * 1000, -rng.random(5000),
                             rng.integers(0, 1000, 5000) / 128, rng.integers(0, 10**6, 5000) / 2e6,
                             [0.0, -0.0, np.nan, np.inf, -np.inf, 1e300, -1e300, 1e-320, 0.5e-6, 2.5e-6, 0.0078125,
                              1 / 3, 1e12, 3.7e11 + 0.5e-6, 123456.0000005, 0.1234565, 0.12345650000000001]])
    digits = np.where(rng.random(len(values)) < 0.5, 6, 4)
    for places in (6, 4, digits):
        got = rounded(values, places)
        want = [num(float(v), int(d)) for v, d in zip(values, np.broadcast_to(places, values.shape))]
        for v, a, b in zip(values.tolist(), got, want):
            assert (a is None and b is None) or (a == b and math.copysign(1, a) == math.copysign(1, b)), (v, a, b)
