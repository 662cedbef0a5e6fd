"""The offline grader's card (genevals/labels/card.py) holds the figures benchmarks/bench_judged_qrels.py last
wrote into benchmarks/judged_qrels.json, and says them in words."""
from __future__ import annotations

import json
from pathlib import Path

from genevals.labels import card

JSON = Path(__file__).resolve().parents[2] / "benchmarks" / "judged_qrels.json"


def test_the_card_is_the_benchmarks_figures():
    measured = json.loads(JSON.read_text(encoding="utf-8"))
    assert card.MEASURED == measured["card"], "copy benchmarks/judged_qrels.json's 'card' into genevals/labels/card.py"
    # and those are the benchmark's own tau figures
    for name in ("offline", "offline_cv"):
        figures = measured["agreement"][name]
        for m in ("map", "ndcg@10"):
            assert card.MEASURED[name][m] == [figures[m]["tau"], *figures[m]["tau_ci95"]]


def test_the_card_in_words():
    shown = card.card("offline")
    assert shown["figures"] == card.MEASURED
    text = " ".join(shown["lines"])
    tau_map = card.MEASURED["offline_cv"]["map"]  # the out-of-sample figure leads
    assert f"Kendall tau {tau_map[0]:.2f} [{tau_map[1]:.2f}, {tau_map[2]:.2f}] by MAP" in text
    assert "out of sample" in text and "Random grades on the same pool" in text and "(in-sample)" in text
    shown["figures"]["offline"] = None  # a copy: the caller cannot change the card
    assert card.card()["figures"]["offline"] is not None
    assert card.card("umbrela") is None  # an LLM judge is not measured
