"""Where the judge's words stand in the sample (genevals/metrics/faithfulness/locating.py): a claim's excerpt in
the answer, a verdict's quote in the contexts; offsets counted by hand."""
from genevals.metrics.faithfulness.locating import claim_in_answer, verdict_in_contexts
from genevals.types import Context, Sample

ANSWER = "The bridge opened in 1932. It carries six lanes."
SAMPLE = Sample("q1", ANSWER, "When did the bridge open?",
                (Context("Traffic: the bridge carries six lanes.", 1), Context("The bridge opened in 1932.", 2)))


def test_a_claim_is_placed_by_its_excerpt():
    claim = claim_in_answer(0, "The bridge carries six lanes.", "It carries six lanes.", SAMPLE, 90.0)
    assert claim.located and claim.spans == ((27, 48),) and ANSWER[27:48] == "It carries six lanes."


def test_a_claim_not_in_the_answer_is_kept_apart_with_why():
    missing = claim_in_answer(1, "The bridge is red.", "painted bright red", SAMPLE, 90.0)
    assert not missing.located and missing.note == "source excerpt not found in the answer"
    # the excerpt is the answer's, the claim's words are not: invented content
    invented = claim_in_answer(2, "Engineers from Oslo designed its steel towers.", "It carries six lanes.",
                               SAMPLE, 90.0)
    assert not invented.located and "invented content" in invented.note


def test_a_quote_is_found_in_the_context_that_holds_it():
    named = verdict_in_contexts(0, {"label": "supported", "context": 2, "quote": "opened in 1932",
                                    "reason": "stated"}, SAMPLE.contexts)
    assert (named.context_index, named.quote_found, named.quote_span, named.reason) == (1, True, (11, 25), "stated")
    # the judge named context 2, the quote is in context 1: the verdict says so
    moved = verdict_in_contexts(1, {"label": "supported", "context": 2, "quote": "carries six lanes"},
                                SAMPLE.contexts)
    assert moved.context_index == 0 and moved.quote_span == (20, 37)
    assert moved.reason == "[quote found in context 1, not the context 2 the judge named]"
    nowhere = verdict_in_contexts(2, {"label": "unverifiable", "context": 9, "quote": "four lanes"}, SAMPLE.contexts)
    assert nowhere.context_index is None and not nowhere.quote_found and nowhere.quote_span is None


def test_a_claim_with_numbers_or_names_not_in_the_answer_is_invented():
    """Issue 52: the excerpt is the answer's and most words are too, but the numbers or names are not."""
    fare = Sample("q03", "Adults pay 18 crowns for a return.", "How much is a return?", (Context("x", 1),))
    assert claim_in_answer(0, "Adults pay eighteen crowns for a return.", "Adults pay 18 crowns", fare, 90.0).located
    invented = claim_in_answer(1, "Adults pay 20 crowns for a return.", "Adults pay 18 crowns", fare, 90.0)
    assert not invented.located and invented.note.startswith("number(s) not in the answer: 20")
    assert invented.to_dict()["status"] == "invented"
    curie = Sample("c", "She was born in Warsaw.", "Where was Marie Curie born?", (Context("x", 1),))
    assert claim_in_answer(0, "Marie Curie was born in Warsaw.", "born in Warsaw", curie, 90.0).located
    assert "name(s) not in the answer: pierre" in claim_in_answer(1, "Pierre Curie was born in Warsaw.",
                                                                   "born in Warsaw", curie, 90.0).note
    zh = Sample("z", "票价为١٨克朗。", "", (Context("x", 1),))  # digits of another script are the same number
    assert claim_in_answer(0, "票价为18克朗", "票价为١٨克朗", zh, 90.0).located
    assert not claim_in_answer(1, "票价为２０克朗", "票价为١٨克朗", zh, 90.0).located
