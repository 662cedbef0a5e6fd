"""The generation reply reader: what it reads (bare, fenced or chatty JSON) and what it refuses, with the reason
recorded under ``generation_failed``; and the reply schema each type sends."""
from __future__ import annotations

import json

import pytest

from genevals.generate.items import Evidence
from genevals.generate.llm_prompt import LLM_TYPES, schema
from genevals.generate.llm_reply import MAX_TURNS, GenerationFailed, read

GOOD = {"question": "How fast does the Varnholt station pump?", "reference": "40 litres a second.",
        "evidence": [{"chunk_id": "a#0", "quote": "lifts 40 litres a second"}]}


def test_a_reply_is_read_bare_fenced_or_with_chatter_around_it():
    for text in (json.dumps(GOOD), f"```json\n{json.dumps(GOOD)}\n```", f"Here it is:\n{json.dumps(GOOD)}\nDone."):
        reply = read(text, "stop", "fact", ["a#0"], 512)
        assert reply.question == GOOD["question"] and reply.reference == GOOD["reference"]
        assert reply.evidence == (Evidence("a#0", "lifts 40 litres a second"),)


def test_fields_are_stripped_and_the_variant_read_case_blind():
    reply = read(json.dumps({**GOOD, "question": "  Why?  ", "variant": " Comparison"}), None, "multi_hop",
                 ["a#0"], 512)
    assert reply.question == "Why?" and reply.variant == "comparison"


@pytest.mark.parametrize("reply, kind, reason", [
    ({**GOOD, "question": 3}, "fact", "the reply's 'question' is a int, not text"),
    ({**GOOD, "question": "   "}, "fact", "the reply's 'question' is blank"),
    ({**GOOD, "evidence": "lifts 40 litres"}, "fact", "the reply's 'evidence' is a str, not a list"),
    ({**GOOD, "evidence": ["lifts"]}, "fact", "evidence 1 is a str, not an object {chunk_id, quote}"),
    ({**GOOD, "evidence": [{"chunk_id": "a#0", "quote": " "}]}, "fact", "evidence 1 (chunk a#0) has no quote"),
    ({**GOOD, "evidence": [{"chunk_id": 7, "quote": "x"}]}, "fact", "evidence 1 cites chunk 7, which was not given"),
    ({**GOOD, "evidence": []}, "summary", "the reply quotes no evidence, which a summary item needs"),
    ({k: v for k, v in GOOD.items() if k != "question"}, "fact", "the reply has no 'question'"),
    (GOOD, "unanswerable", "the reply's 'variant' is None; a unanswerable item is one of out_of_scope, false_premise"),
    (GOOD, "follow_up", "a follow_up reply needs 'turns'"),
    ({**GOOD, "turns": [{"role": "system", "content": "x"}]}, "follow_up", "turn 1 is not {role: user or assistant"),
    ({**GOOD, "turns": [{"role": "user", "content": "x"}] * (MAX_TURNS + 1)}, "follow_up",
     f"the reply has {MAX_TURNS + 1} earlier turns; at most {MAX_TURNS}"),
    ("null", "fact", "the reply is a JSON NoneType, not an object"),
    ("[" * 100_000, "fact", "the reply is not JSON"),
])
def test_a_reply_that_gives_no_item_is_refused_with_the_reason(reply, kind, reason):
    text = reply if isinstance(reply, str) else json.dumps(reply)
    with pytest.raises(GenerationFailed) as failed:
        read(text, "stop", kind, ["a#0"], 512)
    assert reason in str(failed.value)


def test_an_unanswerable_item_may_quote_nothing():
    reply = read(json.dumps({**GOOD, "evidence": [], "variant": "false_premise"}), "stop", "unanswerable", ["a#0"],
                 512)
    assert reply.evidence == () and reply.variant == "false_premise"


def test_a_reply_cut_at_max_tokens_is_refused_even_when_its_json_is_whole():
    with pytest.raises(GenerationFailed, match=r"cut at max_tokens \(300 tokens\)"):
        read(json.dumps(GOOD), "length", "fact", ["a#0"], 300)


@pytest.mark.parametrize("kind", LLM_TYPES)
def test_each_types_schema_pins_the_chunk_ids_and_asks_its_own_fields(kind):
    found = schema(kind, ["a#0", "b#1", "a#0"])
    props = found["properties"]
    assert props["evidence"]["items"]["properties"]["chunk_id"]["enum"] == ["a#0", "b#1"]
    assert set(found["required"]) == set(props) and found["additionalProperties"] is False
    assert ("variant" in props) == (kind in ("multi_hop", "unanswerable"))
    assert ("turns" in props) == (kind == "follow_up")
    assert props["evidence"]["minItems"] == (0 if kind == "unanswerable" else 1)
