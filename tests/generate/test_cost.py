"""The card's cost per kept item (genevals.generate.cost), worked by hand."""
import pytest

from genevals.generate.cost import cost_figures

GENERATOR = {"requests": 5, "cached_requests": 1, "prompt_tokens": 1200, "completion_tokens": 300, "cost_usd": 0.009}
GATES = {"requests": 7, "cached_requests": 0, "prompt_tokens": 800, "completion_tokens": 100, "cost_usd": 0.003}


def test_the_generators_and_the_gates_spending_over_the_kept_items():
    got = cost_figures(GENERATOR, 4, gates=GATES)
    assert got["generator"] == GENERATOR and got["gates"] == GATES
    # total: 12 requests, 1 cached, 2000 prompt and 400 completion tokens, 0.012 dollars; over 4 kept items
    assert got["total"] == {"requests": 12, "cached_requests": 1, "prompt_tokens": 2000, "completion_tokens": 400,
                            "cost_usd": pytest.approx(0.012)}
    assert got["per_kept_item"] == {"requests": 3.0, "cached_requests": 0.25, "prompt_tokens": 500.0,
                                    "completion_tokens": 100.0, "cost_usd": pytest.approx(0.003), "n": 4}
    assert "scope" not in got


def test_gates_not_counted_no_price_no_kept_item_and_a_resumed_run_say_so():
    got = cost_figures(GENERATOR, 4)
    assert got["gates"]["status"] == "not_measured" and "not counted" in got["gates"]["reason"]
    assert got["total"] == GENERATOR and got["per_kept_item"]["requests"] == 1.25
    unpriced = cost_figures(GENERATOR, 2, resumed=True, gates={**GATES, "cost_usd": None})
    assert unpriced["total"]["cost_usd"] is None  # one part unpriced: the sum is not priced at half
    assert unpriced["per_kept_item"]["cost_usd"]["status"] == "not_measured" and "resumed" in unpriced["scope"]
    assert cost_figures(GENERATOR, 0)["per_kept_item"] == {"status": "not_measured", "reason": "no kept item"}
    assert cost_figures(None, 3) == {"status": "not_measured", "reason": "the generator counts no usage"}


def test_offline_says_no_call_was_made():
    got = cost_figures(None, 2, offline=True)
    assert got["note"] == "offline: no judge call was made"
    assert got["per_kept_item"] == {"requests": 0.0, "cached_requests": 0.0, "prompt_tokens": 0.0,
                                    "completion_tokens": 0.0, "cost_usd": 0.0, "n": 2}
