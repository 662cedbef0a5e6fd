"""The deterministic gates, each with a good item kept and planted bad items rejected with their status and
reason; figures (offsets, similarities, BM25 scores, token F1) worked by hand."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
from support.gate_items import CHUNKS, QUESTIONS, chunk, fact, follow_up, multi_hop, unanswerable

from genevals.generate.gates import NOT_CHECKED, ORDER, GateContext, GateSettings, run_gates
from genevals.generate.gates import duplicates, grounding, language, shape
from genevals.generate.gates.agreement import agrees, f1
from genevals.generate.gates.retrieval import ChunkIndex, MissingExtra
from genevals.generate.items import PASSED, Evidence, Item

CTX = GateContext.build(CHUNKS)


# -- type_mismatch ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("item", [fact(), multi_hop(), unanswerable(), follow_up()], ids=lambda i: i.type)
def test_well_formed_items_pass_the_shape_gate(item):
    assert shape.check(item, "en").status == PASSED


@pytest.mark.parametrize("item, reason", [
    (fact(type="trivia"), "type 'trivia' is none of"),
    (fact(question="  "), "the question is empty"),
    (fact(expect_refusal=True), "must have expect_refusal false"),
    (fact(reference="I don't know."), "is a refusal"),
    (unanswerable(expect_refusal=False), "must have expect_refusal true"),
    (unanswerable(reference="Lund has 4,000 cats."), "is not a refusal"),
    (multi_hop(chunks=("bridge#1",), evidence=(Evidence("bridge#1", "Ada Berg designed the Varn Bridge."),)),
     "needs 2 or more chunks, it has 1"),
    (multi_hop(evidence=(Evidence("bridge#1", "Ada Berg designed the Varn Bridge."),)),
     "needs evidence from 2 or more chunks, it quotes 1"),
    (follow_up(turns=()), "has no earlier turns"),
    (follow_up(turns=({"role": "user", "content": "Can I take my dog?"},)), "last earlier turn must be the assistant's"),
    (follow_up(turns=({"role": "robot", "content": "x"}, {"role": "assistant", "content": "y"})), "turn 1 is not"),
    (fact(type="summary"), "a summary needs 2 or more evidence quotes, it has 1"),
    (fact(type="reasoning", reference="In 1931."), "needs 6 or more words, it has 2"),
    (fact(type="known_item", chunks=("bridge#0", "bridge#1")), "exactly one chunk, it has 2"),
    (fact(question=None), "the question is not text"),
    (fact(evidence=(Evidence("bridge#0", None),)), "evidence 1 is not a quote (text) from a chunk"),
    (fact(turns=({"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"})),
     "a fact item has earlier turns"),
    (follow_up(turns=("hello", {"role": "assistant", "content": "Hello"})), "turn 1 is not"),
])
def test_each_misshapen_item_is_a_type_mismatch(item, reason):
    outcome = shape.check(item, "en")
    assert outcome.status == "type_mismatch" and reason in outcome.reason


def test_a_refusal_shape_is_not_checked_outside_english_and_the_reason_says_so():
    outcome = shape.check(unanswerable(reference="Los documentos no lo dicen."), "es")
    assert outcome.status == PASSED and "not checked in es" in outcome.reason


# -- ungrounded_reference ----------------------------------------------------------------------------------------
def test_quotes_are_located_with_offsets_into_their_chunk():
    text = CHUNKS[0].text  # "The Varn Bridge opened in 1931. It carries trams across the river Varn."
    outcome, evidence = grounding.check(fact(evidence=(Evidence("bridge#0", "It carries trams"),)), CTX)
    assert outcome.status == PASSED and "verbatim" in outcome.reason
    assert (evidence[0].start, evidence[0].end) == (32, 48) and text[32:48] == "It carries trams"


def test_case_whitespace_and_quote_marks_are_folded_and_the_reason_says_so():
    outcome, evidence = grounding.check(fact(evidence=(Evidence("bridge#0", "the  VARN bridge\nopened"),)), CTX)
    assert outcome.status == PASSED and "after folding" in outcome.reason
    assert (evidence[0].start, evidence[0].end) == (0, 22)


@pytest.mark.parametrize("evidence, reason", [
    ((Evidence("bridge#0", "The bridge was opened in the year 1931."),), "is not in chunk bridge#0"),
    ((Evidence("bridge#1", "Ada Berg designed the Varn Bridge."),), "the item is not built on it"),
    ((Evidence("nowhere#3", "The Varn Bridge opened in 1931."),), "the corpus has no such chunk"),
    ((), "a fact item with no evidence quote"),
])
def test_an_unlocated_quote_is_an_ungrounded_reference(evidence, reason):
    outcome, located = grounding.check(fact(evidence=evidence), CTX)
    assert outcome.status == "ungrounded_reference" and reason in outcome.reason
    assert all(ev.start is None and ev.end is None for ev in located)


def test_an_unanswerable_item_quotes_nothing():
    assert grounding.check(unanswerable(), CTX)[0].status == PASSED


# -- wrong_language ----------------------------------------------------------------------------------------------
def test_a_question_in_the_documents_language_passes_and_another_is_rejected():
    assert language.check(fact(question="When did the Varn Bridge open to the public for trams?"), CTX).status == PASSED
    german = fact(question="Wann wurde die Varn-Brücke für den Straßenbahnverkehr eröffnet?",
                  reference="The Varn Bridge was opened to the public in the year 1931 and has carried trams since.")
    outcome = language.check(german, CTX)
    assert outcome.status == "wrong_language" and "is in de" in outcome.reason and "not en" in outcome.reason
    # asked for German: the same question passes, and an English reference is now the wrong language
    asked = replace(CTX, language="de")
    outcome = language.check(german, asked)
    assert outcome.status == "wrong_language" and "reference" in outcome.reason
    assert language.check(replace(german, reference="Die Brücke wurde 1931 eröffnet."), asked).status == PASSED


def test_a_script_the_language_is_not_written_in_rejects_an_unsure_detection():
    ctx = GateContext.build([chunk("ja#0", "ヴァーン橋は1931年に開通しました。路面電車が川を渡ります。")])
    item = Item("j", "fact", "Varn?", "1931年に開通しました。", ("ja#0",),
                (Evidence("ja#0", "ヴァーン橋は1931年に開通しました。"),))
    outcome = language.check(item, ctx)
    assert outcome.status == "wrong_language" and "Latin script" in outcome.reason and "ja" in outcome.reason


def test_an_unsure_detection_in_the_right_script_is_not_a_rejection():
    outcome = language.check(fact(question="Who is Ada Berg?"), CTX)
    assert outcome.status == PASSED and "unsure" in outcome.reason and "not a rejection" in outcome.reason


# -- duplicate ---------------------------------------------------------------------------------------------------
def test_the_same_question_in_another_case_and_punctuation_is_an_exact_duplicate():
    kept = [fact(id="k1")]
    outcome = duplicates.check(fact(id="n1", question="when did the VARN bridge open"), CTX, kept)
    assert outcome.status == "duplicate" and "the same question as item k1 of this set" in outcome.reason


def test_near_duplicates_by_indel_similarity_at_the_threshold():
    # "when did the varn bridge open" (29) against "when did the varn bridge opened" (31): common subsequence 29,
    # Indel 29 + 31 - 58 = 2, similarity 100 * (1 - 2 / 60) = 96.67 >= 90
    outcome = duplicates.check(fact(id="n1", question="When did the Varn Bridge opened?"), CTX, [fact(id="k1")])
    assert outcome.status == "duplicate" and "similarity 96.7 >= 90" in outcome.reason
    # 79.25 (the module's worked example) stays below it
    other = fact(id="n2", question="Who built the Varn Bridge?")
    assert duplicates.check(other, CTX, [fact(id="k2", question="Who designed the Varn Bridge?")]).status == PASSED
    strict = replace(CTX, settings=GateSettings(near_duplicate=79.0))
    assert duplicates.check(other, strict, [fact(id="k2", question="Who designed the Varn Bridge?")]).status == \
        "duplicate"


def test_duplicates_of_earlier_sets_are_rejected_too():
    ctx = GateContext.build(CHUNKS, earlier=[fact(id="old-7")])
    outcome = duplicates.check(fact(id="new-1"), ctx, [])
    assert outcome.status == "duplicate" and "item old-7 of an earlier set" in outcome.reason


# -- BM25 and agreement ------------------------------------------------------------------------------------------
def test_bm25_scores_are_lucenes_by_hand():
    index = ChunkIndex.build([chunk("a#0", "the cat sat"), chunk("b#0", "a dog barked loud"), chunk("c#0", "cat food")])
    # N 3, df(cat) 2: IDF = ln(1 + 1.5 / 2.5); avgdl 3; a#0: 1 / (1 + 1.5 (0.25 + 0.75 * 3/3)); c#0: |d| = 2
    idf = math.log(1 + 1.5 / 2.5)
    top = index.top("Cat?", 5)
    assert [c for c, _ in top] == ["c#0", "a#0"]  # b#0 shares no word: never returned
    assert top[0][1] == pytest.approx(idf / (1 + 1.5 * (0.25 + 0.75 * 2 / 3)), rel=1e-6)
    assert top[1][1] == pytest.approx(idf / (1 + 1.5 * (0.25 + 0.75)), rel=1e-6)
    assert index.top("zebra", 5) == [] and ChunkIndex.build([]) is None
    assert CTX.index is None  # offline: no judge gate reads it, so it is not built (bm25s is an extra)


def test_without_bm25s_a_judged_context_says_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "bm25s" else real(name, *a))
    with pytest.raises(MissingExtra, match=r"needs bm25s, which is not installed: pip install 'genevals\[generate\]'"):
        GateContext.build(CHUNKS, judge=object())


def test_token_f1_agreement_by_hand():
    # answer: varn bridge opened in 1931 (5); reference: it opened in 1931 (4); shared 3: P .6, R .75, F1 2/3
    assert f1("The Varn Bridge opened in 1931.", "It opened in 1931", "en") == pytest.approx(2 / 3)
    assert agrees("The Varn Bridge opened in 1931.", "It opened in 1931", "en", 0.5) == (True, pytest.approx(2 / 3))
    assert agrees("I don't know.", "I don't know.", "en", 0.5) == (False, 0.0)  # a refusal never agrees
    assert agrees("", "x", "en", 0.5) == (False, 0.0)


# -- the pipeline offline ----------------------------------------------------------------------------------------
def test_offline_the_judge_gates_say_not_checked_in_the_fixed_order():
    item = run_gates(fact(), CTX, [])
    assert list(item.gates) == [g for g in ORDER if g not in ("not_multihop", "accidentally_answerable")]
    judged = ["reference_not_supported", "unanswerable_from_source", "answerable_without_context"]
    assert all(item.gates[g] == NOT_CHECKED and "no judge configured" in item.gate_reasons[g] for g in judged)
    assert item.rejection is None and set(item.gates) == set(item.gate_reasons)
    assert item.evidence[0].start == 0 and "gate_prompts" not in item.provenance
    un = run_gates(unanswerable(), CTX, [])
    assert un.gates["accidentally_answerable"] == NOT_CHECKED and "reference_not_supported" not in un.gates


def test_the_pipeline_stops_at_the_first_rejection():
    item = run_gates(fact(question="According to the passage, when did the Varn Bridge open?"), CTX, [])
    assert list(item.gates) == ["type_mismatch", "ungrounded_reference", "not_self_contained"]
    assert item.rejection == "not_self_contained" and "'according to the passage'" in item.gate_reasons[
        "not_self_contained"]


#: the languages whose standing-alone question (support.gate_items.QUESTIONS) is too short for a sure detection and
#: is written in Latin letters, as English is: passed as unsure when English was asked, by design
UNSURE_LATIN = {"pt", "nl", "pl", "id"}


@pytest.mark.parametrize("lang", sorted(QUESTIONS))
def test_each_languages_question_passes_in_its_language_and_is_caught_in_english_unless_unsure(lang):
    question = fact(question=QUESTIONS[lang][1], reference="")
    assert language.check(question, replace(CTX, language=lang)).status == PASSED
    outcome = language.check(question, replace(CTX, language="en"))
    if lang == "en" or lang in UNSURE_LATIN:
        assert outcome.status == PASSED and (lang == "en" or "unsure" in outcome.reason)
    else:
        assert outcome.status == "wrong_language", outcome.reason
