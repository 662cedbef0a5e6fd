"""Issue 52, point 13: `genevals export otel` counts as sent only what a backend took. Real `genevals` processes
send to real HTTP servers on 127.0.0.1 that answer the way a misconfigured or hostile backend does: a redirect
(307, 302, a loop, to file://), a 2xx whose partial_success rejects every record or some of them, an answer
trickled a byte at a time, a reason phrase holding terminal escapes. Each must end in exit 1 (docs/reference:
`genevals export otel` could not send every event), say why, and nothing undelivered counts as sent; no backend
text reaches the terminal with a control character, and no run outlives its timeout."""
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from support.otlp_receiver import Receiver

#: real `genevals` processes, about a second of CPU each
pytestmark = pytest.mark.slow
ROWS = [{"id": "q1", "question": "Capital of France?", "answer": "Paris", "references": ["Paris"]},
        {"id": "q2", "question": "Who wrote Hamlet?", "answer": "Marlowe", "references": ["Shakespeare"]},
        {"id": "q3", "question": "Largest ocean?", "answer": "The Pacific", "references": ["Pacific"]}]
EVENTS = 6  # three samples, two outputs


class Backend:
    """A raw HTTP server on 127.0.0.1: each request's head and body are read, then ``reply(handler)`` writes
    whatever bytes it likes to the socket (``write``), so a status line, a header or a pace no library would
    produce can be sent."""

    def __init__(self, reply):
        self.reply, self.requests = reply, []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stopping = False

    def _serve(self, conn):
        with conn:
            conn.settimeout(30)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += conn.recv(65536)
            self.requests.append(head.split(b"\r\n")[0].decode())
            try:
                self.reply(conn, self)
            except OSError:  # the client gave up: what a backend sees when genevals stops waiting
                pass

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stopping = True
        self.sock.close()


def answer(status_line: bytes, headers=(), body=b"", content_type=b"application/x-protobuf"):
    def reply(conn, backend):
        lines = [status_line, b"Content-Type: " + content_type, b"Content-Length: %d" % len(body), *headers]
        conn.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)
    return reply


def rejecting(count, message="quota exceeded"):
    reply = ExportLogsServiceResponse()
    reply.partial_success.rejected_log_records = count
    reply.partial_success.error_message = message
    return answer(b"HTTP/1.1 200 OK", body=reply.SerializeToString())


def genevals(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "OTEL_EXPORTER_OTLP_TIMEOUT": "3", **(env or {})})


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("otel-delivery")
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    done = genevals("run", str(data), "-m", "token_f1,exact_match", "-o", str(folder / "run"), "--no-history", "-q")
    assert done.returncode == 0, done.stderr
    return folder / "run"


def export(run_dir, url, **kw):
    done = genevals("export", "otel", str(run_dir), "--otel-endpoint", url, **kw)
    assert "Traceback" not in done.stderr, done.stderr
    record = json.loads((run_dir / "otel.json").read_text())
    return done, record


def _undelivered(done, record, *said):
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "sent 6" not in done.stdout + done.stderr
    assert record["sent"] == 0 and record["events"] == EVENTS, record
    for text in said:
        assert text in done.stderr, done.stderr


def test_a_plain_2xx_is_sent(run_dir):
    with Backend(answer(b"HTTP/1.1 200 OK", body=ExportLogsServiceResponse().SerializeToString())) as backend:
        done, record = export(run_dir, backend.url)
    assert done.returncode == 0 and f"sent {EVENTS}" in done.stdout, done.stderr
    assert record["sent"] == EVENTS and len(backend.requests) == 1


@pytest.mark.parametrize("status", [b"307 Temporary Redirect", b"302 Found", b"308 Permanent Redirect",
                                    b"301 Moved Permanently"])
def test_a_redirect_to_a_real_receiver_is_not_followed_nor_counted(run_dir, status):
    with Receiver() as receiver:
        target = f"{receiver.url}/v1/logs".encode()
        with Backend(answer(b"HTTP/1.1 " + status, [b"Location: " + target])) as backend:
            done, record = export(run_dir, backend.url)
        assert receiver.records == [] and receiver.paths == []  # followed nowhere: nothing was delivered
    _undelivered(done, record, status.decode()[:3], "redirect", receiver.url)
    assert len(backend.requests) == 1


def test_a_redirect_loop_and_a_redirect_to_a_file_are_failures(run_dir):
    def loop(conn, backend):
        answer(b"HTTP/1.1 302 Found", [f"Location: {backend.url}/v1/logs".encode()])(conn, backend)

    with Backend(loop) as backend:
        done, record = export(run_dir, backend.url)
    _undelivered(done, record, "302")
    assert len(backend.requests) == 1
    with Backend(answer(b"HTTP/1.1 307 Temporary Redirect", [b"Location: file:///etc/passwd"])) as backend:
        done, record = export(run_dir, backend.url)
    _undelivered(done, record, "307", "file:///etc/passwd")


def test_a_partial_success_that_rejects_everything_is_not_sent(run_dir):
    with Backend(rejecting(EVENTS, "quota \x1b[31mexceeded")) as backend:
        done, record = export(run_dir, backend.url)
    assert done.returncode == 1, done.stderr
    assert record["sent"] == 0 and record["rejected"] + record["failed"] == EVENTS, record
    assert f"rejected {EVENTS} of {EVENTS}" in done.stderr and "quota" in done.stderr
    assert "\x1b" not in done.stderr + done.stdout


def test_a_partial_success_that_rejects_some_subtracts_them(run_dir):
    json_reply = json.dumps({"partialSuccess": {"rejectedLogRecords": "2", "errorMessage": "two too old"}}).encode()
    for reply in (rejecting(2), answer(b"HTTP/1.1 200 OK", body=json_reply, content_type=b"application/json")):
        with Backend(reply) as backend:
            done, record = export(run_dir, backend.url)
        assert done.returncode == 1, done.stderr
        assert record["sent"] == EVENTS - 2 and record["rejected"] == 2, record
        assert f"could not send 2 of {EVENTS}" in done.stderr


def test_a_trickling_backend_cannot_hold_the_run_past_the_timeout(run_dir):
    def trickle(conn, backend):
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(600):  # a header byte every 0.2 s: each socket read is quick, the answer never ends
            conn.sendall(b"X")
            time.sleep(0.2)

    with Backend(trickle) as backend:
        started = time.monotonic()
        done, record = export(run_dir, backend.url, env={"OTEL_EXPORTER_OTLP_TIMEOUT": "2"})
        took = time.monotonic() - started
    _undelivered(done, record, "no whole answer within 2 s")
    assert took < 15, f"the run took {took:.1f} s with a 2 s timeout"


def test_the_backends_reason_phrase_reaches_the_terminal_without_escapes(run_dir):
    reason = b"HTTP/1.1 400 Bad\x1b[2J\x1b]0;pwned\x07Request\r"
    with Backend(answer(reason.rstrip(b"\r"))) as backend:
        done, record = export(run_dir, backend.url)
    _undelivered(done, record, "400")
    assert not any(c in done.stderr + done.stdout for c in "\x1b\x07\r"), repr(done.stderr)
    assert not any(c in record["error"] for c in "\x1b\x07\r"), record["error"]
