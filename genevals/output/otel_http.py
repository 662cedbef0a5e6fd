"""What the OTLP/HTTP backend answered, judged by genevals rather than taken on the SDK's word
(:mod:`genevals.output.otel` sends through it).

The OpenTelemetry SDK counts any answer from 200 to 399 as delivered, follows no redirect, reads no
``partial_success``, and bounds each socket read, not the request: a 307 pointing elsewhere, a 2xx rejecting
every record, and a backend that trickles a byte every few seconds would each pass for sent, or hold the run for
minutes. So the SDK's exporter is given a :class:`Session` (its public ``session=`` argument; headers, TLS,
compression and retries stay the SDK's) that

- never follows a redirect: a 3xx is a failure naming where it points (``--otel-endpoint`` should name that URL;
  following a POST elsewhere would send the events, and any credentials in the headers, to a place the user did
  not name, and a ``file://`` or a loop are no backend);
- gives each request one deadline for the whole exchange (connect, send, the answer's status, headers and body;
  the SDK's retries of one batch share it): when it passes, the request fails at once, whatever is still
  trickling in (the thread reading it is abandoned; it ends when the backend closes or a read times out);
- keeps the status, reason and at most :data:`MAX_BODY` bytes of the last answer, from which :func:`verdict`
  says how many of a batch's events the backend took: only a 2xx counts, less what its ``partial_success``
  rejected (``rejected_log_records``; ``rejected_spans`` and ``rejected_data_points``, which a backend may send
  in their place, count the same).

Every text that comes from the backend (a reason phrase, a Location, an error message) goes through
:func:`printable` before it reaches a message or otel.json: no control or format character reaches the terminal.
"""
from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

#: the most bytes of an answer kept (an OTLP answer is a few bytes; a partial_success message a sentence)
MAX_BODY = 64 << 10
#: the SDK's default timeout, seconds
DEFAULT_TIMEOUT = 10.0
_REJECTED = ("rejected_log_records", "rejectedLogRecords", "rejected_spans", "rejectedSpans",
             "rejected_data_points", "rejectedDataPoints")


def printable(text: Any, limit: int = 300) -> str:
    """``text`` with each control or format character (an escape, a newline, a right-to-left override) written as
    ``\\uXXXX``, cut to ``limit`` characters."""
    text = str(text)[:limit * 2]
    text = "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


def seconds(timeout: float | None, env: Any = os.environ) -> float:
    """The timeout a request gets: ``timeout``, else OTEL_EXPORTER_OTLP_LOGS_TIMEOUT, else OTEL_EXPORTER_OTLP_TIMEOUT,
    else 10 (as the SDK reads them; a value that is no positive finite number is 10, as the SDK warns)."""
    raw = timeout if timeout is not None else (env.get("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT")
                                               or env.get("OTEL_EXPORTER_OTLP_TIMEOUT") or DEFAULT_TIMEOUT)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT
    return value if math.isfinite(value) and value > 0 else DEFAULT_TIMEOUT


@dataclass
class Answer:
    """The last answer: its status, reason phrase, Location header, content type and first bytes."""

    status: int
    reason: str
    location: str | None
    content_type: str
    body: bytes


def session(timeout: float) -> Any:
    """A requests Session for the SDK's exporter (see the module's docstring); :attr:`deadline` (a
    time.monotonic() value) is set before each batch, :attr:`last` holds the last :class:`Answer` or None, and
    :attr:`problem` why a request was abandoned."""
    import requests

    class Session(requests.Session):
        def __init__(self) -> None:
            super().__init__()
            self.deadline = time.monotonic() + timeout
            self.last: Answer | None = None
            #: why the last request failed, when this session decided it (the deadline)
            self.problem: str | None = None

        def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs["allow_redirects"] = False  # whatever the SDK's version asks
            kwargs["stream"] = True  # the body read here, within bounds
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise requests.exceptions.ReadTimeout(f"no whole answer within {timeout:g} s")
            kwargs["timeout"] = remaining
            done: dict[str, Any] = {}

            def exchange() -> None:
                try:
                    response = super(Session, self).request(method, url, *args, **kwargs)
                    body = response.raw.read(MAX_BODY, decode_content=True) or b""
                    response._content, response._content_consumed = body, True
                    response.close()
                    done["response"] = response
                except BaseException as exc:  # noqa: BLE001 -- handed to the caller's thread
                    done["error"] = exc

            worker = threading.Thread(target=exchange, name="genevals-otlp-request", daemon=True)
            worker.start()
            worker.join(remaining)
            if worker.is_alive():  # a backend still trickling its answer: abandoned, never waited for
                self.problem = f"no whole answer within {timeout:g} s (the backend was still sending it)"
                raise requests.exceptions.ReadTimeout(self.problem)
            if "error" in done:
                raise done["error"]
            response = done["response"]
            self.last = Answer(response.status_code, response.reason or "", response.headers.get("location"),
                               response.headers.get("content-type") or "", response.content)
            return response

    return Session()


def _rejected(answer: Answer) -> tuple[int, str]:
    """How many records the answer's partial_success rejected, and its message ((0, "") when none, or when the
    body cannot be read: a 2xx says they were taken)."""
    if not answer.body:
        return 0, ""
    if "json" in answer.content_type.lower():
        try:
            data = json.loads(answer.body)
        except ValueError:
            return 0, ""
        partial = data.get("partialSuccess", data.get("partial_success")) if isinstance(data, dict) else None
        if not isinstance(partial, dict):
            return 0, ""
        count = next((partial[k] for k in _REJECTED if k in partial), 0)
        try:
            count = int(count)
        except (TypeError, ValueError):
            count = 0
        message = partial.get("errorMessage", partial.get("error_message")) or ""
        return max(count, 0), str(message)
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse

    reply = ExportLogsServiceResponse()
    try:  # the spans' and metrics' answers have the same shape: field 1 the count, field 2 the message
        reply.ParseFromString(answer.body)
    except Exception:  # noqa: BLE001 -- a body that is no protobuf: a 2xx still says they were taken
        return 0, ""
    partial = reply.partial_success
    return max(int(partial.rejected_log_records), 0), partial.error_message


def verdict(answer: Answer | None, events: int) -> tuple[int, str | None]:
    """How many of a batch's ``events`` the backend took by ``answer``, and why the others were not (None when
    all were)."""
    if answer is None:
        return 0, "no answer"
    where = f"{answer.status} {printable(answer.reason, 80)}".strip()
    if 300 <= answer.status < 400:
        # where it points, as a URL is shown: no user name, password, query or fragment (they may hold credentials)
        target = re.sub(r"//[^/@]*@", "//", (answer.location or "").split("#")[0].split("?")[0])
        target = printable(target, 200) if target else "nowhere"
        return 0, (f"the backend answered {where}, a redirect to {target}: redirects are not followed; give the "
                   "URL of the backend itself with --otel-endpoint")
    if not 200 <= answer.status < 300:
        return 0, f"the backend answered {where}"
    rejected, message = _rejected(answer)
    if not rejected:
        return events, None
    rejected = min(rejected, events)
    why = f": {printable(message)}" if message else ""
    return events - rejected, f"the backend answered {where} but rejected {rejected:,} of {events:,} events{why}"
