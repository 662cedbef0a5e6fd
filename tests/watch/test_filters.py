"""``--filter``: each clause on attributes read from a real OTLP JSON export (the OpenTelemetry SDK's resource and
root span), the escapes, and every error naming the position it found."""
from __future__ import annotations

import json
import time

import pytest
from support.otlp_spans import write_rag_traces

from genevals.watch.filters import Filter, text_of

ATTRS = {"deployment.environment": "prod", "service.name": "rag-app", "llm.model_name": "gpt-4o-mini",
         "sampled": True, "tokens": 412, "score": 0.5, "tags": ["a", "b"], "note": "a,b\\c"}


@pytest.mark.parametrize("text,expected", [
    ("deployment.environment=prod", True),
    ("deployment.environment=dev", False),
    ("deployment.environment!=dev", True),
    ("missing!=x", True),  # absent: not equal
    ("missing=x", False),
    ("llm.model_name~^gpt-4o", True),
    ("llm.model_name~^gpt-4$", False),
    ("llm.model_name~mini", True),  # searched, not anchored
    ("missing~.*", False),
    ("sampled", True), ("missing", False), ("!missing", True), ("!sampled", False),
    ("sampled=true", True), ("tokens=412", True), ("score=0.5", True),
    ('tags=["a"\\, "b"]', True),  # a JSON list's comma, escaped
    ("llm.model_name~^gpt-\\d", True),  # a regex's own escape
    ("note~^a\\,b\\\\c$", True),  # in a regex: an escaped comma, and the regex's escaped backslash
    ("note=a\\,b\\\\c", True),  # an escaped comma and backslash
    ("deployment.environment=prod, service.name=rag-app ,!debug", True),
    ("deployment.environment=prod,service.name=other", False),
])
def test_each_clause(text, expected):
    assert Filter.parse(text).matches(ATTRS) is expected


def test_text_of_values():
    assert [text_of(v) for v in ("x", True, False, 3, 0.25, [1, "a"], {"b": 1, "a": 2})] == \
        ["x", "true", "false", "3", "0.25", '[1, "a"]', '{"a": 2, "b": 1}']


def test_the_reason_names_the_first_clause_that_fails_and_the_text_round_trips():
    f = Filter.parse(" deployment.environment=prod , note=a\\,b\\\\c, llm.model_name~x ")
    assert f.why_not(ATTRS) == "filter clause 'llm.model_name~x' does not hold"
    assert f.why_not({**ATTRS, "llm.model_name": "x"}) is None
    assert str(f) == "deployment.environment=prod,note=a\\,b\\\\c,llm.model_name~x"
    assert Filter.parse(str(f)) == Filter.parse(str(f))  # the written form reads back to the same clauses
    assert [str(c) for c in Filter.parse(str(f)).clauses] == [str(c) for c in f.clauses]


@pytest.mark.parametrize("text,position,what", [
    ("", 0, "an empty clause"),
    ("a=1,,b", 4, "an empty clause"),
    ("a=1,", 4, "an empty clause"),
    ("=prod", 0, "expected an attribute key"),
    ("env prod", 3, "expected '=', '!=' or '~'"),
    ("env>1", 3, "expected '=', '!=' or '~'"),
    ("!env=prod", 4, "'!key' takes no value"),
    ("a=1,model~gpt(", 10, "not a regex RE2 can run"),
    ("model~(a)\\1", 6, "not a regex RE2 can run"),  # a backreference: RE2 refuses what could backtrack
    ("model~(?=a)", 6, "not a regex RE2 can run"),  # lookaround neither
    ("a=x\\y", 3, "a backslash escapes only"),
    ("m~" + "a" * 501, 2, "a regex of 501 characters"),
])
def test_errors_name_the_position(text, position, what):
    with pytest.raises(ValueError) as caught:
        Filter.parse(text)
    assert f", position {position}: {what}" in str(caught.value)


def test_a_hostile_regex_on_a_hostile_value_returns_at_once():
    """``(a+)+$`` on 40,000 a's and a b: Python's re would backtrack for ever; RE2 is linear."""
    f = Filter.parse("x~(a+)+$")
    start = time.process_time()
    assert f.matches({"x": "a" * 40_000 + "b"}) is False  # no run of a's ends the text
    assert f.matches({"x": "b" + "a" * 40_000}) is True
    assert time.process_time() - start < 1.0


def test_on_a_real_exports_resource_and_root_span(tmp_path):
    """The attributes a watcher hands the filter: the resource's, then the root span's (flat, dotted keys)."""
    path = tmp_path / "spans.jsonl"
    [trace] = write_rag_traces(path, [{"question": "q", "answer": "a", "docs": [("d", "t", 1.0)],
                                       "system": "v2"}], hex_ids=True)
    attrs: dict = {}
    for line in path.read_text().splitlines():
        block = json.loads(line)["resourceSpans"][0]
        span = block["scopeSpans"][0]["spans"][0]
        if "parentSpanId" not in span or not span["parentSpanId"]:  # the root
            for kv in block["resource"]["attributes"] + span["attributes"]:
                attrs[kv["key"]] = next(iter(kv["value"].values()))
    assert attrs["service.name"] == "rag-app" and attrs["openinference.span.kind"] == "CHAIN"
    assert Filter.parse("service.name=rag-app,openinference.span.kind=CHAIN,input.value~^q$").matches(attrs)
    assert not Filter.parse("service.name=rag-app,deployment.environment=prod").matches(attrs)
    assert Filter.parse("metadata~\"system\": \"v2\"").matches(attrs)
