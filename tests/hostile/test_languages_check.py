"""The languages class's own checks (hostile/cases_languages.py) catch what they are for: a silent zero is one
for an identical answer with a letter or digit; a languages block that does not add up is said."""
from __future__ import annotations

from hostile.cases_languages import block_problems, silent_zeros


def record(answer: str, **metrics) -> dict:
    return {"id": "x", "answer": answer, "references": ["other", answer],
            "metrics": {name: {"value": value, "status": "ok"} if value is not None else
                        {"value": None, "status": "unsupported_language", "reason": "r"}
                        for name, value in metrics.items()}}


def test_a_zero_for_an_identical_answer_is_found():
    found = silent_zeros([record("巴黎是法国的首都", rouge1=0.0, rougeL=0.0, rouge2=0.0, token_f1=1.0, bleu=None)])
    assert [f.split(": ")[1].split(" ")[0] for f in found] == ["rouge1", "rougeL", "rouge2"]


def test_what_is_not_a_silent_zero():
    assert not silent_zeros([record("Paris", rouge2=0.0)])  # one token: no bigram, 0 by rouge-score's definition
    assert not silent_zeros([record("😀 ！？", rouge1=0.0, token_f1=0.0)])  # no letter or digit: no token anywhere
    assert not silent_zeros([record("巴黎", rouge1=None)])  # a status is not a number
    assert not silent_zeros([{**record("Paris", rouge1=0.0), "references": ["Lyon"]}])  # not identical


def test_a_block_that_does_not_add_up_is_said():
    good = {"samples": 3, "by_language": {"en": {"samples": 2, "detected": 1, "fallback": 1},
                                          "zh": {"samples": 1, "row": 1}},
            "unsure": {"samples": 1, "why": {"too short to detect": 1}}}
    assert block_problems({"languages": good}, 3) == [] and block_problems({}, 0) == []
    assert block_problems({"languages": good}, 2)  # more samples counted than run
    assert block_problems({"languages": {**good, "unsure": {"samples": 0}}}, 3)
    assert block_problems({"languages": {**good, "by_language": {**good["by_language"], "zh": {"samples": 1}}}}, 3)
