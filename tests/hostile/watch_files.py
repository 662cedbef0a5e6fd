"""The watch class's hostile files (hostile/cases_watch.py): scenarios for a followed file (:data:`FOLLOWS`), and
exports a real ``genevals watch --from`` reads (:data:`EXPORTS`), and protobuf written field by field (past what
the protobuf runtime will build).

A scenario gets a :class:`~hostile.watch_driver.Scene` (the file, the real Follower over it, ``step()`` one look
as the watcher's loop takes it) and returns the trace numbers that must have been read, in order, and the
``:line`` places that must have been refused (the driver takes one last look before it checks).
"""
from __future__ import annotations

import json
import os
import shutil

MB = 1 << 20


# ------------------------------------------------------------------ the followed file

def _truncated_to_nothing(s):
    s.write(s.line(1) + s.line(2))
    s.step()
    s.write(b"", "wb")  # copytruncate: the same file, emptied
    s.step()
    s.write(s.line(3))
    return [1, 2, 3], []


def _truncated_mid_line(s):
    s.write(s.line(1) + s.line(2))
    s.step()
    os.truncate(s.path, 10)  # cut inside line 1: what is left is no line until it gets a newline
    s.step()
    s.write(b"\n" + s.line(3))
    return [1, 2, 3], [":1"]


def _rewritten_longer(s):
    s.write(s.line(1) + s.line(2))
    s.step()
    s.write(s.line(3) + s.line(4) + s.line(5), "wb")  # truncated and written past the position between looks
    return [1, 2, 3, 4, 5], []


def _truncated_under_the_reader(s):
    s.write(b"".join(s.line(n) for n in range(1, 201)))
    looks = s.follower.available()
    s.step(looks, 50)  # mid-way through a look, the file is truncated and written again under the reader
    s.write(s.line(201), "wb")
    s.step(looks)  # the lines it had read before the truncation, then the new content from its start
    return list(range(1, 202)), []


def _replaced(kind):
    def scenario(s):
        s.write(s.line(1))
        s.step()
        os.unlink(s.path)
        if kind == "folder":
            os.mkdir(s.path)
        elif kind == "fifo":
            os.mkfifo(s.path)
        else:
            os.symlink(kind, s.path)
        s.step()
        s.step()  # said once, not at every look
        if os.path.isdir(s.path) and not os.path.islink(s.path):
            shutil.rmtree(s.path)
        else:
            os.unlink(s.path)
        s.write(s.line(2))
        s.step()
        said = [why for where, why in s.refusals if where == str(s.path)]
        nothing = kind.startswith("/nonexistent")
        if not nothing and (len(said) != 1 or "not a regular file" not in said[0]):
            raise RuntimeError(f"expected one refusal of the path, saying it is not a regular file: {said}")
        if nothing and said:  # a link to nothing: a file not there yet, waited for in silence
            raise RuntimeError(f"a dangling link is a file not there yet, not a refusal: {said}")
        return [1, 2], []
    return scenario


def _deleted_and_recreated(s):
    s.write(s.line(1) + s.line(2))
    s.step()
    os.unlink(s.path)
    s.step()
    s.step()
    s.write(s.line(3))
    return [1, 2, 3], []


def _deleted_recreated_same_bytes(s):
    s.write(s.line(1))
    s.step()
    os.unlink(s.path)
    s.step()
    s.write(s.line(1) + s.line(2))  # the same first line again: a new file all the same, read from its start
    return [1, 1, 2], []


def _rotated_half_line(s):
    s.write(s.line(1) + s.line(2)[:40])
    s.step()
    os.rename(s.path, str(s.path) + ".1")
    s.write(s.line(3))
    return [1, 3], [":2"]


def _bad_line(raw: bytes, where=(":2",)):
    def scenario(s):
        s.write(s.line(1) + raw + b"\n")
        s.step()
        s.write(s.line(2))
        return [1, 2], list(where)
    return scenario


def _big_line(size: int, as_json: bool, in_two: bool = False):
    def scenario(s):
        if as_json:
            message = json.loads(s.line(9))
            message["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(
                {"key": "big", "value": {"stringValue": "x" * size}})
            raw = json.dumps(message).encode()
        else:
            raw = b"x" * size
        s.write(s.line(1))
        if in_two:
            s.write(raw[: size // 2])
            s.step()
            s.write(raw[size // 2:] + b"\n")
        else:
            s.write(raw + b"\n")
        s.step()
        s.write(s.line(2))
        return ([1, 9, 2] if as_json else [1, 2]), ([] if as_json else [":2"])
    return scenario


def _blank_lines(s):
    s.write(b"\n" * 100_000 + b"   \n\t\n" + s.line(1))
    return [1], []


def _crlf(s):
    s.write(s.line(1).replace(b"\n", b"\r\n") + s.line(2).replace(b"\n", b"\r\n"))
    return [1, 2], []


def _bom(s):
    s.write(b"\xef\xbb\xbf" + s.line(1) + s.line(2))
    return [1, 2], []


def _wrong_shapes(s):
    shapes = [b"[1, 2]", b'"text"', b"42", b"null", b'{"resourceSpans": "x"}', b'{"resourceSpans": [1]}',
              b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5, "spanId": []}]}]}]}',
              b"[" * 100_000]
    s.write(s.line(1) + b"\n".join(shapes) + b"\n")
    s.step()
    s.write(s.line(2))
    return [1, 2], [f":{n}" for n in range(2, 2 + len(shapes))]


FOLLOWS = {
    "truncated-to-nothing": (_truncated_to_nothing, None),
    "truncated-mid-line": (_truncated_mid_line, None),
    "truncated-rewritten-longer": (_rewritten_longer, None),
    "truncated-under-the-reader": (_truncated_under_the_reader, None),
    "replaced-by-folder": (_replaced("folder"), None),
    "replaced-by-fifo": (_replaced("fifo"), None),
    "replaced-by-link-to-dev-zero": (_replaced("/dev/zero"), None),
    "replaced-by-dangling-link": (_replaced("/nonexistent/nothing.jsonl"), None),
    "deleted-and-recreated": (_deleted_and_recreated, None),
    "deleted-recreated-same-first-line": (_deleted_recreated_same_bytes, None),
    "rotated-with-half-a-line": (_rotated_half_line, None),
    "line-not-utf8": (_bad_line(b'{"resourceSpans": [], "x": "caf\xe9 \xff\xfe"}'), None),
    "line-nul-bytes": (_bad_line(b"\x00" * 1000), None),
    "line-binary": (_bad_line(bytes(range(256)).replace(b"\n", b"")), None),
    "line-half-json": (_bad_line(b'{"resourceSpans": [{"scopeSpans": '), None),
    "line-nan-time": (_bad_line(b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "' + b"ab" * 16
                                + b'", "spanId": "' + b"cd" * 8 + b'", "startTimeUnixNano": NaN}]}]}]}'), None),
    "line-50mb-junk": (_big_line(50 * MB, as_json=False), None),
    "line-50mb-json": (_big_line(50 * MB, as_json=True), None),
    "line-70mb-past-the-limit": (_big_line(70 * MB, as_json=False), None),
    "line-70mb-in-two-parts": (_big_line(70 * MB, as_json=False, in_two=True), None),
    "line-past-a-small-limit": (_big_line(5000, as_json=False), 4096),
    "lines-of-wrong-shapes": (_wrong_shapes, None),
    "blank-lines": (_blank_lines, None),
    "crlf-lines": (_crlf, None),
    "bom": (_bom, None),
}


# ------------------------------------------------------------------ exports for a real watcher

def _span(tid: str, sid: str, parent: str | None = None, **extra) -> dict:
    span = {"traceId": tid, "spanId": sid, "name": "s", "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
            **extra}
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _root(tid: str, sid: str, n: int) -> dict:
    """A CHAIN root the trace reader turns into a row (question, answer)."""
    return _span(tid, sid, attributes=[
        {"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}},
        {"key": "input.value", "value": {"stringValue": f"Question {n}?"}},
        {"key": "output.value", "value": {"stringValue": f"Answer {n}."}}])


def _lines(*spans_per_line) -> bytes:
    return b"".join(json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]})
                    .encode() + b"\n" for spans in spans_per_line)


def _tid(n: int) -> str:
    return f"{n:032x}"


def _sid(n: int) -> str:
    return f"{n:016x}"


def _cycles():
    good, ring, loop = _tid(1), _tid(2), _tid(3)
    content = _lines([_root(good, _sid(1), 1)],
                     [_root(ring, _sid(10), 2), _span(ring, _sid(11), _sid(13)), _span(ring, _sid(12), _sid(11)),
                      _span(ring, _sid(13), _sid(12))],
                     [_span(loop, _sid(20), _sid(21)), _span(loop, _sid(21), _sid(20))])
    return content, {good: ("scored",), ring: ("scored", "failed"), loop: ("incomplete",)}


def _deep_chain():
    tid, good = _tid(5), _tid(6)
    spans = [_root(tid, _sid(1), 5)] + [_span(tid, _sid(i + 1), _sid(i)) for i in range(1, 5000)]
    return _lines(spans, [_root(good, _sid(1), 6)]), {tid: ("scored", "failed"), good: ("scored",)}


def _many_spans():
    tid = _tid(7)
    spans = [_root(tid, _sid(1), 7)] + [_span(tid, _sid(i), _sid(1)) for i in range(2, 10_001)]
    return _lines(spans), {tid: ("scored",)}


def _duplicates():
    tid = _tid(8)
    return _lines([_root(tid, _sid(1), 8)] * 3, [_root(tid, _sid(1), 8), _span(tid, _sid(2), _sid(1))] * 2), \
        {tid: ("scored",)}


def _ids_of_every_type():
    good = _tid(9)
    bad = [_span(value, _sid(3)) for value in ("", "abc", "zz" * 16, "0" * 32, 5, None, [1], {"a": 1}, True)]
    bad += [_span(_tid(10), value) for value in ("", "abc", "0" * 16, 5, None, [], 1.5)]
    return _lines(bad, [_root(good, _sid(1), 9)]), {good: ("scored",)}


def _fields_of_wrong_types():
    odd, good = _tid(11), _tid(12)
    span = _root(odd, _sid(1), 11)
    span.update(name=7, kind="x", status=[], events="x", links=5, droppedAttributesCount="many")
    span["attributes"] += [{"key": "input.value", "value": {"intValue": "12"}}, {"key": 5},
                           {"key": "output.value", "value": {"arrayValue": {"values": 3}}}]
    return _lines([span], [_root(good, _sid(1), 12)]), {odd: ("scored", "failed"), good: ("scored",)}


def _broken_lines():
    good, other = _tid(13), _tid(14)
    return (_lines([_root(good, _sid(1), 13)]) + b"not json\n[1]\n\xff\xfe\n" + b"[" * 50_000 + b"\n"
            + _lines([_root(other, _sid(1), 14)])), {good: ("scored",), other: ("scored",)}


EXPORTS = {
    "span-cycles": _cycles,
    "parent-chain-5000-deep": _deep_chain,
    "10000-spans": _many_spans,
    "duplicate-spans": _duplicates,
    "ids-of-every-type": _ids_of_every_type,
    "fields-of-wrong-types": _fields_of_wrong_types,
    "broken-lines": _broken_lines,
}


# ------------------------------------------------------------------ protobuf, field by field

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2)."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def nested_anyvalue(depth: int) -> bytes:
    """Trace 1 whose first span has an attribute nested ``depth`` kvlists deep, written field by field (the
    protobuf runtime will not build past its own depth limit)."""
    value = field(1, b"deep")  # AnyValue.string_value
    for _ in range(depth):  # AnyValue.kvlist_value (6) -> KeyValueList.values (1) -> KeyValue (key 1, value 2)
        value = field(6, field(1, field(1, b"k") + field(2, value)))
    from support.watch_traces import request, spans, trace_id

    message = request(spans(trace_id(1)))
    span = message.resource_spans[0].scope_spans[0].spans[0].SerializeToString() + field(9, field(1, b"deep")
                                                                                          + field(2, value))
    rest = message.resource_spans[0].scope_spans[0].spans[1].SerializeToString()
    scope = field(2, span) + field(2, rest)
    resource = message.resource_spans[0].resource.SerializeToString()
    return field(1, field(1, resource) + field(2, scope))
