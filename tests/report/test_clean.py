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
