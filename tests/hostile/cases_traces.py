"""Cases: traces (issue 34): ``genevals run --from FORMAT FILE`` on hostile OpenInference (OTLP JSON), Langfuse
and LangSmith exports. A hostile file holds a good trace, the hostile record on line 2, and another good trace,
so a refusal must name ``in.jsonl:2`` (and the field), and the same file with ``--on-error skip`` scores the good
traces. Tables: hostile JSON values in each field of each format, then shapes (parent cycles, orphans, duplicate
ids, 10^5 spans, deep nesting), then the file as a whole (broken JSON at line N, non-UTF-8, empty, arrays).
Large files are written by setup steps (:data:`SETUPS`), so that only the cases that run them pay for them."""
from __future__ import annotations

import json
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, jsonl as _file, with_raw as _with

TRACE_ID = "5b8efff798038103d269b633813fc60c"
#: hostile JSON values, as JSON text
VALUES = {
    "null": "null", "true": "true", "zero": "0", "float": "1.5", "empty-string": '""', "superscript-two": '"²"',
    "digits-5000-text": '"' + "9" * 5000 + '"', "list": "[1, 2]", "empty-object": "{}", "object": '{"a": 1}',
    "nested-500": "[" * 500 + "]" * 500, "text": '"some text"',
    # for timestamps and numbers
    "negative": "-1", "huge-float": "1e400", "nan": "NaN", "digits-5000-number": "9" * 5000,
    "arabic-digit": '"٣"', "uint64-max": '"18446744073709551615"', "uint64-overflow": '"18446744073709551616"',
    "integral-float": "1.7e18", "exponent-text": '"1e3"', "empty-list": "[]",
}
ALL = ("null", "true", "zero", "float", "empty-string", "superscript-two", "digits-5000-text", "list", "empty-object",
       "object", "nested-500", "text")
FEW = ("null", "zero", "empty-string", "list", "object", "nested-500", "text")
ODD = ("null", "list", "object", "nested-500")
TIMES = ALL + ("negative", "huge-float", "nan", "digits-5000-number", "arabic-digit", "uint64-max",
               "uint64-overflow", "integral-float", "exponent-text")


def _case(slug: str, fmt: str, expect: str, content: bytes, where=(), extra=(), setup="", limit=20.0) -> Case:
    argv = ("run", "--from", fmt, "{in}", "--out", "{out}", "--metrics", CHEAP, *extra)
    return Case(id=f"traces-{slug}", cls="traces", expect=expect, where=tuple(where), files=(("in.jsonl", content),),
                argv=argv, setup=setup, limit=limit)


# ------------------------------------------------------------------ the three formats' good records

def attr(key: str, value) -> dict:
    kind = {str: "stringValue", float: "doubleValue", int: "intValue"}[type(value)]
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def span(trace: str, span_id: str, parent: str | None, kind: str, *attrs: dict, start: int = 1, name="s") -> dict:
    found = {"traceId": trace, "spanId": span_id, "name": name, "startTimeUnixNano": str(1_700_000_000 + start),
             "attributes": [attr("openinference.span.kind", kind), *attrs]}
    if parent is not None:
        found["parentSpanId"] = parent
    return found


def export(*spans: dict) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "rag")]},
                               "scopeSpans": [{"scope": {"name": "openinference"}, "spans": list(spans)}]}]}


def rag_spans(trace: str, n: int = 0) -> list[dict]:
    """A RAG trace: a CHAIN root with the question and answer, a RETRIEVER child with two documents."""
    root, child = f"{n:08x}00000001", f"{n:08x}00000002"
    return [span(trace, root, None, "CHAIN", attr("input.value", "What is the capital of France?"),
                 attr("output.value", "Paris is the capital of France."), attr("metadata.system", "dense"), name="rag"),
            span(trace, child, root, "RETRIEVER", attr("input.value", "capital of France"),
                 attr("output.value", "Retrieved."), attr("retrieval.documents.0.document.id", "d1"),
                 attr("retrieval.documents.0.document.content", "Paris is the capital of France."),
                 attr("retrieval.documents.0.document.score", 0.9),
                 attr("retrieval.documents.1.document.content", "Lyon is in France."), start=2, name="retrieve")]


def langfuse_trace(trace_id: str) -> dict:
    return {"id": trace_id, "name": "rag", "input": {"question": "What is the capital of France?"},
            "output": "Paris is the capital of France.", "metadata": {"system": "dense"}, "observations": [
                {"id": trace_id + "-r", "type": "RETRIEVER", "name": "retrieve", "startTime": "2024-01-01T00:00:01Z",
                 "parentObservationId": None, "input": "capital of France",
                 "output": [{"page_content": "Paris is the capital of France.", "metadata": {"id": "d1", "score": 0.9}},
                            "Lyon is in France."]}]}


def langsmith_run(trace_id: str) -> dict:
    """A root run with its retriever child nested (``read_run(..., load_child_runs=True)``)."""
    return {"id": trace_id, "name": "rag", "run_type": "chain", "trace_id": trace_id, "parent_run_id": None,
            "dotted_order": "20240101T000000000000Z" + trace_id, "start_time": "2024-01-01T00:00:00",
            "inputs": {"question": "What is the capital of France?"},
            "outputs": {"answer": "Paris is the capital of France."}, "extra": {"metadata": {"system": "dense"}},
            "child_runs": [{"id": trace_id + "-r", "name": "retrieve", "run_type": "retriever",
                            "parent_run_id": trace_id, "dotted_order": "20240101T000000000001Z" + trace_id,
                            "inputs": {"query": "capital"},
                            "outputs": {"documents": [{"page_content": "Paris is the capital of France.",
                                                       "metadata": {"id": "d1"}}]}}]}


def good(fmt: str, n: int) -> dict:
    if fmt == "openinference":
        return export(*rag_spans(f"{n:032x}", n))
    return langfuse_trace(f"lf-{n}") if fmt == "langfuse" else langsmith_run(f"ls-{n}")


def around(fmt: str, middle: str) -> bytes:
    """A good trace, ``middle`` (line 2), a good trace."""
    return _file(json.dumps(good(fmt, 1)), middle, json.dumps(good(fmt, 3)))


# ------------------------------------------------------------------ hostile values in each field

#: per format: (field path in line 2's record, the values tried, those read, the name a refusal gives)
_SPAN = ("resourceSpans", 0, "scopeSpans", 0, "spans", 1)
_ROOT_ATTR = ("resourceSpans", 0, "scopeSpans", 0, "spans", 0, "attributes", 1)
_IDS = {"superscript-two", "digits-5000-text", "text"}
FIELDS = {
    "openinference": [
        (_SPAN + ("traceId",), ALL, _IDS, "traceId"),
        (_SPAN + ("spanId",), ALL, _IDS, "spanId"),
        (_SPAN + ("parentSpanId",), ALL, _IDS | {"null", "empty-string"}, "parentSpanId"),
        (_SPAN + ("startTimeUnixNano",), TIMES, {"null", "zero", "uint64-max", "integral-float"}, "startTimeUnixNano"),
        (_SPAN + ("name",), ODD, set(ODD), "name"),
        (_SPAN + ("attributes",), FEW + ("empty-object",), {"null", "zero", "empty-string", "empty-object"},
         "attributes"),
        (_ROOT_ATTR + ("key",), ("null", "zero", "list", "object", "empty-string"), {"empty-string"}, "key"),
        (_ROOT_ATTR + ("value",), FEW + ("empty-object",), {"null", "empty-object"}, "attributes[1].value"),
        (_ROOT_ATTR + ("value", "stringValue"), FEW, {"null", "text", "empty-string"}, "question"),
    ],
    "langfuse": [
        (("id",), ALL, _IDS | {"zero"}, "id"),
        (("output",), FEW, {"text", "empty-string"}, "output"),
        # an observation that is not an object is passed over, as the API's lists of ids are
        (("observations",), FEW + ("empty-object",), {"null", "zero", "empty-string", "list", "empty-object",
                                                      "nested-500"}, "observations"),
        (("observations", 0), ("null", "zero", "text", "list"), {"null", "zero", "text", "list"}, "observations"),
        (("observations", 0, "output"), FEW + ("empty-list",), {"null", "empty-list"}, "observations[0].output"),
        (("observations", 0, "type"), ODD, set(ODD), "type"),
        (("observations", 0, "startTime"), ODD + ("zero",), set(ODD) | {"zero"}, "startTime"),
        (("observations", 0, "parentObservationId"), ODD + ("text",), set(ODD) | {"text"}, "parentObservationId"),
        # a question that is not text: the root observation's is taken
        (("input",), ("null", "list", "nested-500", "zero"), {"null", "list", "nested-500", "zero"}, "question"),
    ],
    "langsmith": [
        (("id",), ALL, _IDS | {"zero"}, "id"),
        (("trace_id",), ALL, _IDS | {"zero", "null", "empty-string"}, "trace_id"),
        (("parent_run_id",), FEW + ("true",), {"null", "zero", "empty-string", "text"}, "parent_run_id"),
        (("dotted_order",), FEW + ("true", "float"), {"null", "zero", "empty-string", "text"}, "dotted_order"),
        (("start_time",), ODD, set(ODD), "start_time"),
        (("outputs",), FEW, {"text", "empty-string"}, "outputs"),
        (("child_runs",), FEW + ("empty-object",), {"null", "zero", "empty-string", "empty-object"}, "child_runs"),
        (("run_type",), ODD, set(ODD), "run_type"),
        (("inputs",), ODD, set(ODD), "inputs"),
        (("extra",), ODD, set(ODD), "extra"),
    ],
}
SHORT = {"openinference": "oi", "langfuse": "lf", "langsmith": "ls"}


def field_cases() -> list[Case]:
    found = []
    for fmt, fields in FIELDS.items():
        for path, tried, read, name in fields:
            label = "-".join(str(p) for p in path)
            if fmt == "openinference":
                inner = path[:len(_SPAN)] == _SPAN
                label = ("span-" if inner else "root-attr-") + "-".join(
                    str(p) for p in path[len(_SPAN) if inner else len(_ROOT_ATTR):])
            for slug in tried:
                literal = VALUES[slug]
                expect = OK if slug in read else REFUSED
                # a number too long to read is refused where the JSON is, before any field
                where = ("in.jsonl:2",) + ((name,) if expect == REFUSED and slug != "digits-5000-number" else ())
                found.append(_case(f"{SHORT[fmt]}-{label}-{slug}", fmt, expect,
                                   around(fmt, _with(good(fmt, 2), path, literal)), where))
    # --system-from: the attribute missing, or not text
    for fmt, path, option in (("openinference", _ROOT_ATTR[:-1] + (3, "value", "stringValue"), "metadata.system"),
                              ("langfuse", ("metadata", "system"), "metadata.system"),
                              ("langsmith", ("extra", "metadata", "system"), "system")):
        for slug in ("null", "true", "zero", "list", "object", "nested-500", "text"):
            expect = OK if slug in ("zero", "text") else REFUSED
            found.append(_case(f"{SHORT[fmt]}-system-from-{slug}", fmt, expect,
                               around(fmt, _with(good(fmt, 2), path, VALUES[slug])),
                               ("in.jsonl:2", option) if expect == REFUSED else (), ("--system-from", option)))
    return found


# ------------------------------------------------------------------ shapes

def _cycle(n: int) -> list[dict]:
    """``n`` spans of one trace, each the parent of the next and the last the parent of the first."""
    ids = [f"{i + 1:016x}" for i in range(n)]
    return [span(TRACE_ID, ids[i], ids[i - 1], "CHAIN", attr("output.value", "a"), start=i) for i in range(n)]


def oi_shape_cases() -> list[Case]:
    root, child = rag_spans(TRACE_ID, 2)
    kvlist = '{"kvlistValue": {"values": [{"key": "k", "value": ' * 200 + '{"stringValue": "x"}' + "}]}}" * 200
    array = '{"arrayValue": {"values": [' * 300 + '{"stringValue": "x"}' + "]}}" * 300
    table = {
        # slug: (line 2, expect, what a refusal names besides in.jsonl:2)
        "self-parent": (export(*_cycle(1)), REFUSED, ("parentSpanId",)),
        "cycle-of-2": (export(*_cycle(2)), REFUSED, ("parentSpanId",)),
        "cycle-of-3": (export(*_cycle(3)), REFUSED, ("parentSpanId",)),
        "cycle-beside-a-root": (export(root, child, *_cycle(3)), OK, ()),
        "self-parent-beside-a-root": (export(root, {**child, "parentSpanId": child["spanId"]}), OK, ()),
        "duplicate-span-ids": (export(root, {**child, "spanId": root["spanId"]}), OK, ()),
        "duplicate-spans": (export(root, child, child, root), OK, ()),
        "orphan-parent": (export(root, {**child, "parentSpanId": "ffffffffffffffff"}), OK, ()),
        "two-roots": (export(root, {**child, "parentSpanId": None}), OK, ()),
        "no-rag-span": (export({**root, "attributes": [attr("http.method", "GET")]}), REFUSED,
                        ("openinference.span.kind",)),
        "no-answer": (export({**root, "attributes": root["attributes"][:2]}, child), REFUSED, ("output.value",)),
        "retriever-only": (export(child), OK, ()),
        "retriever-only-no-answer": (export({**child, "attributes": [a for a in child["attributes"]
                                                                     if a["key"] != "output.value"]}), REFUSED,
                                     ("output.value",)),
        "no-spans": (export(), OK, ()),
        "not-otlp": ({"name": "x", "context": {}}, REFUSED, ("resourceSpans",)),
        "resource-spans-object": ({"resourceSpans": {"a": 1}}, REFUSED, ("resourceSpans",)),
        "resource-a-list": ({"resourceSpans": [{"resource": [1], "scopeSpans": []}]}, REFUSED, ("resource",)),
        "resource-attributes-text": ({"resourceSpans": [{"resource": {"attributes": "x"}}]}, REFUSED,
                                     ("resource.attributes",)),
        "scope-spans-text": ({"resourceSpans": [{"scopeSpans": "x"}]}, REFUSED, ("scopeSpans",)),
        "spans-an-object": ({"resourceSpans": [{"scopeSpans": [{"spans": {"a": 1}}]}]}, REFUSED, ("spans",)),
        "span-a-list": ({"resourceSpans": [{"scopeSpans": [{"spans": [[1]]}]}]}, REFUSED, ("spans[0]",)),
        "record-a-number": (5, REFUSED, ()),
        "record-null": (None, REFUSED, ()),
        "base64-ids": (export({**root, "traceId": "W47/95gDgQPSabYzO2P8DA==", "spanId": "7uGbfsPBsXQ="},
                              {**child, "traceId": "W47/95gDgQPSabYzO2P8DA==", "spanId": "AAAAAAAAAAI=",
                               "parentSpanId": "7uGbfsPBsXQ="}), OK, ()),
    }
    found = [_case(f"oi-{slug}", "openinference", expect, around("openinference", json.dumps(middle)),
                   ("in.jsonl:2", *where)) for slug, (middle, expect, where) in table.items()]
    values = {
        # slug: (the root's input.value, expect, named)
        "value-unknown-kind": ('{"floatValue": 1}', REFUSED, "attributes[1].value"),
        "int-superscript": ('{"intValue": "²"}', REFUSED, "intValue"),
        "int-5000-digits": ('{"intValue": "' + "9" * 5000 + '"}', REFUSED, "intValue"),
        "int-a-list": ('{"intValue": [1]}', REFUSED, "intValue"),
        "array-a-list": ('{"arrayValue": [1, 2]}', REFUSED, "arrayValue"),
        "array-values-text": ('{"arrayValue": {"values": "x"}}', REFUSED, "arrayValue.values"),
        "kvlist-text": ('{"kvlistValue": "x"}', REFUSED, "kvlistValue"),
        "kvlist-values-object": ('{"kvlistValue": {"values": {"a": 1}}}', REFUSED, "kvlistValue.values"),
        "kvlist-nested-200": (kvlist, ANY, "question"),
        "array-nested-300": (array, ANY, "question"),
        "text-1mb": ('{"stringValue": "' + "q" * 1_000_000 + '"}', OK, ""),
    }
    for slug, (literal, expect, named) in values.items():
        content = around("openinference", _with(good("openinference", 2), _ROOT_ATTR + ("value",), literal))
        found.append(_case(f"oi-attr-{slug}", "openinference", expect, content, ("in.jsonl:2", named)))
    for slug, key in (("doc-index-5000-digits", "retrieval.documents." + "9" * 5000 + ".document.content"),
                      ("doc-index-arabic-digit", "retrieval.documents.٣.document.content"),
                      ("message-index-5000-digits", "llm.output_messages." + "9" * 5000 + ".message.content")):
        spans = rag_spans(TRACE_ID, 2)
        spans[1]["attributes"].append(attr(key, "text"))
        found.append(_case(f"oi-attr-{slug}", "openinference", OK, around("openinference", json.dumps(export(*spans)))))
    for slug in ("self-parent", "cycle-of-3", "no-rag-span", "not-otlp"):
        found.append(_case(f"oi-skip-{slug}", "openinference", OK, around("openinference", json.dumps(table[slug][0])),
                           extra=("--on-error", "skip")))
    return found


def lf_shape_cases() -> list[Case]:
    trace = langfuse_trace("lf-2")
    obs = trace["observations"][0]
    table = {
        "no-id": ({k: v for k, v in trace.items() if k != "id"}, REFUSED, ()),
        "no-output-no-observations": ({"id": "t", "input": "q"}, REFUSED, ("output",)),
        "answer-from-root-observation": ({**trace, "output": None, "observations": [
            {**obs, "type": "SPAN", "output": "From the root."}]}, OK, ()),
        "observation-cycle": ({**trace, "observations": [{**obs, "id": "a", "parentObservationId": "b"},
                                                         {**obs, "id": "b", "parentObservationId": "a"}]}, OK, ()),
        "observation-self-parent": ({**trace, "observations": [{**obs, "parentObservationId": obs["id"]}]}, OK, ()),
        "document-without-text": ({**trace, "observations": [{**obs, "output": [{"metadata": {}}]}]}, REFUSED,
                                  ("observations[0].output[0]",)),
        "documents-under-unknown-key": ({**trace, "observations": [{**obs, "output": {"hits": []}}]}, REFUSED,
                                        ("observations[0].output",)),
        "download-wrapper": ({"trace": {k: v for k, v in trace.items() if k != "observations"},
                              "observations": trace["observations"]}, OK, ()),
        "download-observations-text": ({"trace": {"id": "t", "output": "a"}, "observations": "x"}, REFUSED,
                                       ("observations",)),
        "api-page": ({"data": [trace, {**trace, "id": "lf-2b"}], "meta": {"page": 1}}, OK, ()),
        "api-page-duplicate-ids": ({"data": [trace, trace], "meta": {"page": 1}}, REFUSED, ("duplicate id",)),
        "api-page-bad-item": ({"data": [trace, 5], "meta": {}}, REFUSED, ("data[1]",)),
    }
    found = [_case(f"lf-{slug}", "langfuse", expect, around("langfuse", json.dumps(middle)), ("in.jsonl:2", *where))
             for slug, (middle, expect, where) in table.items()]
    found.append(_case("lf-duplicate-trace-ids", "langfuse", REFUSED, _file(*[json.dumps(trace)] * 3),
                       ("in.jsonl:2", "duplicate id")))
    return found


def ls_shape_cases() -> list[Case]:
    run = langsmith_run("ls-2")
    child = run["child_runs"][0]
    flat = [{k: v for k, v in run.items() if k != "child_runs"}, {**child, "trace_id": "ls-2"}]
    deep = {**run, "child_runs": []}
    node = deep
    for i in range(240):  # as deep as the JSON reader goes (two levels per run)
        node["child_runs"] = [{**child, "id": f"c{i}", "parent_run_id": node["id"], "child_runs": []}]
        node = node["child_runs"][0]
    table = {
        # slug: (the records of line 2 on, one per line, expect, named)
        "flat-runs": (flat, OK, ()),
        "child-without-trace-id": ([flat[0], child], REFUSED, ("in.jsonl:3", "trace_id")),
        "parent-cycle": ([{**flat[0], "parent_run_id": "ls-2-r"}, {**flat[1], "parent_run_id": "ls-2"}], OK, ()),
        "self-parent": ([{**flat[0], "parent_run_id": "ls-2"}], OK, ()),
        "orphan-without-answer": ([{**flat[1], "parent_run_id": "nobody"}], REFUSED, ("in.jsonl:2", "outputs")),
        "duplicate-ids": ([flat[0], flat[0], flat[1]], OK, ()),
        "child-runs-nested-240": ([deep], OK, ()),
        "child-run-a-number": ([{**run, "child_runs": [5]}], REFUSED, ("in.jsonl:2", "child_runs[0]")),
        "retriever-outputs-unknown": ([{**run, "child_runs": [{**child, "outputs": {"hits": 1}}]}], REFUSED,
                                      ("in.jsonl:2", "child_runs[0].outputs")),
        "not-a-run": ([{"id": "x", "name": "orphan"}], REFUSED, ("in.jsonl:2",)),
        "run-a-list": ([[1, 2]], REFUSED, ("in.jsonl:2",)),
    }
    return [_case(f"ls-{slug}", "langsmith", expect, around("langsmith", "\n".join(json.dumps(r) for r in records)),
                  where) for slug, (records, expect, where) in table.items()]


# ------------------------------------------------------------------ the file as a whole

def file_cases() -> list[Case]:
    found = []
    for fmt, short in SHORT.items():
        one, two, three = (json.dumps(good(fmt, n)) for n in (1, 2, 3))
        table = {
            # slug: (content, expect, named)
            "empty-file": (b"", REFUSED, ("in.jsonl", "empty")),
            "blank-lines": (b"\n\n  \n\t\n", REFUSED, ("in.jsonl", "empty")),
            "bom-only": ("\ufeff".encode(), REFUSED, ("in.jsonl", "empty")),
            "bom-then-records": ("\ufeff".encode() + _file(one, two), OK, ()),
            "crlf-lines": (_file(one, two).replace(b"\n", b"\r\n"), OK, ()),
            "bad-json-line-2": (_file(one, '{"broken": ', three), REFUSED, ("in.jsonl:2",)),
            "bad-json-line-1": (_file('{"broken": ', two, three), REFUSED, ("in.jsonl:1",)),
            "bad-json-line-1000": (_file(*[one] * 999, "{x}", three), REFUSED, ("in.jsonl:1000",)),
            "last-line-cut": (_file(one, two) + three[:40].encode(), REFUSED, ("in.jsonl:3",)),
            "not-utf8-line-2": (_file(one) + b'{"x": "\xff\xfe"}\n' + _file(three), REFUSED, ("in.jsonl:2", "UTF-8")),
            "deep-nesting-line-2": (_file(one, "[" * 100_000 + "]" * 100_000, three), REFUSED, ("in.jsonl:2",)),
            "array-of-records": (("[\n" + ",\n".join([one, two, three]) + "\n]\n").encode(), OK, ()),
            "array-bad-element-line-3": (("[\n" + one + ",\n" + two + ",\n{oops}\n]").encode(), REFUSED,
                                         ("in.jsonl:4",)),
            "pretty-printed-document": (json.dumps(json.loads(one), indent=2).encode(), OK, ()),
        }
        if fmt == "openinference":  # the reading is shared: the rest once
            table.update({
                "no-final-newline": (_file(one, two).rstrip(b"\n"), OK, ()),
                "trailing-garbage-line": (_file(one, two, "garbage"), REFUSED, ("in.jsonl:3",)),
                "latin1-line-2": (_file(one) + two.replace("}", ', "n": "caf\xe9"}', 1).encode("latin-1") + b"\n"
                                  + _file(three), REFUSED, ("in.jsonl:2", "UTF-8")),
                "utf16-file": ((one + "\n").encode("utf-16"), REFUSED, ("in.jsonl:1", "UTF-8")),
                "nul-bytes-line-2": (_file(one) + b"\x00" * 100 + b"\n" + _file(three), REFUSED, ("in.jsonl:2",)),
                "deep-object-line-2": (_file(one, '{"a":' * 50_000 + "1" + "}" * 50_000, three), REFUSED,
                                       ("in.jsonl:2",)),
                "number-5000-digits-line-2": (_file(one, "9" * 5000, three), REFUSED, ("in.jsonl:2",)),
                "array-not-closed": (("[\n" + one + ",\n" + two).encode(), REFUSED, ("in.jsonl:3",)),
                "array-trailing-comma": (("[" + one + ",]").encode(), REFUSED, ("in.jsonl:1",)),
                "array-empty": (b"[]", REFUSED, ("in.jsonl",)),
                "array-of-numbers": (b"[1, 2, 3]", REFUSED, ("in.jsonl:1",)),
                "array-not-utf8-element": (("[\n" + one + ",\n").encode() + b'"\xff"' + (",\n" + three + "]").encode(),
                                           REFUSED, ("in.jsonl:3", "UTF-8")),
                "two-documents-pretty": ((json.dumps(json.loads(one), indent=2) + "\n" + two).encode(), REFUSED,
                                         ("in.jsonl:",)),
                "two-records-one-line": ((one + " " + two + "\n").encode(), REFUSED, ("in.jsonl:1",)),
                "top-level-string": (b'"just text"', REFUSED, ("in.jsonl:1",)),
                "top-level-nan": (b"NaN", REFUSED, ("in.jsonl:1",)),
                "genevals-rows-not-traces": (_file(json.dumps({"id": "q1", "question": "q", "answer": "a"})),
                                             REFUSED, ("in.jsonl:1",)),
            })
        found += [_case(f"{short}-file-{slug}", fmt, expect, content, where)
                  for slug, (content, expect, where) in table.items()]
        found.append(_case(f"{short}-file-skip-bad-json-line-2", fmt, OK, _file(one, '{"broken": ', three),
                           extra=("--on-error", "skip")))
        found.append(_case(f"{short}-file-skip-not-utf8-line-2", fmt, OK,
                           _file(one) + b'{"x": "\xff"}\n' + _file(three), extra=("--on-error", "skip")))
    return found


# ------------------------------------------------------------------ large files, written by setup steps

def _write(inp: Path, lines) -> None:
    with inp.open("w", encoding="utf-8") as handle:
        handle.writelines(line + "\n" for line in lines)


def _oi_wide(folder: Path, out: Path, inp: Path) -> None:
    root, _ = rag_spans(TRACE_ID, 2)
    spans = [root] + [{"traceId": TRACE_ID, "spanId": f"{i + 10:016x}", "parentSpanId": root["spanId"]}
                      for i in range(100_000)]
    _write(inp, [json.dumps(export(*spans))])


def _oi_chain(folder: Path, out: Path, inp: Path) -> None:
    spans = [{"traceId": TRACE_ID, "spanId": f"{i + 1:016x}", "parentSpanId": f"{i:016x}"} for i in range(100_000)]
    spans[0] = rag_spans(TRACE_ID, 2)[0] | {"spanId": f"{1:016x}"}
    _write(inp, [json.dumps(export(*spans))])


def _oi_cycle(folder: Path, out: Path, inp: Path) -> None:
    ids = [f"{i + 1:016x}" for i in range(100_000)]
    spans = [{"traceId": TRACE_ID, "spanId": ids[i], "parentSpanId": ids[i - 1]} for i in range(100_000)]
    spans[0] |= {"attributes": [attr("openinference.span.kind", "CHAIN"), attr("output.value", "a")]}
    _write(inp, [json.dumps(good("openinference", 1)), json.dumps(export(*spans))])


def _oi_spread(folder: Path, out: Path, inp: Path) -> None:
    """5,000 traces, each span on its own line, the traces' spans interleaved: no trace is complete before the
    last lines."""
    spans = [rag_spans(f"{n:032x}", n) for n in range(5_000)]
    _write(inp, [json.dumps(export(s[0])) for s in spans] + [json.dumps(export(s[1])) for s in spans])


def _lf_many(folder: Path, out: Path, inp: Path) -> None:
    trace = langfuse_trace("lf-2")
    _write(inp, [json.dumps({**trace, "observations": trace["observations"] + [
        {"id": f"o{i}", "type": "SPAN", "parentObservationId": "lf-2-r"} for i in range(100_000)]})])


def _ls_many(folder: Path, out: Path, inp: Path) -> None:
    run = langsmith_run("ls-2")
    flat = {k: v for k, v in run.items() if k != "child_runs"}
    _write(inp, [json.dumps(flat), json.dumps({**run["child_runs"][0], "trace_id": "ls-2"})] + [
        json.dumps({"id": f"r{i}", "run_type": "tool", "trace_id": "ls-2", "parent_run_id": "ls-2"})
        for i in range(100_000)])


def _huge(fmt: str):
    def setup(folder: Path, out: Path, inp: Path) -> None:
        """About 10 MB: 3,000 traces with 10 documents of 50 words each (a JSON array for the two that
        export arrays)."""
        text = " ".join(["lorem"] * 50)
        records = []
        for n in range(3_000):
            record = good(fmt, n)
            if fmt == "openinference":
                record["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["attributes"] += [
                    attr(f"retrieval.documents.{j + 2}.document.content", text) for j in range(10)]
            elif fmt == "langfuse":
                record["observations"][0]["output"] += [text] * 10
            else:
                record["child_runs"][0]["outputs"]["documents"] += [{"page_content": text}] * 10
            records.append(json.dumps(record))
        if fmt == "openinference":
            _write(inp, records)
        else:
            inp.write_text("[\n" + ",\n".join(records) + "\n]\n", encoding="utf-8")
    return setup


SETUPS = {"traces_oi_wide": _oi_wide, "traces_oi_chain": _oi_chain, "traces_oi_cycle": _oi_cycle,
          "traces_oi_spread": _oi_spread, "traces_lf_many": _lf_many, "traces_ls_many": _ls_many,
          **{f"traces_huge_{fmt}": _huge(fmt) for fmt in SHORT}}


def large_cases() -> list[Case]:
    table = [
        # slug, format, setup, expect, named
        ("oi-spans-100000-in-one-trace", "openinference", "traces_oi_wide", OK, ()),
        ("oi-chain-of-100000", "openinference", "traces_oi_chain", OK, ()),
        ("oi-cycle-of-100000", "openinference", "traces_oi_cycle", REFUSED, ("in.jsonl:2", "parentSpanId")),
        ("oi-traces-5000-interleaved", "openinference", "traces_oi_spread", OK, ()),
        ("lf-observations-100000", "langfuse", "traces_lf_many", OK, ()),
        ("ls-runs-100000-in-one-trace", "langsmith", "traces_ls_many", OK, ()),
        *((f"{short}-huge-export", fmt, f"traces_huge_{fmt}", OK, ()) for fmt, short in SHORT.items()),
    ]
    return [_case(slug, fmt, expect, b"", where, setup=setup, limit=40.0) for slug, fmt, setup, expect, where in table]


def cases() -> list[Case]:
    return [*field_cases(), *oi_shape_cases(), *lf_shape_cases(), *ls_shape_cases(), *file_cases(), *large_cases()]
