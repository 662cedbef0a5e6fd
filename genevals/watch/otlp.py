"""OTLP/HTTP trace bodies -> span records (the OTLP spec, https://opentelemetry.io/docs/specs/otlp/#otlphttp).

A body is an ``ExportTraceServiceRequest``: protobuf (``application/x-protobuf``) or its JSON form
(``application/json``), optionally gzip-compressed (``Content-Encoding: gzip``). Protobuf is turned into protobuf's
own JSON mapping (``json_format.MessageToDict``), so both forms are read by one path, :func:`records_from_json`,
which the followed file (W2's follow.py) also uses.

Ids: the OTLP JSON spec writes trace and span ids as hex (32 and 16 digits); protobuf's JSON mapping writes their
bytes as base64. Both are read and kept as lower-case hex. An id that is empty, of another length, neither hex nor
base64, or all zeros (OpenTelemetry's "invalid") refuses that span with a reason; the other spans of the body are
kept (the OTLP partial-success answer counts the refused ones). A span keeps its JSON whole (with hex ids), and
its resource's, so a window can write its traces back out as OTLP JSON lines for the trace reader.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from genevals.input.traces.conventions import SESSION_KEYS

PROTOBUF, JSON = "application/x-protobuf", "application/json"
_HEX = {16: re.compile(r"[0-9a-fA-F]{32}\Z"), 8: re.compile(r"[0-9a-fA-F]{16}\Z")}
_UINT64 = re.compile(r"[0-9]{1,20}\Z")


class OtlpError(ValueError):
    """A body or span that cannot be read; ``status`` is the HTTP answer it earns (400, 413, 415)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.reason, self.status = reason, status


@dataclass(frozen=True)
class SpanRecord:
    """One span as the queue keeps it: ids in lower-case hex (``parent_id`` None for a root), start and end in
    nanoseconds since 1970 (0 when absent), the trace's session if this span carries one (the first of
    :data:`~genevals.input.traces.conventions.SESSION_KEYS`: ``session.id``, ``langfuse.session.id``,
    ``gen_ai.conversation.id``, as the trace reader takes it), and ``body``:
    ``{"resource": <OTLP JSON resource>, "span": <OTLP JSON span, hex ids>}``."""

    trace_id: str
    span_id: str
    parent_id: str | None
    start_ns: int
    end_ns: int
    session: str | None
    body: dict = field(compare=False, repr=False)


@dataclass
class Parsed:
    """The records read from a body, and a reason for each span refused."""

    records: list[SpanRecord]
    rejected: list[str]


def decode_body(raw: bytes, content_type: str | None, encoding: str | None, max_body: int) -> Parsed:
    """A request body as records: gunzipped (never past ``max_body`` bytes: 413), parsed by its content type
    (415 for another), and read. :class:`OtlpError` with the status to answer."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind not in (PROTOBUF, JSON):
        raise OtlpError(f"unsupported Content-Type {content_type!r}: expected {PROTOBUF} or {JSON}", 415)
    enc = (encoding or "identity").strip().lower()
    if enc == "gzip":
        raw = _gunzip(raw, max_body)
    elif enc not in ("identity", ""):
        raise OtlpError(f"unsupported Content-Encoding {encoding!r}: expected gzip or none", 415)
    if kind == PROTOBUF:
        try:
            message = json_format.MessageToDict(ExportTraceServiceRequest.FromString(raw))
        except (DecodeError, RecursionError, ValueError) as exc:
            raise OtlpError(f"malformed protobuf ExportTraceServiceRequest: {exc}") from None
    else:
        try:
            message = json.loads(raw.decode("utf-8-sig"))  # a leading BOM read past, as the follow mode does
        except UnicodeDecodeError as exc:
            raise OtlpError(f"the JSON body is not UTF-8 (byte {exc.start})") from None
        except RecursionError:
            raise OtlpError("malformed JSON: nested too deeply") from None
        except ValueError as exc:
            raise OtlpError(f"malformed JSON: {exc}") from None
    rejected: list[str] = []
    return Parsed(records_from_json(message, rejected), rejected)


def _gunzip(raw: bytes, limit: int) -> bytes:
    """gzip's content, refused (413) as soon as it grows past ``limit`` bytes: a small bomb is not inflated."""
    out = b""
    try:
        while True:  # one member after another, as gunzip reads them (RFC 1952, 2.2): none is dropped
            inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += inflate.decompress(raw, limit + 1 - len(out))
            if len(out) > limit or inflate.unconsumed_tail:
                raise OtlpError(f"the gzip body inflates past --max-body ({limit:,} bytes)", 413)
            if not inflate.eof:
                raise OtlpError("malformed gzip body: it ends early")
            raw = inflate.unused_data
            if not raw.strip(b"\0"):  # trailing zero bytes pad some writers' output (gzip(1) ignores them)
                return out
    except zlib.error as exc:
        raise OtlpError(f"malformed gzip body: {exc}") from None


def records_from_json(message: Any, rejected: list[str] | None = None) -> list[SpanRecord]:
    """The spans of one ``ExportTraceServiceRequest`` in JSON form (hex or base64 ids, camelCase or proto
    field names). A body not of that shape raises :class:`OtlpError`; a bad span raises it too, unless
    ``rejected`` is given: then its reason is appended there and the other spans are kept."""
    if not isinstance(message, dict):
        raise OtlpError(f"expected an ExportTraceServiceRequest object, got {_kind(message)}")
    blocks = _get(message, "resourceSpans")
    if blocks is None:
        blocks = []  # an empty export is valid (the OTLP spec: an exporter may send one)
    if not isinstance(blocks, list):
        raise OtlpError(f"resourceSpans: expected a list, got {_kind(blocks)}")
    out = []
    for r, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise OtlpError(f"resourceSpans[{r}]: expected an object, got {_kind(block)}")
        resource = block.get("resource") or {}
        scopes = _get(block, "scopeSpans") or []
        if not isinstance(resource, dict) or not isinstance(scopes, list):
            raise OtlpError(f"resourceSpans[{r}]: expected 'resource' an object and 'scopeSpans' a list")
        for s, scope in enumerate(scopes):
            spans = scope.get("spans") if isinstance(scope, dict) else None
            if not isinstance(spans, list):
                raise OtlpError(f"resourceSpans[{r}].scopeSpans[{s}].spans: expected a list")
            for n, span in enumerate(spans):
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{n}]"
                try:
                    out.append(_record(span, resource, where))
                except OtlpError as exc:
                    if rejected is None:
                        raise
                    rejected.append(exc.reason)
    return out


def _record(span: Any, resource: dict, where: str) -> SpanRecord:
    if not isinstance(span, dict):
        raise OtlpError(f"{where}: expected a span object, got {_kind(span)}")
    trace = span_id(_get(span, "traceId"), 16, f"{where}.traceId")
    own = span_id(_get(span, "spanId"), 8, f"{where}.spanId")
    parent_given = _get(span, "parentSpanId")
    parent = None if parent_given in (None, "") else span_id(parent_given, 8, f"{where}.parentSpanId")
    if parent == own:
        raise OtlpError(f"{where}.parentSpanId: the span is its own parent ({own})")
    start = _nanos(_get(span, "startTimeUnixNano"), f"{where}.startTimeUnixNano")
    end = _nanos(_get(span, "endTimeUnixNano"), f"{where}.endTimeUnixNano")
    attributes = span.get("attributes") or []
    if not isinstance(attributes, list):
        raise OtlpError(f"{where}.attributes: expected a list, got {_kind(attributes)}")
    given = {item["key"]: plain(item.get("value")) for item in attributes
             if isinstance(item, dict) and item.get("key") in SESSION_KEYS}
    # the key the trace reader takes (the first present); a value it refuses groups nothing here either
    value = next((given[k] for k in SESSION_KEYS if given.get(k) is not None), None)
    session = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) and \
        str(value).strip() else None
    kept = {**span, "traceId": trace, "spanId": own}
    kept.pop("trace_id", None), kept.pop("span_id", None), kept.pop("parent_span_id", None)
    if parent is None:
        kept.pop("parentSpanId", None)
    else:
        kept["parentSpanId"] = parent
    return SpanRecord(trace, own, parent, start, end, session, {"resource": resource, "span": kept})


def span_id(value: Any, size: int, where: str) -> str:
    """A trace (``size`` 16) or span (8) id as lower-case hex, from hex or base64; :class:`OtlpError` else."""
    what = "trace" if size == 16 else "span"
    if not isinstance(value, str) or not value:
        got = "an empty string" if value == "" else _kind(value)
        raise OtlpError(f"{where}: expected the {what} id ({size * 2} hex digits or base64 of {size} bytes), "
                        f"got {got}")
    if _HEX[size].match(value):
        hexed = value.lower()
    else:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = None
        if raw is None or len(raw) != size:
            raise OtlpError(f"{where}: expected the {what} id ({size * 2} hex digits or base64 of {size} bytes), "
                            f"got {len(value)} characters that are neither")
        hexed = raw.hex()
    if not hexed.strip("0"):
        raise OtlpError(f"{where}: the {what} id is all zeros (OpenTelemetry's invalid id)")
    return hexed


def _nanos(value: Any, where: str) -> int:
    if value is None:
        return 0
    # below 2**63 (the year 2262), not OTLP's 2**64: the queue's SQLite INTEGER is signed 64-bit, and a larger
    # value there would fail the whole batch's transaction, the sound spans with it
    if isinstance(value, str) and _UINT64.match(value) and int(value) < 2 ** 63:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 63:
        return value
    got = "a number past the year 2262" if isinstance(value, (int, str)) and _UINT64.match(str(value)) \
        else _kind(value)
    raise OtlpError(f"{where}: expected nanoseconds since 1970 (a whole number as text), got {got}")


def plain(value: Any) -> Any:
    """An OTLP JSON AnyValue as a Python value (arrays as lists, kvlists as dicts); None for what is not one."""
    if not isinstance(value, dict):
        return None
    for name in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if name in value:
            return value[name]
    if "intValue" in value:
        number = value["intValue"]
        return int(number) if isinstance(number, str) and re.fullmatch(r"-?[0-9]{1,19}", number) else number
    if isinstance(value.get("arrayValue"), dict):
        values = value["arrayValue"].get("values")
        return [plain(v) for v in values] if isinstance(values, list) else []
    if isinstance(value.get("kvlistValue"), dict):
        return attributes(value["kvlistValue"].get("values"))
    return None


def attributes(items: Any) -> dict[str, Any]:
    """An OTLP JSON attribute list (``[{"key", "value"}]``) as a flat dict; what is not an attribute is skipped."""
    if not isinstance(items, list):
        return {}
    return {item["key"]: plain(item.get("value")) for item in items
            if isinstance(item, dict) and isinstance(item.get("key"), str)}


def filter_attributes(body: dict) -> dict[str, Any]:
    """What a filter sees of a trace (W2's filters.py): its resource's attributes, then its root span's (the
    span's win on a clash), as one flat dict of dotted keys. ``body`` is the root's :attr:`SpanRecord.body`."""
    resource = body.get("resource") if isinstance(body.get("resource"), dict) else {}
    return {**attributes(resource.get("attributes")), **attributes(body.get("span", {}).get("attributes"))}


def _get(obj: dict, camel: str) -> Any:
    """A field by its JSON name (lowerCamelCase) or its proto name (snake_case), as protobuf's parser takes both."""
    if camel in obj:
        return obj[camel]
    return obj.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {str: "a string", list: "a list", dict: "an object", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)
