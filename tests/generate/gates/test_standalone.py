"""``not_self_contained`` per language: in every language of the phrase table a question that points at its source
is rejected, naming its phrase and table, and a question that stands alone passes. And the measured false
positives on people's questions (Cranfield, WikiQA, NQ), as benchmarks/bench_gates_standalone.py measures them."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from support.gate_items import QUESTIONS as CASES
from support.gate_items import fact, unanswerable

from genevals.generate.gates import standalone
from genevals.generate.items import PASSED

REPO = Path(__file__).resolve().parents[3]



def test_every_language_of_the_table_has_a_case():
    assert set(CASES) == set(standalone.patterns())


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_question_pointing_at_its_source_is_rejected_and_one_standing_alone_passes(lang):
    bad, good = CASES[lang]
    outcome = standalone.check(fact(question=bad, reference="1931"), lang)
    assert outcome.status == "not_self_contained" and f"({lang} phrase table)" in outcome.reason
    assert standalone.check(fact(question=good, reference="1931"), lang).status == PASSED


def test_the_reference_and_the_users_earlier_turns_are_checked_but_not_a_refusal():
    outcome = standalone.check(fact(reference="In the text, the bridge opened in 1931."), "en")
    assert outcome.status == "not_self_contained" and "the reference" in outcome.reason
    turns = ({"role": "user", "content": "What does this document say about trams?"},
             {"role": "assistant", "content": "They cross the river."})
    assert "turn 1" in standalone.check(fact(turns=turns), "en").reason
    refusal = unanswerable(reference="This is not mentioned in the text.")
    assert standalone.check(refusal, "en").status == PASSED


def test_questions_that_only_use_the_nouns_pass():
    for question in ("What did the passage of the 1832 Reform Act change?", "Who was the author of the Art of War?",
                     "What is the text of the First Amendment?", "How is drag measured in the context of wind tunnels?"):
        assert standalone.check(fact(question=question), "en").status == PASSED, question


def test_a_language_with_no_table_is_still_checked_and_the_reason_says_so():
    outcome = standalone.check(fact(question="When did the Varn Bridge open?"), "ka")
    assert outcome.status == PASSED and "no phrase table for ka" in outcome.reason


#: measured 2026-12-02 by benchmarks/bench_gates_standalone.py: 0 of 584 distinct human questions flagged
MEASURED = {"n": 584, "false_positives": 0, "wilson95": [0.0, 0.00653]}


def test_false_positives_on_human_questions_are_the_measured_ones():
    shared = REPO.parent / "shared" / "datasets"
    if not (shared / "cranfield" / "queries.tsv").is_file():
        pytest.skip("../shared/datasets is not here")
    spec = importlib.util.spec_from_file_location("bench", REPO / "benchmarks" / "bench_gates_standalone.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    got = bench.measure(shared)
    assert {k: got[k] for k in MEASURED} == MEASURED, json.dumps(got["hits"], ensure_ascii=False)
    # the interval by hand: 0 of n, Wilson's upper bound z^2 / (n + z^2)
    assert got["wilson95"][1] == pytest.approx(1.959964 ** 2 / (584 + 1.959964 ** 2), abs=1e-5)
