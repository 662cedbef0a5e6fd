"""OTLP trace requests for the watch tests, built with opentelemetry-proto's own messages (what an OTLP/HTTP
exporter sends): each trace an OpenInference CHAIN root (question, answer) with a RETRIEVER child (documents), the
ids chosen by the caller so a test knows them."""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import time
import urllib.error
import urllib.request
from typing import Any, Sequence

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span


def trace_id(n: int) -> str:
    """A trace id (32 hex digits) made from ``n`` (its halves are the root's and the child's span ids)."""
    return hashlib.sha256(f"trace {n}".encode()).hexdigest()[:32]


def _kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=str(value)))


def spans(tid: str, question: str = "Where is Paris?", answer: str = "Paris is in France.",
          docs: Sequence[str] = ("Paris is the capital of France.",), root: bool = True, session: str | None = None,
          start: int | None = None, attrs: dict | None = None) -> list[Span]:
    """The spans of one trace ``tid``: the root (left out with ``root=False``) and a retriever child."""
    start = start if start is not None else time.time_ns()
    root_id, child_id = bytes.fromhex(tid[:16]), bytes.fromhex(tid[16:])
    root_attrs = {"openinference.span.kind": "CHAIN", "input.value": question, "output.value": answer,
                  **(attrs or {})}
    if session is not None:
        root_attrs["session.id"] = session
    child_attrs = {"openinference.span.kind": "RETRIEVER", "input.value": question}
    for i, doc in enumerate(docs):
        child_attrs[f"retrieval.documents.{i}.document.content"] = doc
        child_attrs[f"retrieval.documents.{i}.document.id"] = f"d{i}"
    out = [Span(trace_id=bytes.fromhex(tid), span_id=child_id, parent_span_id=root_id, name="retrieve",
                start_time_unix_nano=start + 1000, end_time_unix_nano=start + 2000,
                attributes=[_kv(k, v) for k, v in child_attrs.items()])]
    if root:
        out.append(Span(trace_id=bytes.fromhex(tid), span_id=root_id, name="rag", start_time_unix_nano=start,
                        end_time_unix_nano=start + 3000, attributes=[_kv(k, v) for k, v in root_attrs.items()]))
    return out


def request(span_list: Sequence[Span], resource: dict | None = None) -> ExportTraceServiceRequest:
    resource = resource if resource is not None else {"service.name": "rag-app"}
    block = ResourceSpans(scope_spans=[ScopeSpans(spans=list(span_list))])
    block.resource.attributes.extend(_kv(k, v) for k, v in resource.items())
    return ExportTraceServiceRequest(resource_spans=[block])


def as_json(message: ExportTraceServiceRequest, hex_ids: bool = True) -> dict:
    """The OTLP JSON form: hex ids as the OTLP spec writes them, or protobuf's base64 (``hex_ids=False``)."""
    data = json_format.MessageToDict(message)
    if hex_ids:
        for block in data.get("resourceSpans", []):
            for scope in block.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64decode(span[key]).hex()
    return data


def post(port: int, body: bytes, content_type: str = "application/x-protobuf", gzipped: bool = False,
         path: str = "/v1/traces", method: str = "POST", timeout: float = 30) -> tuple[int, dict, bytes]:
    """(status, headers, body) of one request to a receiver on 127.0.0.1."""
    headers = {"Content-Type": content_type}
    if gzipped:
        body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def json_body(message: ExportTraceServiceRequest, hex_ids: bool = True) -> bytes:
    return json.dumps(as_json(message, hex_ids)).encode()
