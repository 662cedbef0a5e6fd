"""A real ``genevals watch`` process receiving OTLP/HTTP from real senders: protobuf and JSON (gzip too), the
answers OTLP exporters expect for every kind of bad request, a slow sender that cannot block the others, and the
queue's bound (429 with Retry-After)."""
import json
import socket
import time

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from support.watch_process import Watch, scored_ids
from support.watch_traces import json_body, post, request, spans, trace_id

from genevals.watch import decisions

pytest.importorskip("genevals.watch.sampling")  # W2's module: the loop's triage needs it
pytestmark = pytest.mark.slow  # real watch processes, each its own interpreter


def test_protobuf_and_json_senders_and_every_refusal(tmp_path):
    watch = Watch(tmp_path / "w", "-m", "token_f1", "--window", "3", "--grace", "0s", "--max-body", "200000")
    try:
        port = watch.port
        a, b, c = trace_id(1), trace_id(2), trace_id(3)
        status, headers, body = post(port, request(spans(a)).SerializeToString())
        assert status == 200 and headers["Content-Type"] == "application/x-protobuf"
        assert ExportTraceServiceResponse.FromString(body) == ExportTraceServiceResponse()
        status, headers, body = post(port, json_body(request(spans(b)), hex_ids=False), "application/json",
                                     gzipped=True)
        assert (status, json.loads(body)) == (200, {})
        # one span with a bad id among good ones: kept, and counted as the OTLP partial success says
        message = json.loads(json_body(request(spans(c))))
        message["resourceSpans"][0]["scopeSpans"][0]["spans"].append({"traceId": "xyz", "spanId": "1"})
        status, _, body = post(port, json.dumps(message).encode(), "application/json")
        assert status == 200 and json.loads(body)["partialSuccess"]["rejectedSpans"] == "1"
        refusals = [
            (post(port, b"\x0a\xff\xff", timeout=10), 400, "malformed protobuf"),
            (post(port, b"{", "application/json"), 400, "malformed JSON"),
            (post(port, b"{}", "text/plain"), 415, "Content-Type"),
            (post(port, b"x" * 200001), 413, "--max-body"),
            (post(port, b"\0" * 300000, gzipped=True), 413, "inflates past"),
            (post(port, b"{}", path="/v1/logs"), 404, "no such path"),
            (post(port, b"", method="GET"), 405, "only POST"),
        ]
        for (status, _, body), want, words in refusals:
            assert status == want and words in json.loads(body)["error"], (status, body)
        code, out, err = watch.stop()
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    assert code == 0 and "Traceback" not in err, err
    assert sorted(scored_ids(tmp_path / "w")) == sorted([a, b, c])
    assert {line["trace_id"]: line["decision"] for line in decisions.read(tmp_path / "w")} == {
        a: "scored", b: "scored", c: "scored"}


def test_a_slow_sender_times_out_without_blocking_others(tmp_path):
    watch = Watch(tmp_path / "w", "-m", "token_f1", "--window", "60s")
    try:
        slow = socket.create_connection(("127.0.0.1", watch.port))
        slow.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                     b"Content-Length: 1000\r\n\r\nabc")  # and then nothing
        started = time.monotonic()
        status, _, _ = post(watch.port, request(spans(trace_id(5))).SerializeToString(), timeout=20)
        assert status == 200 and time.monotonic() - started < 20
        slow.close()
        code, _, err = watch.stop()
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    assert code == 0 and "Traceback" not in err, err


def test_a_full_queue_answers_429_with_retry_after(tmp_path):
    # roots never arrive (root=False), so the spans wait; the bound is 3 spans
    watch = Watch(tmp_path / "w", "-m", "token_f1", "--queue-limit", "3")
    try:
        first = post(watch.port, request(spans(trace_id(1), root=False) * 1).SerializeToString())
        second = post(watch.port, request(spans(trace_id(2), root=False)).SerializeToString())
        third = post(watch.port, request(spans(trace_id(3), root=False) + spans(trace_id(4), root=False))
                     .SerializeToString())
        code, _, err = watch.stop()
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    assert first[0] == 200 and second[0] == 200
    # at 2 of 3 spans the queue sheds new traces above hash unit (1 - 2/3) / 0.5; these two are below it, so
    # they are stored, and the bound, not the shedding, refuses them
    from genevals.watch import sampling

    assert all(sampling.unit(trace_id(n), b"sample") < (1 - 2 / 3) / 0.5 for n in (3, 4))
    assert third[0] == 429 and third[1]["Retry-After"] == "5" and "--queue-limit 3" in json.loads(third[2])["error"]
    assert code == 0, err


def _cycle(tid):
    """Two spans, each the other's parent: no root, ever."""
    a, b = tid[:16], tid[16:]
    span = {"traceId": tid, "name": "x", "startTimeUnixNano": "1"}
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": [
        {**span, "spanId": a, "parentSpanId": b}, {**span, "spanId": b, "parentSpanId": a}]}]}]}


HOSTILE = [
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "' + b"a" * 32 + b'", "spanId": "' + b"b" * 16
    + b'", "attributes": [{"key": 1, "value": {"kvlistValue": {"values": [[]]}}}, 7, {"key": "k"}]}]}]}]}',
    b'{"resourceSpans": [{"resource": [], "scopeSpans": {}}]}',
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [' + b'{"traceId": {}},' * 1000 + b'{}]}]}]}',
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "' + b"c" * 32 + b'", "spanId": "' + b"d" * 16
    + b'", "startTimeUnixNano": 1e300, "endTimeUnixNano": "99999999999999999999999"}]}]}]}',
    b'{"a": ' * 5000 + b"1" + b"}" * 5000,
    b'"\\ud800"',
    b"\xef\xbb\xbf{}",
]


def test_hostile_bodies_and_a_span_cycle_end_in_answers_never_a_traceback(tmp_path):
    watch = Watch(tmp_path / "w", "-m", "token_f1", "--max-wait", "1s", "--grace", "0s", "--window", "60s")
    try:
        statuses = [post(watch.port, body, "application/json")[0] for body in HOSTILE]
        cyclic = trace_id(9)
        assert post(watch.port, json.dumps(_cycle(cyclic)).encode(), "application/json")[0] == 200
        # a second watcher on the same folder is refused, naming it
        from support.cli import genevals

        other = genevals("watch", "--out", tmp_path / "w", "-m", "token_f1", "--otlp-port", "0")
        assert other.returncode == 2 and "another genevals watch" in other.stderr
        assert post(watch.port, request(spans(trace_id(10))).SerializeToString())[0] == 200  # still serving
        wait_for_decision = 0
        while wait_for_decision < 100 and cyclic not in {d["trace_id"] for d in decisions.read(tmp_path / "w")}:
            time.sleep(0.1)
            wait_for_decision += 1
        code, _, err = watch.stop()
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    assert all(status in (200, 400) for status in statuses), statuses
    assert code == 0 and "Traceback" not in err, err
    log = {d["trace_id"]: d for d in decisions.read(tmp_path / "w")}
    assert log[cyclic]["decision"] == "incomplete" and log[trace_id(10)]["decision"] == "scored"
