"""The watch class's driver (issue 50): one hostile input to the OTLP/HTTP receiver or to a followed file, then
a good one, and what became of both. The corpus's API cases call it (``W.receive(NAME)``, ``W.follow(NAME)``);
the inputs are :mod:`hostile.cases_watch`'s tables.

:func:`receive` starts the real :class:`~genevals.watch.receiver.Receiver` over a real
:class:`~genevals.watch.store.Store` (``TMP/queue.sqlite``) on a free port of 127.0.0.1, sends the hostile request
over a raw socket (so a body can lie, trickle or stop), then a good trace from a second connection, and checks:

* the hostile request got an answer within :data:`BOUND` seconds (or, for a sender that never finishes its body,
  its connection was dropped): no hang;
* a refusal (4xx/5xx) says why (a JSON ``error``); the receiver wrote no traceback to stderr;
* the good trace was then accepted (200) and both its spans are in the queue (the receiver survived);
* what the hostile request carried that was sound is in the queue, span for span, and what was refused is
  counted in the OTLP partial-success answer: nothing lost, nothing made up.

Any of these broken raises RuntimeError (the runner reports it). A sound outcome returns a dict when the hostile
request was accepted (200), and raises ValueError("HTTP <status>: <reason>") when it was refused, so the case's
``where`` can name the status and the reason.

:func:`follow` runs the real :class:`~genevals.watch.follow.Follower` over ``TMP/app.jsonl`` while a scenario
damages the file (truncates, replaces, writes bytes that are no line), and each line it gives is read as the
watcher reads it (:func:`~genevals.watch.otlp.records_from_json`); every good line written must come out, each
bad line must be refused with a reason naming ``file:line``. (A real ``genevals watch`` on hostile files:
:mod:`hostile.watch_real`.)
"""
from __future__ import annotations

import contextlib
import http.client
import io
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

#: seconds any one wait may take before the case counts as hung (below the case's own limit)
BOUND = 15.0
#: the receiver's socket timeout in the driver: a sender that stops is dropped after this
SOCKET_TIMEOUT = 1.5


@dataclass
class Body:
    """One hostile request: its raw bytes after the headers, its headers (a Content-Length is added unless
    ``length`` says otherwise: None leaves it out, a number lies), and what the queue must then hold (trace ->
    spans) and how many spans the answer must count as rejected (None: not checked)."""

    data: bytes
    content_type: str | None = "application/x-protobuf"
    headers: tuple[tuple[str, str], ...] = ()
    length: int | str | None | bool = True
    stored: dict[str, int] = field(default_factory=dict)
    rejected: int | None = None
    path: str = "/v1/traces"
    method: str = "POST"
    #: how the sender behaves: "whole" (all at once), "stop" (never finishes), "reset" (RST after the bytes)
    sender: str = "whole"
    max_body: int = 1 << 20
    #: whether closing the connection without an answer is right (a body that never comes whole)
    dropped_ok: bool = False


def _head(body: Body) -> bytes:
    lines = [f"{body.method} {body.path} HTTP/1.1", "Host: 127.0.0.1"]
    if body.content_type is not None:
        lines.append(f"Content-Type: {body.content_type}")
    if body.length is True:
        lines.append(f"Content-Length: {len(body.data)}")
    elif body.length not in (None, False):
        lines.append(f"Content-Length: {body.length}")
    lines += [f"{k}: {v}" for k, v in body.headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _answer(sock: socket.socket) -> tuple[int, bytes] | None:
    """(status, body) read from ``sock``, or None when the receiver closed it without an answer."""
    reply = http.client.HTTPResponse(sock)
    try:
        reply.begin()
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        return None
    except TimeoutError:
        raise RuntimeError(f"hang: no answer within {BOUND:g} s") from None
    return reply.status, reply.read()


def _send(port: int, body: Body) -> tuple[int, bytes] | None:
    sock = socket.create_connection(("127.0.0.1", port), timeout=BOUND)
    try:
        try:
            sock.sendall(_head(body) + body.data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the whole body was read (413): the answer is still there to read
        if body.sender == "reset":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            return None
        return _answer(sock)
    finally:
        sock.close()


def _good(port: int, n: int) -> str:
    """Posts trace ``n`` (its two spans, protobuf) from a fresh connection; its id, once it was answered 200."""
    from support.watch_traces import post, request, spans, trace_id

    tid = trace_id(n)
    try:
        status, _, reply = post(port, request(spans(tid)).SerializeToString(), timeout=BOUND)
    except OSError as exc:
        raise RuntimeError(f"the receiver did not survive: the good request after it failed ({exc})") from None
    if status != 200:
        raise RuntimeError(f"the receiver did not survive: the good request after it got {status}: {reply[:200]!r}")
    return tid


def _stored(store, trace: str) -> int:
    return store._read("SELECT count(*) FROM spans WHERE trace_id = ?", (trace,))[0][0]


@contextlib.contextmanager
def _receiver(tmp: Path, max_body: int):
    from genevals.watch.config import WatchConfig
    from genevals.watch.receiver import Receiver
    from genevals.watch.store import Store

    config = WatchConfig(out=tmp / "w", metrics=("token_f1",), otlp_port=0, max_body=max_body,
                         socket_timeout=SOCKET_TIMEOUT)
    store = Store(tmp / "queue.sqlite", config.queue_limit)
    receiver = Receiver(config, store, lambda trace: None)  # triage keeps every trace: all must be stored
    port = receiver.start()
    try:
        yield port, store
    finally:
        receiver.stop()
        store.close()


def _refusal(status: int, reply: bytes) -> str:
    """The reason a 4xx/5xx gives: the receiver's JSON ``error``, or http.server's own page (a request line it
    could not read)."""
    try:
        reason = json.loads(reply)["error"]
    except (ValueError, KeyError, TypeError):
        text = reply.decode("utf-8", "replace")
        if "<title>Error response</title>" not in text:
            raise RuntimeError(f"HTTP {status} without a reason: {reply[:200]!r}") from None
        reason = text.split("<p>Message: ", 1)[-1].split("</p>", 1)[0]
    if not str(reason).strip():
        raise RuntimeError(f"HTTP {status} with an empty reason")
    return str(reason)


def receive(name: str) -> dict:
    """One hostile request of :data:`hostile.cases_watch.BODIES` (by name), then a good one (the module's
    docstring)."""
    from hostile.cases_watch import BODIES, SLOW

    tmp = Path.cwd()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):  # the receiver's threads print here too: a traceback is a failure
        if name in SLOW:
            outcome, body = SLOW[name](tmp)
        else:
            body = BODIES[name]()
            with _receiver(tmp, body.max_body) as (port, store):
                outcome = {"answer": _send(port, body)}
                outcome["good"] = _good(port, 10_000 + len(name))
                outcome["stored"] = {t: _stored(store, t) for t in [*body.stored, outcome["good"]]}
    return _judge(name, outcome, body, err.getvalue())


def _judge(name: str, outcome: dict, body: Body, stderr: str) -> dict:
    if "Traceback" in stderr:
        raise RuntimeError(f"a traceback on stderr: {stderr[-1500:]}")
    stored = outcome["stored"]
    if stored.get(outcome["good"]) != 2:
        raise RuntimeError(f"lost: the good trace has {stored.get(outcome['good'])} of its 2 spans in the queue")
    answer = outcome["answer"]
    want = dict(body.stored) if answer is not None and answer[0] == 200 else {t: 0 for t in body.stored}
    got = {t: stored[t] for t in body.stored}
    if got != want:
        raise RuntimeError(f"the queue holds {got} spans by trace, expected {want} (answer {answer and answer[0]})")
    result = {"case": name, "answer": None if answer is None else answer[0], "stored": got, "stderr": stderr[-300:]}
    if answer is None:
        if not body.dropped_ok:
            raise RuntimeError("the connection was closed without an answer")
        return result
    status, reply = answer
    if status != 200:
        reason = _refusal(status, reply)
        if "could not be read" in reason:  # the receiver's last resort: a body no rule of otlp.py names
            raise RuntimeError(f"HTTP {status} from the receiver's catch-all, not a named refusal: {reason}")
        raise ValueError(f"HTTP {status}: {reason}")
    if body.rejected is not None:
        counted = _rejected(reply, body.content_type)
        if counted != body.rejected:
            raise RuntimeError(f"the answer counts {counted} rejected spans, expected {body.rejected}")
    return result


def _rejected(reply: bytes, content_type: str | None) -> int:
    if (content_type or "").startswith("application/json"):
        return int(json.loads(reply).get("partialSuccess", {}).get("rejectedSpans", 0))
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    return ExportTraceServiceResponse.FromString(reply).partial_success.rejected_spans


# ------------------------------------------------------------------ senders that take their time

def slow(tmp: Path, body: Body, finish: bool, *, connections: int = 1, headers_only: bool = False) -> tuple:
    """``connections`` senders open at once, each trickling ``body`` a byte at a time until the good request
    (sent meanwhile from another connection) has been answered; then each finishes its body (``finish``) or
    stops sending and waits to be dropped. Returns (outcome, body) for :func:`_judge`."""
    head, payload = _head(body), body.data
    wire = head if headers_only else head + payload
    answered = threading.Event()
    answers: list = []
    midway: list[int] = []  # bytes each slow sender had sent when the good request was answered
    with _receiver(tmp, body.max_body) as (port, store):
        socks = [socket.create_connection(("127.0.0.1", port), timeout=BOUND) for _ in range(connections)]

        def trickle(sock: socket.socket) -> None:
            try:
                _trickle(sock)
            except OSError as exc:  # the receiver reset a sender that was still sending: said, not a traceback
                answers.append(("reset", str(exc)))

        def _trickle(sock: socket.socket) -> None:
            sent = 0
            # a byte every 20 ms until the good request is through (at most BOUND seconds)
            deadline = time.monotonic() + BOUND
            while sent < len(wire) - 1 and not answered.is_set() and time.monotonic() < deadline:
                sock.sendall(wire[sent:sent + 1])
                sent += 1
                time.sleep(0.02)
            if answered.is_set() and sent < len(wire) - 1:
                midway.append(sent)
            if finish:
                sock.sendall(wire[sent:])
                answers.append(_answer(sock))
            else:
                answers.append(_answer(sock))  # the receiver must drop it after its socket timeout

        threads = [threading.Thread(target=trickle, args=(s,), daemon=True) for s in socks]
        for thread in threads:
            thread.start()
        time.sleep(0.1)
        try:
            good = _good(port, 20_000 + connections)
        finally:
            answered.set()
        for thread in threads:
            thread.join(BOUND + SOCKET_TIMEOUT + 2)
            if thread.is_alive():
                raise RuntimeError("hang: a slow sender's connection was neither answered nor dropped")
        for sock in socks:
            sock.close()
        if not midway:
            raise RuntimeError("the good request was answered only after the slow senders had sent everything")
        stored = {t: _stored(store, t) for t in [*body.stored, good]}
    statuses = {None if a is None else a[0] for a in answers}
    if "reset" in statuses:
        raise RuntimeError(f"the receiver reset a slow sender's connection mid-request: {answers}")
    if len(statuses) != 1:
        raise RuntimeError(f"the slow senders got different answers: {statuses}")
    return {"answer": answers[0], "good": good, "stored": stored}, body


# ------------------------------------------------------------------ the followed file

class Scene:
    """A followed file and the Follower over it; ``step()`` reads what is there now, as the watcher's loop
    does, keeping the traces read and the refusals."""

    def __init__(self, tmp: Path, max_line: int | None = None) -> None:
        from genevals.watch.follow import MAX_LINE, Follower, OffsetFile

        self.path = tmp / "app.jsonl"
        self.refusals: list[tuple[str, str]] = []
        self.traces: list[str] = []
        self.follower = Follower(self.path, OffsetFile(tmp / "offsets.json"),
                                 refused=lambda where, why: self.refusals.append((where, why)), interval=0.05,
                                 max_line=max_line or MAX_LINE)

    def line(self, n: int) -> bytes:
        """Trace ``n`` as one OTLP JSON line (hex ids), with its newline."""
        from support.watch_traces import json_body, request, spans, trace_id

        return json_body(request(spans(trace_id(n)))) + b"\n"

    def write(self, data: bytes, mode: str = "ab") -> None:
        with open(self.path, mode) as handle:
            handle.write(data)

    def step(self, looks=None, count: int | None = None) -> None:
        """One look at the file (or ``count`` lines of ``looks``, a look begun earlier), each line read as the
        loop reads it."""
        import itertools

        from genevals.watch.otlp import OtlpError, records_from_json

        started = time.monotonic()
        looks = self.follower.available() if looks is None else looks
        for number, message in itertools.islice(looks, count):
            if time.monotonic() - started > BOUND:
                raise RuntimeError(f"hang: the follower kept reading past {BOUND:g} s")
            rejected: list[str] = []
            try:
                found = records_from_json(message, rejected)
            except OtlpError as exc:
                self.refusals.append((f"{self.path}:{number}", exc.reason))
                continue
            self.refusals += [(f"{self.path}:{number}", why) for why in rejected]
            self.traces += list(dict.fromkeys(r.trace_id for r in found))
        if time.monotonic() - started > BOUND:
            raise RuntimeError(f"hang: one look at the file took over {BOUND:g} s")


def follow(name: str) -> dict:
    """One scenario of :data:`hostile.watch_files.FOLLOWS`: it damages the file and returns the trace numbers
    that must have been read, in order, and the ``file:line`` places that must have been refused."""
    from hostile.watch_files import FOLLOWS
    from support.watch_traces import trace_id

    scenario, max_line = FOLLOWS[name]
    err = io.StringIO()
    scene = Scene(Path.cwd(), max_line)
    with contextlib.redirect_stderr(err):
        try:
            wanted, refused_at = scenario(scene)
            scene.step()
        finally:
            scene.follower.close()
    if "Traceback" in err.getvalue():
        raise RuntimeError(f"a traceback on stderr: {err.getvalue()[-1500:]}")
    expected = [trace_id(n) for n in wanted]
    if scene.traces != expected:
        lost = [n for n, t in zip(wanted, expected) if t not in scene.traces]
        raise RuntimeError(f"read {len(scene.traces)} traces, expected {len(expected)} in order (lost: {lost}; "
                           f"refusals: {scene.refusals[:5]})")
    places = [where for where, _ in scene.refusals]
    missing = [w for w in refused_at if not any(p.endswith(w) or w + " " in p for p in places)]
    if missing:
        raise RuntimeError(f"no refusal naming {missing}: {scene.refusals[:5]}")
    if any(not why.strip() for _, why in scene.refusals):
        raise RuntimeError(f"a refusal without a reason: {scene.refusals}")
    return {"case": name, "traces": len(scene.traces), "refusals": scene.refusals[:10]}
