"""The OTLP/HTTP receiver of ``genevals watch``: ``POST /v1/traces`` on 127.0.0.1 (the OTLP spec's path and
answers, https://opentelemetry.io/docs/specs/otlp/#otlphttp-response).

Answers: 200 once the batch is committed to the queue (an ``ExportTraceServiceResponse``, protobuf or JSON as the
request was, with ``partialSuccess`` counting spans refused for bad ids); 400 a malformed body, with the reason;
404 another path; 405 another method; 411 no Content-Length; 413 a body over ``--max-body`` (gzip inflated
included); 415 another content type or encoding; 429 the queue is full and 503 the queue cannot be written, both
with ``Retry-After`` (OTLP exporters retry those two, and only those).

Each request has its own thread (``ThreadingHTTPServer``) and its socket a timeout: a sender that stops halfway
times out without holding up the others.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from genevals.watch.config import WatchConfig
from genevals.watch.otlp import JSON, PROTOBUF, OtlpError, decode_body
from genevals.watch.store import QueueFull, Store, StoreError, Triage

PATH = "/v1/traces"
#: seconds an exporter is told to wait before retrying a full or failing queue
RETRY_AFTER = 5


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a sender stuck in its timeout does not keep the watcher from exiting
    allow_reuse_address = True
    # socketserver's 5 pending connections: a burst of exporters connecting at once had some reset
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        """A connection that failed mid-request (a sender that reset it, went away, or sent what http.server
        cannot read): one line, not socketserver's traceback; the other connections go on."""
        kind, exc = sys.exc_info()[:2]
        print(f"genevals watch: a request from {client_address[0]} ended early ({kind.__name__ if kind else '?'}: "
              f"{str(exc)[:200]})", file=sys.stderr)


class Receiver:
    """The receiver of ``config`` writing to ``store``; :meth:`start` binds 127.0.0.1 (``config.otlp_port``, 0:
    a free port) and serves in a thread; ``accepted`` counts the spans committed."""

    def __init__(self, config: WatchConfig, store: Store, triage: Triage,
                 clock: Callable[[], float] = time.time) -> None:
        self.config, self.store, self.triage, self.clock = config, store, triage, clock
        self.accepted = 0
        self._count = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> int:
        self._server = _Server(("127.0.0.1", self.config.otlp_port or 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="otlp-receiver", daemon=True)
        self._thread.start()
        return self._server.server_address[1]

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def handle(self, body: bytes, content_type: str | None, encoding: str | None) -> tuple[int, bytes, str, dict]:
        """(status, body, content type, extra headers) for one POST's body."""
        as_json = (content_type or "").split(";")[0].strip().lower() == JSON
        try:
            parsed = decode_body(body, content_type, encoding, self.config.max_body)
            kept = self.store.add(parsed.records, self.triage, self.clock())
        except OtlpError as exc:
            return exc.status, _error(exc.reason), "application/json", {}
        except QueueFull as exc:
            return 429, _error(str(exc)), "application/json", {"Retry-After": str(RETRY_AFTER)}
        except StoreError as exc:
            print(f"genevals watch: the queue cannot be written: {exc}", file=sys.stderr)
            return 503, _error("the queue cannot be written"), "application/json", {"Retry-After": str(RETRY_AFTER)}
        except Exception as exc:  # noqa: BLE001 - a body no rule above foresaw is refused, never a traceback
            reason = f"the body could not be read ({type(exc).__name__}: {str(exc)[:200]})"
            print(f"genevals watch: {reason}", file=sys.stderr)
            return 400, _error(reason), "application/json", {}
        with self._count:
            self.accepted += kept
        reply = ExportTraceServiceResponse()
        if parsed.rejected:
            reply.partial_success.rejected_spans = len(parsed.rejected)
            reply.partial_success.error_message = "; ".join(parsed.rejected[:3])[:1000]
        if as_json:
            from google.protobuf import json_format

            return 200, json.dumps(json_format.MessageToDict(reply)).encode(), JSON, {}
        return 200, reply.SerializeToString(), PROTOBUF, {}


def _error(reason: str) -> bytes:
    return json.dumps({"error": reason}).encode()


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    limit = receiver.config.max_body

    class Handler(BaseHTTPRequestHandler):
        timeout = receiver.config.socket_timeout  # the socket's: a slow sender gives up its thread, no one else's
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int, body: bytes, kind: str = "application/json", extra: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?")[0] != PATH:
                self.close_connection = True
                return self._answer(404, _error(f"no such path {self.path[:100]!r}: POST {PATH}"))
            given = self.headers.get("Content-Length")
            if given is None or not given.strip().isdigit():
                self.close_connection = True
                return self._answer(411 if given is None else 400,
                                    _error("expected a Content-Length (a whole number of bytes)"))
            size = int(given)
            if size > limit:
                self.close_connection = True  # the body is not read: the connection cannot be reused
                return self._answer(413, _error(f"the body ({size:,} bytes) is over --max-body ({limit:,})"))
            body = self.rfile.read(size)
            if len(body) < size:
                self.close_connection = True
                return None  # the sender went away (or timed out) mid-body: nothing to answer
            status, reply, kind, extra = receiver.handle(body, self.headers.get("Content-Type"),
                                                         self.headers.get("Content-Encoding"))
            self._answer(status, reply, kind, extra)

        def _not_allowed(self) -> None:
            self.close_connection = True
            if self.path.split("?")[0] != PATH:
                return self._answer(404, _error(f"no such path {self.path[:100]!r}: POST {PATH}"))
            self._answer(405, _error(f"{self.command} {PATH}: only POST"), extra={"Allow": "POST"})

        do_GET = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _not_allowed  # noqa: N815

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
            pass  # one line per request would drown the watcher's own; the counts are in the status line

    return Handler
