"""OTLP JSON traces (the format named ``openinference``, the first convention it read): one sample per trace.

The file holds OTLP ``ExportTraceServiceRequest`` messages in their JSON form (the OpenTelemetry protocol spec,
https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): one per line as the OpenTelemetry Collector's
file exporter writes them, one JSON document, or an array of them. Each holds ``resourceSpans[].scopeSpans[].
spans[]``, a span's attributes a list of ``{"key", "value": {"stringValue" | "intValue" | "doubleValue" |
"boolValue" | "arrayValue" | "kvlistValue" | "bytesValue"}}``. Trace and span ids may be hex (the OTLP JSON
spec) or base64 (protobuf's own JSON mapping, ``json_format.MessageToJson``): base64 ids are shown as hex.

The attributes read are those of the semantic conventions :mod:`~genevals.input.traces.conventions` knows
(OpenInference, Langfuse over OpenTelemetry, OpenTelemetry GenAI, OpenLLMetry): it says which attribute of a span
gives what, and which convention reads a span carrying several. A trace of which no span carries any of them is
refused, naming what was looked for. Per trace, whatever the conventions of its spans:

- question: the trace-level input (Langfuse's ``langfuse.trace.input``), else the root span's input, else the
  first RETRIEVER span's, else the last user message of the first LLM span;
- answer: the trace-level output (``langfuse.trace.output``), else the root span's output, else the last LLM
  span's first output message;
- contexts: every RETRIEVER span's documents, spans in start order and documents in their order (the order
  retrieved);
- session: the root span's (the first of ``session.id``, ``langfuse.session.id``, ``gen_ai.conversation.id``),
  else the first span's that has one;
- id: the trace id; system: ``--system-from ATTR``, an attribute of the root span, else of any span of the
  trace, else of the resource.

A convention's value that is not of its form (GenAI messages that are not JSON) refuses the span's trace, naming
the attribute; the other traces of the record are read.
"""
from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.grouping import LINK, by_trace, link
from genevals.input.traces.conventions import LLM, LOOKED_FOR, NONE, RETRIEVER, read, session_of
from genevals.input.traces.records import Located, expect, keys_of, kind, lookup, pick_system, shown
from genevals.input.traces.sessions import SESSION, START

KIND = "openinference.span.kind"
_INT = re.compile(r"-?[0-9]{1,19}")
_UINT64 = re.compile(r"[0-9]{1,20}")


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
    if value is None:  # an empty AnyValue, as an absent one
        return None
    value = expect(value, dict, source, line, field, "an OTLP AnyValue object ({\"stringValue\": ...})")
    for name in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if name in value:
            return value[name]
    if "intValue" in value:  # int64 travels as a JSON string
        number = value["intValue"]
        if isinstance(number, int) and not isinstance(number, bool):
            return number
        if isinstance(number, str) and _INT.fullmatch(number):
            return int(number)
        raise Located(source, line, f"{field}.intValue", f"expected an integer (int64), got {shown(number)}")
    for name, inner in (("arrayValue", "values"), ("kvlistValue", "values")):
        if name in value:
            holder = expect(value[name] or {}, dict, source, line, f"{field}.{name}", f"an object with '{inner}'")
            items = expect(holder.get(inner) or [], list, source, line, f"{field}.{name}.{inner}", "a list")
            if name == "kvlistValue":
                return _attributes(items, source, line, f"{field}.kvlistValue.values")
            return [_value(v, source, line, f"{field}.arrayValue.values[{i}]") for i, v in enumerate(items)]
    if not value:
        return None
    raise Located(source, line, field, f"expected one of stringValue, intValue, doubleValue, boolValue, arrayValue, "
                                       f"kvlistValue, bytesValue; got {', '.join(shown(k) for k in list(value)[:6])}")


def _attributes(items: Any, source: str, line: int, field: str) -> dict[str, Any]:
    items = expect(items, list, source, line, field, "a list of {\"key\", \"value\"} attributes")
    out = {}
    for index, item in enumerate(items):
        where = f"{field}[{index}]"
        item = expect(item, dict, source, line, where, "an attribute {\"key\", \"value\"}")
        key = expect(item.get("key"), str, source, line, f"{where}.key", "the attribute's name")
        out[key] = _value(item.get("value", {}), source, line, f"{where}.value")
    return out


def _span_id(value: Any, source: str, line: int, field: str, optional: bool) -> str | None:
    """A span id as hex; None for a parent that is absent, null or empty."""
    if optional and (value is None or value == ""):
        return None
    if not isinstance(value, str) or not value:
        raise Located(source, line, field, f"expected the span id (hex or base64 text), got {kind(value)}")
    return _hex(value)


def _nanos(value: Any, source: str, line: int, field: str) -> int:
    """A start time in nanoseconds since 1970 (uint64: text, as OTLP JSON writes it, or a number); 0 when absent."""
    if value is None:
        return 0
    if isinstance(value, str) and _UINT64.fullmatch(value) and int(value) < 2 ** 64:
        return int(value)
    if isinstance(value, float) and value.is_integer() and 0 <= value < 2 ** 64:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 64:
        return value
    raise Located(source, line, field, f"expected nanoseconds since 1970 (a whole number, 0 to 2^64-1, as text "
                                       f"or a number), got {shown(value)}")


class _Span(NamedTuple):
    """What a trace's row needs from one span, read when the span is (the attributes themselves are not kept:
    an export's prompts and documents would all be held until its last trace is complete)."""

    trace: str
    id: str | None
    parent: str | None
    start: int
    name: str
    line: int
    field: str
    convention: str  # the convention that read it ("" for none)
    kind: str  # its role: LLM, RETRIEVER, or another
    question: Any  # its input (input.value, langfuse.observation.input, ...)
    answer: Any  # its output
    user: Any  # an LLM span's last user message, else None
    llm_answer: Any  # an LLM span's first output message
    contexts: list  # a RETRIEVER span's documents
    trace_question: Any  # Langfuse's trace-level input and output
    trace_answer: Any
    problem: tuple | None  # (field, message): a convention's value not of its form, refusing the trace
    system: Any  # the --system-from attribute's value on this span, and on its resource
    resource_system: Any
    session: Any  # the first of conventions.SESSION_KEYS it carries


def _span(data: dict, resource: dict, source: str, line: int, field: str, system_from: str | None) -> _Span:
    trace = expect(_get(data, "traceId"), str, source, line, f"{field}.traceId", "the trace id")
    if not trace:
        raise Located(source, line, f"{field}.traceId", "expected the trace id, got an empty string")
    span_id = _span_id(_get(data, "spanId"), source, line, f"{field}.spanId", optional=False)
    parent = _span_id(_get(data, "parentSpanId"), source, line, f"{field}.parentSpanId", optional=True)
    start = _nanos(_get(data, "startTimeUnixNano"), source, line, f"{field}.startTimeUnixNano")
    name = data.get("name") if isinstance(data.get("name"), str) and data.get("name") else "?"
    attributes = _attributes(data.get("attributes") or [], source, line, f"{field}.attributes")
    problem = None
    try:
        reading = read(attributes, source, line, field)
    except Located as exc:  # kept for the trace's row: the other traces of this record are sound
        reading, problem = NONE, (exc.field, exc.message)
    system = lookup(attributes, system_from) if system_from else None
    resource_system = lookup(resource, system_from) if system_from else None
    return _Span(_hex(trace), span_id, parent, start, name[:80], line, field, *reading, problem, system,
                 resource_system, session_of(attributes))


def _spans(record: Any, source: str, line: int, system_from: str | None) -> Iterator[_Span]:
    record = expect(record, dict, source, line, None, "an OTLP JSON export object with 'resourceSpans'")
    resource_spans = _get(record, "resourceSpans")
    if resource_spans is None:
        keys = keys_of(record)
        raise Located(source, line, "resourceSpans", "expected an OTLP JSON trace export (an object with "
                      "'resourceSpans', as the OpenTelemetry Collector's file exporter writes), got an object with "
                      f"{keys}")
    expect(resource_spans, list, source, line, "resourceSpans", "a list")
    for r, block in enumerate(resource_spans):
        where = f"resourceSpans[{r}]"
        block = expect(block, dict, source, line, where, "an object")
        resource = expect(block.get("resource") or {}, dict, source, line, f"{where}.resource", "an object")
        resource = _attributes(resource.get("attributes") or [], source, line, f"{where}.resource.attributes")
        scopes = _get(block, "scopeSpans")
        scopes = expect(scopes if scopes is not None else [], list, source, line, f"{where}.scopeSpans", "a list")
        for s, scope in enumerate(scopes):
            scope = expect(scope, dict, source, line, f"{where}.scopeSpans[{s}]", "an object")
            spans = expect(scope.get("spans") or [], list, source, line, f"{where}.scopeSpans[{s}].spans", "a list")
            for n, span in enumerate(spans):
                field = f"{where}.scopeSpans[{s}].spans[{n}]"
                span = expect(span, dict, source, line, field, "a span object")
                yield _span(span, resource, source, line, field, system_from)


def _on_cycle(spans: list[_Span]) -> _Span:
    """A span on a cycle of parents, in a trace where every span has its parent in the trace (so following
    parents from any span must come back to one already passed)."""
    by_id = {s.id: s for s in spans}
    seen: set[str] = set()
    node = spans[0]
    while node.id not in seen:
        seen.add(node.id)
        node = by_id[node.parent]
    return node


def _sample(trace: str, spans: list[_Span], source: str, system_from: str | None) -> dict[str, Any]:
    spans.sort(key=lambda s: s.start)
    line = min(s.line for s in spans)  # the first line holding the trace, as its row says
    ids = {s.id for s in spans}
    root = next((s for s in spans if s.parent is None or s.parent not in ids), None)
    if root is None:
        looped = _on_cycle(spans)
        raise Located(source, looped.line, f"{looped.field}.parentSpanId", f"trace {trace}: no root span: every "
                      f"span has a parent in the trace, and the parents of span {looped.id} lead back to it "
                      f"(parentSpanId {looped.parent})")
    if not any(s.convention for s in spans) and not any(s.problem for s in spans):
        raise Located(source, line, KIND, f"trace {trace}: no span carries {LOOKED_FOR}: expected spans following "
                                          "one of these semantic conventions")
    bad = next((s for s in spans if s.problem is not None), None)
    if bad is not None:
        raise Located(source, bad.line, bad.problem[0], f"trace {trace}: {bad.problem[1]}")
    retrievers = [s for s in spans if s.kind == RETRIEVER]
    llms = [s for s in spans if s.kind == LLM]
    given = sorted(spans, key=lambda s: s is not root)  # the root's trace-level values first, then in start order
    question = next((s.trace_question for s in given if s.trace_question is not None), root.question)
    if question is None and retrievers:
        question = retrievers[0].question
    if question is None and llms:
        question = llms[0].user
    answer = next((s.trace_answer for s in given if s.trace_answer is not None), root.answer)
    if answer is None and llms:
        answer = llms[-1].llm_answer
    if not isinstance(answer, str):
        raise Located(source, line, "output.value", f"trace {trace}: no answer: expected 'output.value' on its root "
                      f"span '{root.name}' or 'llm.output_messages.0.message.content' on an LLM span (or a "
                      "convention's output: langfuse.observation.output, gen_ai.output.messages, "
                      "traceloop.entity.output)" + ("" if answer is None else f" (found {kind(answer)})"))
    contexts = [doc for span in retrievers for doc in span.contexts]
    row = {"id": trace, "question": question, "answer": answer, "contexts": contexts, LINK: link(trace, root.id)}
    session = root.session if root.session is not None else next((s.session for s in spans if s.session is not None),
                                                                  None)
    if session is not None:
        row.update({SESSION: session, START: root.start})
    if system_from is not None:
        found = [(f"root span '{root.name}'", root.system)]
        found += [(f"span '{s.name}'", s.system) for s in spans if s is not root]
        row["system"] = pick_system(system_from, found + [("the resource", root.resource_system)], source, line)
    return row


def rows(path: str | Path, digest: Any, system_from: str | None) -> Iterator[RawRow | InputError]:
    """One row per trace, in the order the traces' first spans appear; located errors for what cannot be read."""
    return by_trace(path, digest, "openinference", _spans, _sample, system_from, _Span)
