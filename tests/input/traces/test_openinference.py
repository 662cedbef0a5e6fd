"""OpenInference spans made by the real OpenTelemetry SDK, written as OTLP JSON by a file exporter, read back
as samples (genevals.input.traces.openinference), and the located errors of exports that are not that."""
import json
import subprocess
import sys

import pytest
from support.otlp_spans import write_rag_traces

from genevals.input.readers import InputError, iter_samples
from genevals.input.traces import TraceSource

TRACES = [
    {"question": "What is the capital of France?", "answer": "Paris is the capital of France.", "system": "dense",
     "docs": [("doc-7", "Paris is the capital and largest city of France.", 0.91),
              ("doc-3", "Lyon is a city in France.", 0.42)]},
    # no output.value on the root span: the answer is the LLM span's output message
    {"question": "Who wrote Hamlet?", "answer": "William Shakespeare wrote Hamlet.", "system": "sparse",
     "root_output": False, "docs": [("doc-11", "Hamlet is a tragedy written by William Shakespeare.", 12.5)]},
]


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("hex_ids", [False, True], ids=["protobuf-json-base64-ids", "otlp-json-hex-ids"])
def test_spans_from_the_real_sdk_become_the_samples_expected(tmp_path, hex_ids):
    path = tmp_path / "spans.jsonl"
    ids = write_rag_traces(path, TRACES, hex_ids=hex_ids)
    assert len(path.read_text().splitlines()) == 6  # one export per span: a trace's spans lie on several lines
    samples = list(iter_samples(TraceSource(path, "openinference", "metadata.system")))
    got = [s.to_dict() for s in samples]
    # each sample links to its trace and root span (the span a score sent to OpenTelemetry is put on)
    assert [d.pop("trace") for d in got] == [{"trace_id": i, "span_id": _root_span(path, i)} for i in ids]
    assert got == [
        {"id": ids[0], "system": "dense", "question": TRACES[0]["question"], "answer": TRACES[0]["answer"],
         "contexts": [{"text": t, "rank": r, "id": i, "doc_id": None, "score": s}
                      for r, (i, t, s) in enumerate(TRACES[0]["docs"], start=1)],
         "references": [], "relevant": None, "origin": f"{path}:1"},
        {"id": ids[1], "system": "sparse", "question": TRACES[1]["question"], "answer": TRACES[1]["answer"],
         "contexts": [{"text": TRACES[1]["docs"][0][1], "rank": 1, "id": "doc-11", "doc_id": None, "score": 12.5}],
         "references": [], "relevant": None, "origin": f"{path}:4"},
    ]


def _root_span(path, trace_id):
    """The hex id of the span without a parent in trace ``trace_id`` of the export at ``path``."""
    import base64

    def hexed(value):
        return value if len(value) in (16, 32) else base64.b64decode(value).hex()

    for line in path.read_text().splitlines():
        for block in json.loads(line)["resourceSpans"]:
            for scope in block["scopeSpans"]:
                for span in scope["spans"]:
                    if hexed(span["traceId"]) == trace_id and not span.get("parentSpanId"):
                        return hexed(span["spanId"])


def test_without_system_from_every_trace_is_the_default_system(tmp_path):
    path = tmp_path / "spans.jsonl"
    write_rag_traces(path, TRACES)
    assert {s.system for s in iter_samples(TraceSource(path, "openinference"))} == {"default"}


def test_genevals_run_from_openinference_scores_the_traces(tmp_path):
    """The user's command on a file the SDK wrote: each trace a sample of its system, scored offline."""
    path = tmp_path / "spans.jsonl"
    ids = write_rag_traces(path, TRACES)
    done = genevals("run", "--from", "openinference", str(path), "--system-from", "metadata.system",
                    "-m", "grounding", "-o", str(tmp_path / "out"), "-q")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [(r["id"], r["system"], [c["id"] for c in r["contexts"]]) for r in rows] == [
        (ids[0], "dense", ["doc-7", "doc-3"]), (ids[1], "sparse", ["doc-11"])]
    assert all(r["metrics"]["faithfulness"]["status"] == "ok" for r in rows)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["meta"]["input"] == str(path)


def _located(path, fmt="openinference", system_from=None):
    errors = [x for x in iter_samples(TraceSource(path, fmt, system_from)) if isinstance(x, InputError)]
    assert errors
    return [str(e) for e in errors]


def test_an_export_that_is_not_otlp_is_refused_naming_what_was_expected(tmp_path):
    path = tmp_path / "spans.jsonl"
    path.write_text(json.dumps({"name": "rag", "context": {"trace_id": "0x1"}, "attributes": {}}) + "\n")
    [message] = _located(path)
    assert message.startswith(f"{path}:1: field 'resourceSpans': expected an OTLP JSON trace export")
    assert "'name', 'context', 'attributes'" in message


def test_a_bad_attribute_value_is_located_by_line_and_field(tmp_path):
    path = tmp_path / "spans.jsonl"
    write_rag_traces(path, TRACES[:1])
    lines = path.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"][0]["value"] = {"floatValue": 1}
    lines[1] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    [message] = _located(path)
    assert message.startswith(f"{path}:2: field 'resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value': "
                              "expected one of stringValue")


def test_malformed_json_and_spans_without_openinference_attributes_are_located(tmp_path):
    path = tmp_path / "spans.jsonl"
    write_rag_traces(path, TRACES[:1])
    path.write_text(path.read_text() + '{"resourceSpans": [\n')
    assert _located(path) == [f"{path}:4: malformed JSON: Expecting value (column 20)"]
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "GET /",
         "attributes": [{"key": "http.method", "value": {"stringValue": "GET"}}]}]}]}]}) + "\n")
    [message] = _located(plain)
    assert message.startswith(f"{plain}:1: field 'openinference.span.kind': trace 5b8efff798038103d269b633813fc60c: "
                              "no span carries 'openinference.span.kind'")


def test_a_missing_system_attribute_names_it_and_where_it_was_looked_for(tmp_path):
    path = tmp_path / "spans.jsonl"
    write_rag_traces(path, TRACES[:1])
    [message] = _located(path, system_from="metadata.team")
    assert message == (f"{path}:1: field 'metadata.team': --system-from: no attribute 'metadata.team' in root span "
                       "'rag', span 'retrieve', span 'generate', the resource")


def test_the_cli_says_where_an_export_is_malformed_and_exits_2_without_a_traceback(tmp_path):
    path = tmp_path / "spans.json"
    path.write_text('{"resourceSpans": [\n  {"scopeSpans": [}\n]}\n')
    done = genevals("run", "--from", "openinference", str(path), "-o", str(tmp_path / "out"), "-m", "token_f1")
    assert done.returncode == 2
    assert f"{path}:2: malformed JSON: Expecting value (column 19)" in done.stderr
    assert "Traceback" not in done.stderr
