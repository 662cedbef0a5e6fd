"""OTLP bodies read into span records: protobuf and JSON, gzip, ids of every form, and a named refusal for each
thing that cannot be read."""
import base64
import gzip
import json

import pytest
from support.watch_traces import as_json, request, spans, trace_id

from genevals.watch.otlp import JSON, PROTOBUF, OtlpError, decode_body, filter_attributes, records_from_json

TID = trace_id(1)


def test_protobuf_and_json_bodies_give_the_same_records():
    message = request(spans(TID, session="s1"))
    from_proto = decode_body(message.SerializeToString(), PROTOBUF, None, 1 << 20)
    from_hex = decode_body(json.dumps(as_json(message)).encode(), JSON, None, 1 << 20)
    from_b64 = decode_body(json.dumps(as_json(message, hex_ids=False)).encode(), f"{JSON}; charset=utf-8",
                           None, 1 << 20)
    assert from_proto.records == from_hex.records == from_b64.records
    child, root = from_proto.records
    assert (root.trace_id, root.span_id, root.parent_id) == (TID, TID[:16], None)
    assert (child.parent_id, child.span_id) == (TID[:16], TID[16:])
    assert root.session == "s1" and child.session is None
    assert root.end_ns - root.start_ns == 3000
    assert root.body["span"]["traceId"] == TID and root.body["span"]["spanId"] == TID[:16]
    assert filter_attributes(root.body)["service.name"] == "rag-app"
    assert filter_attributes(root.body)["openinference.span.kind"] == "CHAIN"


def test_gzip_and_its_bomb():
    raw = request(spans(TID)).SerializeToString()
    assert decode_body(gzip.compress(raw), PROTOBUF, "gzip", 1 << 20).records
    bomb = gzip.compress(b"\0" * (4 << 20))
    with pytest.raises(OtlpError) as caught:
        decode_body(bomb, PROTOBUF, "gzip", 1 << 20)
    assert caught.value.status == 413
    with pytest.raises(OtlpError, match="malformed gzip"):
        decode_body(b"not gzip", PROTOBUF, "gzip", 1 << 20)


@pytest.mark.parametrize("body, kind, status, words", [
    (b"\xff\xff\xff", PROTOBUF, 400, "malformed protobuf"),
    (b"{", JSON, 400, "malformed JSON"),
    (b"[1]", JSON, 400, "expected an ExportTraceServiceRequest object"),
    (b'{"resourceSpans": 3}', JSON, 400, "resourceSpans: expected a list"),
    (b"\xc3(", JSON, 400, "not UTF-8"),
    (b"{}", "text/plain", 415, "unsupported Content-Type"),
    (b"[" * 100000, JSON, 400, "nested too deeply"),
])
def test_malformed_bodies_are_refused_with_a_reason(body, kind, status, words):
    with pytest.raises(OtlpError) as caught:
        decode_body(body, kind, None, 1 << 20)
    assert caught.value.status == status and words in caught.value.reason


def _one_span(**ids):
    span = {"traceId": TID, "spanId": "00f067aa0ba902b7", "name": "x", **ids}
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [span]}]}]}


@pytest.mark.parametrize("ids, words", [
    ({"traceId": ""}, "got an empty string"),
    ({"traceId": "abc"}, "neither"),
    ({"traceId": "0" * 32}, "all zeros"),
    ({"traceId": 12}, "got a number"),
    ({"spanId": TID}, "neither"),  # a trace id's length where a span id goes
    ({"spanId": base64.b64encode(b"\x01" * 16).decode()}, "neither"),  # base64 of 16 bytes for a span id
    ({"parentSpanId": "00f067aa0ba902b7"}, "its own parent"),
    ({"startTimeUnixNano": "-1"}, "nanoseconds"),
])
def test_bad_ids_refuse_the_span_and_keep_the_rest(ids, words):
    with pytest.raises(OtlpError, match=words):
        records_from_json(_one_span(**ids))
    good = _one_span()["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    message = _one_span(**ids)
    message["resourceSpans"][0]["scopeSpans"][0]["spans"].append(good)
    rejected: list[str] = []
    records = records_from_json(message, rejected)
    assert len(records) == 1 and len(rejected) == 1 and words in rejected[0]
    assert "spans[0]" in rejected[0]


def test_ids_in_base64_and_upper_case_hex_are_read_as_lower_case_hex():
    upper = _one_span(traceId=TID.upper())
    b64 = _one_span(traceId=base64.b64encode(bytes.fromhex(TID)).decode(), parentSpanId="")
    assert records_from_json(upper)[0].trace_id == TID
    record = records_from_json(b64)[0]
    assert record.trace_id == TID and record.parent_id is None
    assert records_from_json({})[0:] == []  # an empty export is valid


def test_every_gzip_member_is_read_and_trailing_zero_padding_is_allowed():
    """gzip(1) reads concatenated members as one stream; the receiver once answered 200 for the first member alone
    (the second trace lost). Found by the hostile corpus (watch-gzip-two-members)."""
    first, second = request(spans(TID)).SerializeToString(), request(spans(trace_id(2))).SerializeToString()
    body = gzip.compress(first) + gzip.compress(second) + b"\0" * 8
    parsed = decode_body(body, PROTOBUF, "gzip", 1 << 20)
    assert sorted({r.trace_id for r in parsed.records}) == sorted({TID, trace_id(2)})
    with pytest.raises(OtlpError, match="inflates past") as caught:  # the limit counts every member's bytes
        decode_body(gzip.compress(first) + gzip.compress(b"\0" * 1000), PROTOBUF, "gzip", len(first) + 500)
    assert caught.value.status == 413
    with pytest.raises(OtlpError, match="malformed gzip"):
        decode_body(gzip.compress(first) + b"garbage", PROTOBUF, "gzip", 1 << 20)


@pytest.mark.parametrize("nanos, kept", [(str(2 ** 63 - 1), True), (str(2 ** 63), False), (str(2 ** 64 - 1), False),
                                         (2 ** 63, False)])
def test_times_past_the_queues_signed_64_bits_refuse_the_span_not_the_batch(nanos, kept):
    """OTLP's fixed64 allows up to 2**64 - 1, SQLite's INTEGER stops at 2**63 - 1: such a span is refused with a
    reason, and the rest of the batch is kept (it once failed the whole batch's transaction: a 400 for all)."""
    message = as_json(request(spans(TID)))
    message["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["endTimeUnixNano"] = nanos
    rejected: list[str] = []
    records = records_from_json(message, rejected)
    assert len(records) == (2 if kept else 1)
    assert kept or ("endTimeUnixNano" in rejected[0] and "2262" in rejected[0])


def test_an_array_attribute_whose_values_are_no_list_is_read_as_empty():
    message = as_json(request(spans(TID, session="s1")))
    root = message["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    root["attributes"].append({"key": "tags", "value": {"arrayValue": {"values": 5}}})
    rejected: list[str] = []
    records = records_from_json(message, rejected)
    assert rejected == [] and len(records) == 2
    assert filter_attributes(records[1].body)["tags"] == []
