"""OpenInference traces in OTLP JSON: one sample per trace.

The file holds OTLP ``ExportTraceServiceRequest`` messages in their JSON form (the OpenTelemetry protocol spec,
https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): one per line as the OpenTelemetry Collector's
file exporter writes them, one JSON document, or an array of them. Each holds ``resourceSpans[].scopeSpans[].
spans[]``, a span's attributes a list of ``{"key", "value": {"stringValue" | "intValue" | "doubleValue" |
"boolValue" | "arrayValue" | "kvlistValue" | "bytesValue"}}``. Trace and span ids may be hex (the OTLP JSON
spec) or base64 (protobuf's own JSON mapping, ``json_format.MessageToJson``): base64 ids are shown as hex.

The attributes read are the OpenInference semantic conventions (package ``openinference-semantic-conventions``,
https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md):

- ``openinference.span.kind``: CHAIN, RETRIEVER, LLM, ...; a trace without any such span is refused;
- question: the root span's ``input.value``, else the first RETRIEVER span's, else the last user message
  (``llm.input_messages.N.message.content``) of the first LLM span;
- answer: the root span's ``output.value``, else the last LLM span's ``llm.output_messages.0.message.content``
  or ``output.value``;
- contexts: every RETRIEVER span's ``retrieval.documents.N.document.content`` / ``.id`` / ``.score``, spans
  in start order and documents in index order (the order retrieved);
- id: the trace id; system: ``--system-from ATTR``, an attribute of the root span, else of any span of the
  trace, else of the resource.
"""
from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from typing import Any, Iterator

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.records import Located, by_trace, expect, kind, system_of

KIND = "openinference.span.kind"
_DOC = re.compile(r"retrieval\.documents\.(\d+)\.document\.(content|id|score)\Z")
_MESSAGE = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(role|content)\Z")


def _get(obj: dict, camel: str) -> Any:
    """A field by its OTLP JSON name (lowerCamelCase), or by the proto name protobuf's JSON also accepts."""
    if camel in obj:
        return obj[camel]
    return obj.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


def _hex(value: Any) -> Any:
    """A trace or span id as hex: OTLP JSON's hex kept, protobuf JSON's base64 (16 or 8 bytes) decoded."""
    if not isinstance(value, str) or re.fullmatch(r"[0-9a-fA-F]{16}|[0-9a-fA-F]{32}", value):
        return value
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return raw.hex() if len(raw) in (8, 16) else value


def _value(value: Any, source: str, line: int, field: str) -> Any:
    value = expect(value, dict, source, line, field, "an OTLP AnyValue object ({\"stringValue\": ...})")
    for name in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if name in value:
            return value[name]
    if "intValue" in value:  # int64 travels as a JSON string
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            raise Located(source, line, f"{field}.intValue", f"expected an integer, got {value['intValue']!r}") from None
    if "arrayValue" in value:
        items = (value["arrayValue"] or {}).get("values") or []
        return [_value(v, source, line, f"{field}.arrayValue.values[{i}]") for i, v in enumerate(items)]
    if "kvlistValue" in value:
        return _attributes((value["kvlistValue"] or {}).get("values") or [], source, line, f"{field}.kvlistValue")
    if not value:
        return None
    raise Located(source, line, field, f"expected one of stringValue, intValue, doubleValue, boolValue, arrayValue, "
                                       f"kvlistValue, bytesValue; got {', '.join(map(repr, value))}")


def _attributes(items: Any, source: str, line: int, field: str) -> dict[str, Any]:
    items = expect(items, list, source, line, field, "a list of {\"key\", \"value\"} attributes")
    out = {}
    for index, item in enumerate(items):
        where = f"{field}[{index}]"
        item = expect(item, dict, source, line, where, "an attribute {\"key\", \"value\"}")
        key = expect(item.get("key"), str, source, line, f"{where}.key", "the attribute's name")
        out[key] = _value(item.get("value", {}), source, line, f"{where}.value")
    return out


class _Span:
    def __init__(self, data: dict, resource: dict, source: str, line: int, field: str) -> None:
        self.line, self.field, self.resource = line, field, resource
        self.trace = _hex(expect(_get(data, "traceId"), str, source, line, f"{field}.traceId", "the trace id"))
        self.id = _hex(_get(data, "spanId"))
        self.parent = _hex(_get(data, "parentSpanId")) or None
        self.name = data.get("name") or "?"
        start = _get(data, "startTimeUnixNano")
        self.start = int(start) if isinstance(start, (int, str)) and str(start).isdigit() else 0
        self.attributes = _attributes(data.get("attributes") or [], source, line, f"{field}.attributes")
        self.kind = str(self.attributes.get(KIND, "")).upper()


def _spans(record: Any, source: str, line: int) -> Iterator[_Span]:
    record = expect(record, dict, source, line, None, "an OTLP JSON export object with 'resourceSpans'")
    resource_spans = _get(record, "resourceSpans")
    if resource_spans is None:
        keys = ", ".join(repr(k) for k in list(record)[:6]) or "no keys"
        raise Located(source, line, "resourceSpans", "expected an OTLP JSON trace export (an object with "
                      f"'resourceSpans', as the OpenTelemetry Collector's file exporter writes), got an object with {keys}")
    expect(resource_spans, list, source, line, "resourceSpans", "a list")
    for r, block in enumerate(resource_spans):
        where = f"resourceSpans[{r}]"
        block = expect(block, dict, source, line, where, "an object")
        resource = _attributes(((block.get("resource") or {}).get("attributes")) or [], source, line,
                               f"{where}.resource.attributes")
        scopes = _get(block, "scopeSpans")
        scopes = expect(scopes if scopes is not None else [], list, source, line, f"{where}.scopeSpans", "a list")
        for s, scope in enumerate(scopes):
            scope = expect(scope, dict, source, line, f"{where}.scopeSpans[{s}]", "an object")
            spans = expect(scope.get("spans") or [], list, source, line, f"{where}.scopeSpans[{s}].spans", "a list")
            for n, span in enumerate(spans):
                field = f"{where}.scopeSpans[{s}].spans[{n}]"
                yield _Span(expect(span, dict, source, line, field, "a span object"), resource, source, line, field)


def _messages(span: _Span, direction: str) -> list[dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        m = _MESSAGE.match(key)
        if m and m.group(1) == direction:
            found.setdefault(int(m.group(2)), {})[m.group(3)] = value
    return [found[i] for i in sorted(found)]


def _contexts(span: _Span) -> list[dict[str, Any]]:
    docs: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        m = _DOC.match(key)
        if m:
            docs.setdefault(int(m.group(1)), {})[{"content": "text"}.get(m.group(2), m.group(2))] = value
    return [docs[i] for i in sorted(docs)]


def _sample(trace: str, spans: list[_Span], source: str, system_from: str | None) -> dict[str, Any]:
    spans.sort(key=lambda s: s.start)
    line = min(s.line for s in spans)  # the first line holding the trace, as its row says
    ids = {s.id for s in spans}
    roots = [s for s in spans if s.parent is None or s.parent not in ids]
    root = roots[0]
    typed = [s for s in spans if s.kind]
    if not typed:
        raise Located(source, line, KIND, f"trace {trace}: no span carries '{KIND}': expected spans following the "
                                          "OpenInference semantic conventions (CHAIN, RETRIEVER, LLM, ...)")
    retrievers = [s for s in spans if s.kind == "RETRIEVER"]
    llms = [s for s in spans if s.kind == "LLM"]
    question = root.attributes.get("input.value")
    if question is None and retrievers:
        question = retrievers[0].attributes.get("input.value")
    if question is None and llms:
        users = [m.get("content") for m in _messages(llms[0], "input") if m.get("role") == "user"]
        question = users[-1] if users else None
    answer = root.attributes.get("output.value")
    if answer is None and llms:
        out = _messages(llms[-1], "output")
        answer = out[0].get("content") if out else llms[-1].attributes.get("output.value")
    if not isinstance(answer, str):
        raise Located(source, line, "output.value", f"trace {trace}: no answer: expected 'output.value' on its root "
                      f"span '{root.name}' or 'llm.output_messages.0.message.content' on an LLM span"
                      + ("" if answer is None else f" (found {kind(answer)})"))
    contexts = [doc for span in retrievers for doc in _contexts(span)]
    places = [(f"root span '{root.name}'", root.attributes)] + [(f"span '{s.name}'", s.attributes) for s in spans
                                                               if s is not root] + [("the resource", root.resource)]
    row = {"id": trace, "question": question, "answer": answer, "contexts": contexts}
    system = system_of(system_from, places, source, line)
    if system is not None:
        row["system"] = system
    return row


def rows(path: str | Path, digest: Any, system_from: str | None) -> Iterator[RawRow | InputError]:
    """One row per trace, in the order the traces' first spans appear; located errors for what cannot be read."""
    return by_trace(path, digest, "openinference", _spans, _sample, system_from)
