"""The card's cost per kept item (genevals.generate.cost), worked by hand."""
import pytest

from genevals.generate.cost import cost_figures


def test_the_generators_spending_over_the_kept_items():
    spent = {"requests": 5, "cached_requests": 1, "prompt_tokens": 1200, "completion_tokens": 300, "cost_usd": 0.009}
    got = cost_figures(spent, 4)
    assert got["total"] == spent
    # 5 / 4 requests, 1200 / 4 = 300 prompt tokens, 300 / 4 = 75 completion tokens, 0.009 / 4 dollars
    assert got["per_kept_item"] == {"requests": 1.25, "cached_requests": 0.25, "prompt_tokens": 300.0,
                                    "completion_tokens": 75.0, "cost_usd": pytest.approx(0.00225), "n": 4}
    assert got["gates"]["status"] == "not_measured" and "scope" not in got


def test_no_price_no_kept_item_and_a_resumed_run_say_so():
    spent = {"requests": 2, "cached_requests": 0, "prompt_tokens": 10, "completion_tokens": 4, "cost_usd": None}
    got = cost_figures(spent, 2, resumed=True)
    assert got["per_kept_item"]["cost_usd"]["status"] == "not_measured"
    assert got["per_kept_item"]["requests"] == 1.0 and "resumed" in got["scope"]
    assert cost_figures(spent, 0)["per_kept_item"] == {"status": "not_measured", "reason": "no kept item"}
    assert cost_figures(None, 3) == {"status": "not_measured", "reason": "the generator counts no usage"}


def test_offline_says_no_call_was_made():
    got = cost_figures(None, 2, offline=True)
    assert got["note"] == "offline: no judge call was made"
    assert got["per_kept_item"] == {"requests": 0.0, "cached_requests": 0.0, "prompt_tokens": 0.0,
                                    "completion_tokens": 0.0, "cost_usd": 0.0, "n": 2}
