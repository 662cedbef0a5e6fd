"""Judge replies -> JSON, claims, verdicts and rubric scores: lenient about packaging, strict about meaning."""
from __future__ import annotations

import json

import pytest

from genevals.metrics.judging.parse import (ParseError, extract_json, normalize_label, parse_claims, parse_rubric,
                                  parse_verdicts)

TWO_CLAIMS = '{"claims": [{"claim": "A is B.", "source": "A is B"}, {"claim": "C is D.", "source": "C is D"}]}'


# -- extract_json --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    '{"a": 1}',
    '  {"a": 1}\n',
    '```json\n{"a": 1}\n```',
    '```\n{"a": 1}\n```',
    'Sure! Here it is: {"a": 1} Hope that helps.',
    'Here:\n```JSON\n{"a": 1}\n```\nand some more words',
    '```\nnot json\n```\nbut then {"a": 1}',
])
def test_extract_json_finds_the_object_in_its_packaging(text):
    assert extract_json(text) == ({"a": 1}, False)


def test_extract_json_takes_the_first_object_and_raw_newlines_in_strings():
    assert extract_json('x {"a": 1} y {"b": 2}') == ({"a": 1}, False)
    assert extract_json('{"a": "line one\nline two\ttab"}') == ({"a": "line one\nline two\ttab"}, False)
    assert extract_json("[1, 2]") == ([1, 2], False)  # valid JSON of any type comes back as it is
    assert extract_json('{"a": 1}}') == ({"a": 1}, False)  # a stray closer after a complete object


@pytest.mark.parametrize("text,reason", [
    ("", "empty reply"),
    ("   \n", "empty reply"),
    (None, "empty reply"),
    ("no json here", "reply contains no JSON object"),
    ("[1, 2", "reply contains no JSON object"),
    ('{"claims": [', "no complete part of it could be recovered"),
    ('{"claims": [}', "no complete part of it could be recovered"),
])
def test_extract_json_errors(text, reason):
    with pytest.raises(ParseError, match=reason):
        extract_json(text)


def test_truncated_reply_is_salvaged_after_the_last_complete_element():
    cut = '{"claims": [{"claim": "A is B.", "source": "A is B"}, {"claim": "C is D.", "sou'
    assert extract_json(cut) == ({"claims": [{"claim": "A is B.", "source": "A is B"}]}, True)
    # chatter before the object does not matter; an escaped quote inside a string does not end it
    cut = 'Reply: {"verdicts": [{"id": 1, "reason": "says \\"yes\\" {"}, {"id": 2, "lab'
    assert extract_json(cut) == ({"verdicts": [{"id": 1, "reason": 'says "yes" {'}]}, True)
    # cut after a complete list: the list is kept and the object closed
    assert extract_json('{"verdicts": [{"id": 1}], "note": "abc') == ({"verdicts": [{"id": 1}]}, True)


# -- labels --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("raw,label", [
    ("supported", "supported"), ("Supported", "supported"), ("SUPPORTS", "supported"), ("entailment", "supported"),
    ("  true ", "supported"), ("yes", "supported"),
    ("contradicted", "contradicted"), ("Refuted", "contradicted"), ("contradiction", "contradicted"),
    ("false", "contradicted"), ("incorrect", "contradicted"),
    ("unverifiable", "unverifiable"), ("Not_Supported", "unverifiable"), ("not enough info.", "unverifiable"),
    ("NEI", "unverifiable"), ("neutral", "unverifiable"), ("no", "unverifiable"),
    ("maybe", None), ("", None), (3, None), (None, None), (True, None),
])
def test_label_synonyms(raw, label):
    assert normalize_label(raw) == label


# -- claims --------------------------------------------------------------------------------------------------
def test_parse_claims_reads_every_item_shape():
    reply = json.dumps({"claims": [{"claim": " A is B. ", "source": "A is B"}, "C is D.",
                                   {"text": "E is F.", "excerpt": "E is F"}, {"statement": "G is H.", "span": "G"}]})
    claims, issues = parse_claims(reply, 12)
    assert claims == [{"claim": "A is B.", "source": "A is B"}, {"claim": "C is D.", "source": "C is D."},
                      {"claim": "E is F.", "source": "E is F"}, {"claim": "G is H.", "source": "G"}]
    assert issues == []


@pytest.mark.parametrize("reply", [
    '{"statements": [{"claim": "A is B.", "source": "A is B"}]}',
    '{"facts": [{"claim": "A is B.", "source": "A is B"}]}',
    '{"items": [{"claim": "A is B.", "source": "A is B"}], "count": 1}',  # the only list in the object
    '[{"claim": "A is B.", "source": "A is B"}]',
])
def test_parse_claims_list_aliases(reply):
    assert parse_claims(reply, 12) == ([{"claim": "A is B.", "source": "A is B"}], [])


def test_parse_claims_drops_bad_items_with_an_issue_each():
    reply = json.dumps({"claims": [{"claim": "A is B.", "source": "A"}, {"claim": "a is b.", "source": "x"},
                                   {"claim": 5, "source": "x"}, 3, {"claim": "   ", "source": "y"},
                                   {"claim": "C is D.", "source": None}]})
    claims, issues = parse_claims(reply, 12)
    assert claims == [{"claim": "A is B.", "source": "A"}, {"claim": "C is D.", "source": ""}]
    assert issues == ["duplicate claim dropped", "a claim item has non-text fields; dropped",
                      "a claim item is a int; dropped"]


def test_parse_claims_keeps_the_first_max_claims():
    reply = json.dumps({"claims": [f"Claim {i}." for i in range(5)]})
    claims, issues = parse_claims(reply, 2)
    assert [c["claim"] for c in claims] == ["Claim 0.", "Claim 1."]
    assert issues == ["5 claims returned; kept the first 2"]


def test_parse_claims_truncated():
    claims, issues = parse_claims(TWO_CLAIMS[:-30], 12)
    assert claims == [{"claim": "A is B.", "source": "A is B"}]
    assert issues == ["reply was truncated; kept the complete claims"]


@pytest.mark.parametrize("reply,reason", [
    ('{"claims": "none"}', "reply has no 'claims' list"),
    ('{"a": [1], "b": [2]}', "reply has no 'claims' list"),  # two lists: which one?
    ('"just a string"', "reply has no 'claims' list"),
    ("Sorry, I can't.", "reply contains no JSON object"),
    ("[" * 100000 + "]" * 100000, r"unreadable reply \(RecursionError"),  # any failure is a ParseError
])
def test_parse_claims_errors(reply, reason):
    with pytest.raises(ParseError, match=reason):
        parse_claims(reply, 12)


# -- verdicts ------------------------------------------------------------------------------------------------
def test_parse_verdicts_ids_fields_and_issues():
    reply = json.dumps({"verdicts": [
        {"id": 1, "context": 2, "quote": "q", "label": "Supported", "reason": "r"},
        {"id": "2", "context_index": "[1]", "evidence": "e", "verdict": "refuted"},
        {"id": 1, "label": "unverifiable"},
        {"id": 7, "label": "supported"},
        {"id": 3, "label": "maybe"},
        "junk",
        {"claim_id": "claim 4", "label": "nei", "quote": 5, "reason": ["x"]},
        {"id": True, "label": "supported"},
    ]})
    verdicts, issues = parse_verdicts(reply, {1, 2, 3, 4})
    assert verdicts == {1: {"label": "supported", "context": 2, "quote": "q", "reason": "r"},
                        2: {"label": "contradicted", "context": 1, "quote": "e", "reason": ""},
                        4: {"label": "unverifiable", "context": None, "quote": "", "reason": ""}}
    assert issues == ["second verdict for claim 1 ignored", "verdict for unknown claim id 7 ignored",
                      "claim 3: unknown label 'maybe'", "a verdict item is a str; dropped",
                      "verdict for unknown claim id True ignored"]


@pytest.mark.parametrize("raw_id,wanted", [("#3", 3), ("[3]", 3), ("Claim 3", 3), (3.0, 3), (" 3 ", 3)])
def test_parse_verdicts_id_forms(raw_id, wanted):
    verdicts, issues = parse_verdicts(json.dumps({"verdicts": [{"id": raw_id, "label": "supported"}]}), {3})
    assert list(verdicts) == [wanted] and issues == []


@pytest.mark.parametrize("raw_id", [3.5, "three", None, "3a"])
def test_parse_verdicts_unreadable_ids_are_ignored(raw_id):
    verdicts, issues = parse_verdicts(json.dumps({"verdicts": [{"id": raw_id, "label": "supported"}]}), {3})
    assert verdicts == {} and issues == [f"verdict for unknown claim id {raw_id!r} ignored"]


def test_parse_verdicts_aliases_truncation_and_errors():
    assert parse_verdicts('{"results": [{"id": 1, "label": "yes"}]}', {1})[0][1]["label"] == "supported"
    cut = '{"verdicts": [{"id": 1, "label": "supported"}, {"id": 2, "label": "supp'
    verdicts, issues = parse_verdicts(cut, {1, 2})
    assert list(verdicts) == [1] and issues == ["reply was truncated; kept the complete verdicts"]
    with pytest.raises(ParseError, match="reply has no 'verdicts' list"):
        parse_verdicts('{"verdicts": {"id": 1}}', {1})
    with pytest.raises(ParseError, match="empty reply"):
        parse_verdicts("", {1})


# -- rubric --------------------------------------------------------------------------------------------------
def test_parse_rubric_scores_and_issues():
    reply = json.dumps({"scores": {"coherence": {"score": 4, "reason": "r"}, "fluency": 5,
                                   "relevance": {"score": 0}, "coverage": {"score": "3"}, "style": {"score": True}}})
    scores, issues = parse_rubric(reply, ["coherence", "fluency", "relevance", "coverage", "style", "extra"])
    assert scores == {"coherence": {"score": 4, "reason": "r"}, "fluency": {"score": 5, "reason": ""},
                      "coverage": {"score": 3, "reason": ""}}
    assert issues == ["relevance: missing or out-of-range score {'score': 0}",
                      "style: missing or out-of-range score {'score': True}",
                      "extra: missing or out-of-range score None"]


def test_parse_rubric_top_level_scores_truncation_and_errors():
    assert parse_rubric('{"coherence": {"score": 2, "reason": 7}}', ["coherence"]) == (
        {"coherence": {"score": 2, "reason": ""}}, [])
    scores, issues = parse_rubric('{"scores": {"a": {"score": 1, "reason": "r"}, "b": {"score": 5, "rea', ["a", "b"])
    assert scores == {"a": {"score": 1, "reason": "r"}}
    assert issues == ["reply was truncated", "b: missing or out-of-range score None"]
    for reply in ('{"scores": [1, 2]}', "[1, 2]"):
        with pytest.raises(ParseError, match="reply has no 'scores' object"):
            parse_rubric(reply, ["a"])
