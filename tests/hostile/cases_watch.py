"""Cases: watch (issue 50): hostile inputs for ``genevals watch``'s OTLP/HTTP receiver and its followed file,
each through :mod:`hostile.watch_driver` (one hostile input, then a good one: no traceback, no hang, nothing
lost; see the driver's docstring for what is checked).

* **Receiver bodies** (:data:`BODIES`): malformed protobuf (cut short, random bytes, another message, a varint
  over 10 bytes, a length past the end, nesting past protobuf's limit, text that is not UTF-8), JSON (not JSON,
  a list, nested 100,000 deep, a 5,000-digit number, 1e400, NaN, a wrong type at every level of the request),
  ids of every type (empty, short, long, not hex, base64, all zeros, a number, null, a list, an object, a
  boolean), span cycles (its own parent, A->B->A, a ring beside a root), duplicate spans, 10,000 spans, a gzip
  bomb, gzip cut short, two gzip members, bodies over ``--max-body``, no or a lying ``Content-Length``, chunked,
  other paths, methods, content types and encodings, request lines and headers http.server refuses, a sender
  that resets the connection mid-body. Refused: a 4xx naming the reason; accepted: 200 with every sound span
  in the queue and the refused ones counted (OTLP partial success).
* **Slow senders** (:data:`SLOW`): a body trickled a byte at a time (and finished), one that stops halfway,
  headers that never end, twenty of them at once: a good request from another connection gets through
  meanwhile, and a sender that stops is dropped after the socket timeout.
* **The followed file** (:data:`FOLLOWS`): truncated while followed (to nothing, mid-line, rewritten longer
  between two looks), replaced by a folder, a FIFO or a link to /dev/zero, deleted and re-created, rotated with
  a half line, non-UTF-8 bytes, NUL bytes, a 50 MB line (junk and JSON), a 70 MB line (past the limit, also
  arriving in two parts), lines of a wrong shape, blank lines, CRLF, a BOM: every good line read, in order,
  each bad one refused naming ``file:line``.
* **Real watchers** (hostile/watch_real.py): ``genevals watch --from`` on hostile exports (cycles with and
  without a root, a parent chain 5,000 deep, 10,000 spans, duplicates, ids of every type beside a good trace,
  fields of the wrong type the receiver passes through), ``genevals watch --follow`` while its file is
  truncated, re-created, replaced by a FIFO or a folder, or given lines that are no export, and ``genevals watch
  --otlp-port 0`` sent each group of the receiver bodies above: every accepted trace gets exactly one decision
  (the good ones ``scored``), SIGTERM ends it with 0, no traceback.
"""
from __future__ import annotations

import json
import random
import zlib

from hostile.cases import ANY, OK, REFUSED, Case
from hostile.watch_driver import Body, slow
from hostile.watch_files import nested_anyvalue, varint

CLS = "watch"
MOD = '__import__("hostile.watch_driver", fromlist=["_"])'
REAL = '__import__("hostile.watch_real", fromlist=["_"])'
JSON = "application/json"


# ------------------------------------------------------------------ traces, built with opentelemetry-proto

def _tid(n: int) -> str:
    from support.watch_traces import trace_id

    return trace_id(n)


def _request(n: int, **kw):
    from support.watch_traces import request, spans

    return request(spans(_tid(n), **kw))


def _proto(n: int) -> bytes:
    return _request(n).SerializeToString()


def _json(n: int) -> dict:
    from support.watch_traces import as_json

    return as_json(_request(n))


def _with_span(span: dict, n: int = 1) -> dict:
    """Trace ``n`` (JSON, hex ids) with ``span`` added to its spans."""
    message = _json(n)
    message["resourceSpans"][0]["scopeSpans"][0]["spans"].append(span)
    return message


def _span(tid: str, sid: str, parent: str | None = None, **extra) -> dict:
    span = {"traceId": tid, "spanId": sid, "name": "s", "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            **extra}
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _export(*spans: dict) -> dict:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]}


def _jbody(message, stored: dict | None = None, rejected: int | None = None, **kw) -> Body:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return Body(data, JSON, stored=stored or {}, rejected=rejected, **kw)


def _gzip_stream(chunks) -> bytes:
    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(pack.compress(c) for c in chunks) + pack.flush()


def _many(n_spans: int, as_json: bool) -> Body:
    """One trace of ``n_spans`` spans: a root and its children."""
    from opentelemetry.proto.trace.v1.trace_pb2 import Span
    from support.watch_traces import json_body, request

    tid = _tid(7)
    root = bytes.fromhex(tid[:16])
    spans = [Span(trace_id=bytes.fromhex(tid), span_id=root, name="root", start_time_unix_nano=1,
                  end_time_unix_nano=2)]
    spans += [Span(trace_id=bytes.fromhex(tid), span_id=(i + 1).to_bytes(8, "big"), parent_span_id=root,
                   name=f"child {i}", start_time_unix_nano=1, end_time_unix_nano=2) for i in range(n_spans - 1)]
    message = request(spans)
    if as_json:
        return _jbody(json_body(message), {tid: n_spans}, 0, max_body=16 << 20)
    return Body(message.SerializeToString(), stored={tid: n_spans}, rejected=0, max_body=16 << 20)


def _wrong_message() -> bytes:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    message = ExportLogsServiceRequest()
    record = message.resource_logs.add().scope_logs.add().log_records.add()
    record.time_unix_nano, record.severity_text = 1_700_000_000_000_000_000, "ERROR"
    record.body.string_value = "not a span"
    return message.SerializeToString()


def _bad_utf8_name() -> bytes:
    data = _proto(1)
    return data.replace(b"retrieve", b"retr\xff\xfeve")


A, B, C, R = "a" * 15 + "1", "b" * 15 + "2", "c" * 15 + "3", "d" * 15 + "4"
T9 = "9" * 31 + "1"
#: id values of every type and shape (``n``: the hex digits a sound id has, 32 or 16), and whether it is sound
IDS = {
    "empty": (lambda n: "", False), "short": (lambda n: "abc123", False), "long": (lambda n: "ab" * n, False),
    "not-hex": (lambda n: "zz" * (n // 2), False), "all-zero": (lambda n: "0" * n, False),
    "base64": (lambda n: "q83vASNFZ4mrze8BI0VniQ==" if n == 32 else "q83vASNFZ4k=", True),
    "base64-short": (lambda n: "q83vASNFZ4mrze8BI0Vn" if n == 32 else "q83vASNF", False),
    "upper-hex": (lambda n: "AB" * (n // 2), True), "padded": (lambda n: " " + "ab" * (n // 2), False),
    "arabic-digits": (lambda n: "\u0661" * n, False), "int": (lambda n: 12345, False),
    "float": (lambda n: 1.5, False), "null": (lambda n: None, False), "list": (lambda n: ["ab" * (n // 2)], False),
    "object": (lambda n: {"id": "ab" * (n // 2)}, False), "true": (lambda n: True, False),
    "nan": (lambda n: float("nan"), False),
}
SOUND_TRACE = {"base64": "abcdef0123456789abcdef0123456789", "upper-hex": "ab" * 16}


def _id_body(kind: str, field: str) -> Body:
    make, sound = IDS[kind]
    value = make(32 if field == "traceId" else 16)
    tid, sid = "ab" * 16, "cd" * 8
    span = _span(value if field == "traceId" else tid, value if field == "spanId" else sid)
    if field == "parentSpanId":
        span["parentSpanId"] = value
        sound = sound or value in (None, "")  # an absent parent: a root
    stored = {_tid(1): 2}
    if sound:
        stored[SOUND_TRACE.get(kind, tid) if field == "traceId" else tid] = 1
    return _jbody(json.dumps(_with_span(span), allow_nan=True).encode(), stored, 0 if sound else 1)


def _proto_ids(trace: bytes, span: bytes, parent: bytes = b"") -> Body:
    """Trace 1, and one span with these raw protobuf ids (refused: counted, the rest kept)."""
    from opentelemetry.proto.trace.v1.trace_pb2 import Span

    message = _request(1)
    message.resource_spans[0].scope_spans[0].spans.append(Span(trace_id=trace, span_id=span, parent_span_id=parent,
                                                               name="odd ids"))
    return Body(message.SerializeToString(), stored={_tid(1): 2}, rejected=1)


PROTO_IDS = {"proto-traceid-empty": (b"", b"\x01" * 8), "proto-traceid-5-bytes": (b"\x01" * 5, b"\x01" * 8),
             "proto-traceid-20-bytes": (b"\x01" * 20, b"\x01" * 8), "proto-traceid-zero": (b"\x00" * 16, b"\x01" * 8),
             "proto-spanid-empty": (b"\x01" * 16, b""), "proto-spanid-16-bytes": (b"\x01" * 16, b"\x01" * 16),
             "proto-spanid-zero": (b"\x01" * 16, b"\x00" * 8),
             "proto-parent-3-bytes": (b"\x01" * 16, b"\x01" * 8, b"\x02" * 3),
             "proto-own-parent": (b"\x01" * 16, b"\x01" * 8, b"\x01" * 8)}

BODIES = {
    **{name: (lambda ids=ids: _proto_ids(*ids)) for name, ids in PROTO_IDS.items()},
    # -- malformed protobuf: refused, named
    "proto-cut-in-half": lambda: Body(_proto(1)[: len(_proto(1)) // 2], stored={_tid(1): 2}),
    "proto-cut-last-byte": lambda: Body(_proto(1)[:-1], stored={_tid(1): 2}),
    "proto-all-ff": lambda: Body(b"\xff" * 1000),
    "proto-varint-11-bytes-length": lambda: Body(b"\x0a" + b"\xff" * 10 + b"\x01"),
    "proto-varint-11-bytes-tag": lambda: Body(b"\xff" * 10 + b"\x01\x00"),
    "proto-length-past-end": lambda: Body(b"\x0a\x64" + b"\x00" * 5),
    "proto-length-2-62": lambda: Body(b"\x0a" + varint(2 ** 62) + b"x"),
    "proto-nested-200": lambda: Body(nested_anyvalue(200), stored={_tid(1): 2}),
    "proto-json-text": lambda: Body(json.dumps(_json(1)).encode(), stored={_tid(1): 2}),
    # -- malformed or foreign, but perhaps readable: a clear refusal or every sound span kept
    "proto-random-4k": lambda: Body(random.Random(1).randbytes(4096)),
    "proto-random-64": lambda: Body(random.Random(2).randbytes(64)),
    "proto-logs-request": lambda: Body(_wrong_message()),
    "proto-not-utf8-name": lambda: Body(_bad_utf8_name(), stored={_tid(1): 2}),
    "proto-as-json": lambda: Body(_proto(1), JSON, stored={_tid(1): 2}),
    # -- sound protobuf of odd shapes: accepted, every span kept
    "proto-empty": lambda: Body(b"", stored={}, rejected=0),
    "proto-10000-spans": lambda: _many(10_000, as_json=False),
    "proto-nested-20": lambda: Body(nested_anyvalue(20), stored={_tid(1): 2}, rejected=0),
    "proto-unknown-field": lambda: Body(_proto(1) + b"\xf8\x06\x07", stored={_tid(1): 2}, rejected=0),
    "proto-twice-concatenated": lambda: Body(_proto(1) + _proto(2), stored={_tid(1): 2, _tid(2): 2}, rejected=0),
    # -- JSON
    "json-not-json": lambda: _jbody(b"hello"),
    "json-empty-body": lambda: _jbody(b""),
    "json-list": lambda: _jbody(b"[]"),
    "json-string": lambda: _jbody(b'"resourceSpans"'),
    "json-null": lambda: _jbody(b"null"),
    "json-number": lambda: _jbody(b"1e400"),
    "json-nested-100000": lambda: _jbody(b"[" * 100_000 + b"]" * 100_000),
    "json-object-nested-5000": lambda: _jbody(b'{"a": ' * 5000 + b"1" + b"}" * 5000),
    "json-digits-5000": lambda: _jbody(json.dumps(_with_span(_span(T9, A))).replace(
        '"startTimeUnixNano": "1000"', '"startTimeUnixNano": ' + "9" * 5000).encode()),
    "json-time-1e400": lambda: _jbody(json.dumps(_with_span(_span(T9, A))).replace(
        '"startTimeUnixNano": "1000"', '"startTimeUnixNano": 1e400').encode(), {_tid(1): 2, T9: 0}, 1),
    "json-time-nan": lambda: _jbody(json.dumps(_with_span(_span(T9, A, startTimeUnixNano=float("nan")))).encode(),
                                    {_tid(1): 2, T9: 0}, 1),
    "json-time-negative": lambda: _jbody(_with_span(_span(T9, A, startTimeUnixNano=-5)), {_tid(1): 2}, 1),
    "json-time-bool": lambda: _jbody(_with_span(_span(T9, A, startTimeUnixNano=True)), {_tid(1): 2}, 1),
    "json-time-2-64": lambda: _jbody(_with_span(_span(T9, A, startTimeUnixNano=str(2 ** 64))), {_tid(1): 2}, 1),
    "json-time-2-64-minus-1": lambda: _jbody(_with_span(_span(T9, A, startTimeUnixNano=str(2 ** 64 - 1))),
                                             {_tid(1): 2, T9: 0}, 1),
    "json-time-2-63-minus-1": lambda: _jbody(_with_span(_span(T9, A, endTimeUnixNano=str(2 ** 63 - 1))),
                                             {_tid(1): 2, T9: 1}, 0),
    "json-attribute-nan": lambda: _jbody(json.dumps(_with_span(_span(T9, A, attributes=[
        {"key": "x", "value": {"doubleValue": float("nan")}}]))).encode(), {_tid(1): 2, T9: 1}, 0),
    "json-bom": lambda: _jbody(b"\xef\xbb\xbf" + json.dumps(_json(1)).encode(), {_tid(1): 2}),
    "json-latin1": lambda: _jbody(json.dumps(_json(1)).replace("Paris", "P\u00e4ris").encode("latin-1"),
                                  {_tid(1): 2}),
    "json-lone-surrogate": lambda: _jbody(json.dumps(_with_span(_span(T9, A, name="\ud800"))).encode(),
                                          {_tid(1): 2, T9: 1}, 0),
    "json-duplicate-keys": lambda: _jbody(b'{"resourceSpans": [], "resourceSpans": '
                                          + json.dumps(_json(1)["resourceSpans"]).encode() + b"}", {_tid(1): 2}, 0),
    "json-snake-case": lambda: _jbody(json.dumps(_json(1)).replace("resourceSpans", "resource_spans").replace(
        "scopeSpans", "scope_spans").replace("traceId", "trace_id").encode(), {_tid(1): 2}, 0),
    "json-charset-param": lambda: Body(json.dumps(_json(1)).encode(), JSON + "; charset=utf-8",
                                       stored={_tid(1): 2}, rejected=0),
    "json-10000-spans": lambda: _many(10_000, as_json=True),
    "json-empty-object": lambda: _jbody(b"{}", {}, 0),
    # a wrong type at every level of the request
    **{f"json-resource-spans-{k}": (lambda v=v: _jbody({"resourceSpans": v}))
       for k, v in {"object": {}, "string": "x", "number": 1, "true": True}.items()},
    "json-resource-spans-item-string": lambda: _jbody({"resourceSpans": ["x"]}),
    "json-resource-list": lambda: _jbody({"resourceSpans": [{"resource": [1], "scopeSpans": []}]}),
    "json-resource-list-empty": lambda: _jbody({"resourceSpans": [{"resource": [], "scopeSpans": {}}]}, {}, 0),
    "json-scope-spans-object": lambda: _jbody({"resourceSpans": [{"scopeSpans": {"a": 1}}]}),
    "json-scope-number": lambda: _jbody({"resourceSpans": [{"scopeSpans": [1]}]}),
    "json-spans-object": lambda: _jbody({"resourceSpans": [{"scopeSpans": [{"spans": {}}]}]}),
    "json-span-string": lambda: _jbody(_with_span("x"), {_tid(1): 2}, 1),
    "json-attributes-object": lambda: _jbody(_with_span(_span(T9, A, attributes={"k": 1})), {_tid(1): 2}, 1),
    "json-attribute-items-odd": lambda: _jbody(_with_span(_span(T9, A, attributes=[
        "x", 7, None, {"key": 1, "value": []}, {"key": "k"}, {"key": "v", "value": {"kvlistValue": {"values": [[]]}}},
        {"key": "session.id", "value": {"arrayValue": {"values": 5}}}])), {_tid(1): 2, T9: 1}, 0),
    "json-other-fields-wrong": lambda: _jbody(_with_span(_span(T9, A, name=7, kind="x", status=[], events="x",
                                                               links=5, droppedAttributesCount="many")),
                                              {_tid(1): 2, T9: 1}, 0),
    # -- ids of every type, in each id field
    **{f"json-{field.lower()}-{kind}": (lambda kind=kind, field=field: _id_body(kind, field))
       for field in ("traceId", "spanId", "parentSpanId") for kind in IDS},
    # -- span cycles and duplicates
    "json-own-parent": lambda: _jbody(_with_span(_span(T9, A, A)), {_tid(1): 2, T9: 0}, 1),
    "json-cycle-a-b-a": lambda: _jbody(_export(_span(T9, A, B), _span(T9, B, A)), {T9: 2}, 0),
    "json-ring-beside-root": lambda: _jbody(_export(_span(T9, R), _span(T9, A, C), _span(T9, B, A),
                                                    _span(T9, C, B)), {T9: 4}, 0),
    "json-duplicate-spans": lambda: _jbody(_export(*[_span(T9, R)] * 5, *[_span(T9, A, R)] * 5), {T9: 2}, 0),
    "json-two-roots": lambda: _jbody(_export(_span(T9, R), _span(T9, A)), {T9: 2}, 0),
    # -- sizes and encodings
    "body-over-max-body": lambda: Body(b"\x0a" * 200_000, max_body=100_000),
    "body-over-default-max-body": lambda: Body(b"\x00" * ((16 << 20) + 1), max_body=16 << 20),
    "gzip-bomb-100mb": lambda: Body(_gzip_stream([b"\x00" * (1 << 20)] * 100), headers=(("Content-Encoding",
                                                                                          "gzip"),)),
    "gzip-bomb-default-limit": lambda: Body(_gzip_stream([b"\x00" * (1 << 20)] * 64),
                                            headers=(("Content-Encoding", "gzip"),), max_body=16 << 20),
    "gzip-cut-short": lambda: Body(_gzip_stream([_proto(1)])[:-12], headers=(("Content-Encoding", "gzip"),),
                                   stored={_tid(1): 2}),
    "gzip-garbage": lambda: Body(b"\x1f\x8b" + b"\x00" * 50, headers=(("Content-Encoding", "gzip"),)),
    "gzip-not-gzip": lambda: Body(_proto(1), headers=(("Content-Encoding", "gzip"),), stored={_tid(1): 2}),
    "gzip-two-members": lambda: Body(_gzip_stream([_proto(1)]) + _gzip_stream([_proto(2)]),
                                     headers=(("Content-Encoding", "gzip"),), stored={_tid(1): 2, _tid(2): 2}),
    "encoding-br": lambda: Body(_proto(1), headers=(("Content-Encoding", "br"),), stored={_tid(1): 2}),
    "encoding-gzip-twice": lambda: Body(_proto(1), headers=(("Content-Encoding", "gzip, gzip"),)),
    # -- HTTP
    "no-content-length": lambda: Body(_proto(1), length=None, stored={_tid(1): 2}),
    "content-length-text": lambda: Body(_proto(1), length="abc", stored={_tid(1): 2}),
    "content-length-negative": lambda: Body(_proto(1), length="-1", stored={_tid(1): 2}),
    "content-length-huge": lambda: Body(_proto(1), length="9" * 30, stored={_tid(1): 2}),
    "content-length-longer-than-body": lambda: Body(_proto(1), length=len(_proto(1)) + 100, stored={_tid(1): 2},
                                                    dropped_ok=True),
    "content-length-shorter-than-body": lambda: Body(_proto(1), length=len(_proto(1)) - 10, stored={_tid(1): 2}),
    "content-length-twice": lambda: Body(_proto(1), headers=(("Content-Length", "3"),), stored={_tid(1): 2}),
    "chunked": lambda: Body(b"%x\r\n" % len(_proto(1)) + _proto(1) + b"\r\n0\r\n\r\n", length=None,
                            headers=(("Transfer-Encoding", "chunked"),), stored={_tid(1): 2}),
    "content-type-missing": lambda: Body(_proto(1), None, stored={_tid(1): 2}),
    "content-type-text": lambda: Body(_proto(1), "text/plain", stored={_tid(1): 2}),
    "content-type-grpc": lambda: Body(_proto(1), "application/grpc", stored={_tid(1): 2}),
    "path-logs": lambda: Body(_proto(1), path="/v1/logs", stored={_tid(1): 2}),
    "path-10000-chars": lambda: Body(_proto(1), path="/" + "a" * 10_000, stored={_tid(1): 2}),
    "path-query": lambda: Body(_proto(1), path="/v1/traces?x=1", stored={_tid(1): 2}, rejected=0),
    "method-get": lambda: Body(b"", method="GET"),
    "method-put": lambda: Body(_proto(1), method="PUT", stored={_tid(1): 2}),
    "method-unknown": lambda: Body(_proto(1), method="BREW", stored={_tid(1): 2}),
    "header-70000-bytes": lambda: Body(_proto(1), headers=(("X-Big", "x" * 70_000),), stored={_tid(1): 2}),
    "headers-200": lambda: Body(_proto(1), headers=tuple((f"X-{i}", "y") for i in range(200)), stored={_tid(1): 2}),
    "reset-mid-body": lambda: Body(_proto(1) + b"\x00" * 5000, length=len(_proto(1)) * 2 + 50_000,
                                   sender="reset", stored={_tid(1): 2}, dropped_ok=True),
}
#: expected outcomes by name, where not "refused naming HTTP 4xx and a word" (the default below)
ACCEPTED = {name for name, make in BODIES.items() if name.startswith("json-") and name in (
    "json-time-1e400", "json-time-nan", "json-time-negative", "json-time-bool", "json-time-2-64",
    "json-time-2-64-minus-1", "json-time-2-63-minus-1", "json-resource-list-empty",
    "json-attribute-nan", "json-bom", "json-lone-surrogate", "json-duplicate-keys", "json-snake-case",
    "json-charset-param",
    "json-10000-spans", "json-empty-object", "json-span-string", "json-attributes-object",
    "json-attribute-items-odd", "json-other-fields-wrong", "json-own-parent", "json-cycle-a-b-a",
    "json-ring-beside-root", "json-duplicate-spans", "json-two-roots")} | {
    name for name in BODIES if name.startswith(("json-traceid-", "json-spanid-", "json-parentspanid-"))} | {
    *PROTO_IDS, "proto-empty", "proto-10000-spans", "proto-nested-20", "proto-unknown-field", "proto-twice-concatenated",
    "path-query"}
#: either a clear refusal or accepted with every sound span kept
EITHER = {"proto-random-4k", "proto-random-64", "proto-logs-request", "proto-not-utf8-name", "proto-nested-200",
          "proto-json-text", "gzip-two-members", "content-length-twice", "content-length-longer-than-body",
          "reset-mid-body", "content-length-shorter-than-body"}
#: (status, word) a refusal must name
REFUSALS = {
    "proto-": ("HTTP 400", "malformed protobuf"), "json-": ("HTTP 400", "JSON"), "body-over": ("HTTP 413", "--max-body"),
    "gzip-bomb": ("HTTP 413", "inflates past"), "gzip-": ("HTTP 400", "gzip"), "encoding-": ("HTTP 415", "Encoding"),
    "no-content": ("HTTP 411", "Content-Length"), "content-length-huge": ("HTTP 413", "--max-body"),
    "content-length-": ("HTTP 400", "Content-Length"), "chunked": ("HTTP 411", "Content-Length"),
    "content-type-": ("HTTP 415", "Content-Type"), "path-": ("HTTP 404", "no such path"),
    "method-get": ("HTTP 405", "only POST"), "method-put": ("HTTP 405", "only POST"),
    "method-unknown": ("HTTP 501", "Unsupported method"), "header-": ("HTTP 431", "Line too long"),
    "headers-": ("HTTP 431", "Too many headers"), "json-resource-spans": ("HTTP 400", "resourceSpans"),
    "json-scope-spans": ("HTTP 400", "'scopeSpans' a list"),
    "json-scope-number": ("HTTP 400", "resourceSpans[0].scopeSpans[0]"), "json-spans-object": ("HTTP 400", "spans: expected a list"),
    "json-resource-list": ("HTTP 400", "'resource' an object"), "json-list": ("HTTP 400", "object, got a list"),
    "json-nested": ("HTTP 400", "nested too deeply"), "json-object-nested": ("HTTP 400", "nested too deeply"),
    "json-latin1": ("HTTP 400", "not UTF-8"), "proto-as-json": ("HTTP 400", "not UTF-8"),
    "json-string": ("HTTP 400", "ExportTraceServiceRequest object"),
    "json-null": ("HTTP 400", "ExportTraceServiceRequest object"),
    "json-number": ("HTTP 400", "ExportTraceServiceRequest object"), "json-digits": ("HTTP 400", "malformed JSON"),
}


def _refusal(name: str) -> tuple[str, ...]:
    return max(((p, w) for p, w in REFUSALS.items() if name.startswith(p)), key=lambda pw: len(pw[0]))[1]


SLOW = {
    "slow-trickled-body": lambda tmp: slow(tmp, Body(_proto(5), stored={_tid(5): 2}, rejected=0), finish=True),
    "slow-stopped-halfway": lambda tmp: slow(tmp, Body(_proto(5) * 3, stored={_tid(5): 2}, dropped_ok=True),
                                             finish=False),
    "slow-headers-never-end": lambda tmp: slow(tmp, Body(_proto(5), stored={_tid(5): 2}, dropped_ok=True),
                                               finish=False, headers_only=True),
    "slow-20-stopped": lambda tmp: slow(tmp, Body(_proto(5) * 3, stored={_tid(5): 2}, dropped_ok=True),
                                        finish=False, connections=20),
    "slow-20-trickled": lambda tmp: slow(tmp, Body(_proto(5), stored={_tid(5): 2}, rejected=0), finish=True,
                                         connections=20),
}


def _case(id: str, expect: str, api: str, where=(), limit: float = 30.0, module: str = MOD) -> Case:
    return Case(id=f"{CLS}-{id}", cls=CLS, expect=expect, where=tuple(where), api=f"{module}.{api}", limit=limit)


def cases() -> list[Case]:
    from hostile.watch_files import EXPORTS, FOLLOWS
    from hostile.watch_real import GROUPS, SCENES

    out = []
    for name in BODIES:
        if name in ACCEPTED:
            out.append(_case(name, OK, f"receive({name!r})"))
        elif name in EITHER:
            out.append(_case(name, ANY, f"receive({name!r})", where=("HTTP 4",)))
        else:
            out.append(_case(name, REFUSED, f"receive({name!r})", where=_refusal(name)))
    out += [_case(name, OK, f"receive({name!r})", limit=40.0) for name in SLOW]
    out += [_case(f"follow-{name}", OK, f"follow({name!r})", limit=40.0) for name in FOLLOWS]
    out += [_case(f"from-{name}", OK, f"backfill({name!r})", limit=40.0, module=REAL) for name in EXPORTS]
    out += [_case(f"followed-{name}", OK, f"followed({name!r})", limit=40.0, module=REAL) for name in SCENES]
    out += [_case(f"received-{name}", OK, f"received({name!r})", limit=40.0, module=REAL) for name in GROUPS]
    return out
