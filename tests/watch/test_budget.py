"""The budget's arithmetic (:mod:`genevals.watch.budget`), each figure by hand: the usage a summary records,
the measured basis over scored windows, the admission rule at the cap's edge, and which judges --max-cost refuses.
The caps in real watch processes are in test_budget_windows.py."""
import json

import pytest

from genevals.judge.config import JudgeConfig
from genevals.watch import budget

PRICES = {"judge": {"input_per_1k": 0.5, "output_per_1k": 2.0}}


def _summary(corpus, traces):
    return {"corpus": corpus, "meta": {"watch": {"window": 1, "traces": traces}}}


def test_usage_sums_every_judge_metric_and_system_and_leaves_estimates_out():
    summary = _summary({
        "a": {"judge_requests": 4, "judge_cost_usd": 0.9715, "answer_relevance_judge_requests": 2,
              "answer_relevance_judge_cost_usd": 0.2315, "judge_estimated_requests": 8,
              "judge_estimated_cost_usd": 2.472, "judge_prompt_tokens": 1327},
        "b": {"rubric_judge_requests": 3, "rubric_judge_cost_usd": 0.25}}, 2)
    assert budget.usage(summary) == {"requests": 9, "cost_usd": pytest.approx(0.9715 + 0.2315 + 0.25)}


def test_usage_without_a_price_is_none_not_zero():
    # a metric made requests and the price table had no price: its cost entry is absent (usage_statistics drops
    # None), so the window's cost is unknown rather than $0
    assert budget.usage(_summary({"a": {"judge_requests": 4}}, 2)) == {"requests": 4, "cost_usd": None}
    assert budget.usage(_summary({"a": {"judge_requests": 0}}, 2)) == {"requests": 0, "cost_usd": 0.0}


def test_measured_is_the_scored_windows_usage_per_trace(tmp_path):
    assert budget.measured(tmp_path) is None  # nothing scored yet: the dry-run basis applies
    for number, corpus, traces in ((1, {"default": {"judge_requests": 4, "judge_cost_usd": 0.9}}, 2),
                                   (2, {"default": {"judge_requests": 7, "judge_cost_usd": 1.2}}, 3)):
        folder = tmp_path / f"{number:04d}"
        folder.mkdir()
        (folder / "summary.json").write_text(json.dumps(_summary(corpus, traces)))
    (tmp_path / "0003").mkdir()  # a window being written: no summary yet, no measurement
    (tmp_path / "0003" / "summary.json").write_text("{")
    found = budget.measured(tmp_path)
    assert found.calls == pytest.approx(11 / 5) and found.cost == pytest.approx(2.1 / 5)  # by hand: 2.2, $0.42
    assert found.basis == "measured: 11 judge calls and $2.100000 over 5 traces of the scored windows"


def test_admit_at_the_edge_of_each_cap():
    spent = budget.Spent() + budget.Estimate(2, 0.5, "x") + budget.Estimate(2, 0.25, "x")
    assert (spent.calls, spent.cost) == (4, 0.75)
    fits = budget.Estimate(2, 0.25, "dry-run: b")
    assert budget.admit(spent, fits, 6, 1.0, 3) is None  # 4 + 2 = 6 calls, 0.75 + 0.25 = $1: exactly at both caps
    assert budget.admit(spent, fits, 5, None, 3) == ("window 3 has 4 of --max-judge-calls 5 estimated judge calls; "
                                                     "this trace would add 2 (dry-run: b)")
    assert budget.admit(spent, fits, None, 0.9, 3) == ("window 3 has $0.750000 of --max-cost $0.9 estimated; this "
                                                       "trace would add $0.250000 (dry-run: b)")
    unknown = budget.Estimate(2, None, "the dry run failed: X")
    assert budget.admit(spent, unknown, None, 10.0, 3) == ("--max-cost 10: this trace's judge cost could not be "
                                                           "estimated (the dry run failed: X)")
    assert budget.admit(spent, unknown, 10, None, 3) is None  # a call cap alone needs no price


def test_max_cost_needs_the_judge_model_priced():
    priced = JudgeConfig(backend="openai", base_url="http://127.0.0.1:9/v1", model="judge", prices=PRICES)
    assert budget.price_problem(priced) is None
    assert "no price for the judge's model 'other' (models priced: judge)" in budget.price_problem(
        priced.with_options(model="other"))
    assert "models priced: none" in budget.price_problem(priced.with_options(prices=None))
    assert "not named" in budget.price_problem(priced.with_options(model=None))
    assert "no judge is configured" in budget.price_problem(None)
