"""A run's results sent to an OpenTelemetry backend: one ``gen_ai.evaluation.result`` event per sample and metric,
over OTLP/HTTP, with the official OpenTelemetry SDK and exporter (``pip install 'genevals[otel]'``).

The event follows the GenAI semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-events/,
status Development): an OpenTelemetry event is a log record with an event name, so the results travel as log
records to the backend's ``/v1/logs``. Its attributes:

- ``gen_ai.evaluation.name``: the metric's output (``faithfulness``, ``token_f1``, ``recall@10``);
- ``gen_ai.evaluation.score.value``: the value, only when the status is ``ok`` (no number stands in for a score
  that was not given);
- ``gen_ai.evaluation.score.label``: the status when it is not ``ok`` (``judge_error``, ``no_reference``, ...);
- ``gen_ai.evaluation.explanation``: the result's reason; ``error.type``: the status when the metric failed
  (``judge_error``, ``parse_error``, ``error``);
- ``genevals.*``: the sample's id and system, the metric's family, its signature (summary.json's: what was
  computed, and how) and the input's digest (manifest.json's), so an event names the run it came from.

A sample read from a trace export (``genevals run --from openinference|langfuse``) keeps the trace's id and its
root span's id (results.jsonl's ``trace``); its events carry them as their trace context, so the backend shows
each score on the span that produced the answer, as the conventions ask ("parented to the GenAI operation span
being evaluated").

The files come first: :func:`send` reads a run folder that is already written, and a backend that is down, refuses
the events (4xx/5xx) or does not answer in time loses nothing but the events, which ``genevals export otel
RUN_DIR`` sends again. What was sent is recorded in the folder's ``otel.json``; headers (credentials) are read by
the SDK from ``OTEL_EXPORTER_OTLP_HEADERS`` and are never written anywhere.
"""
from __future__ import annotations

import datetime
import json
import logging
import os
import re
import time
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping
from urllib.parse import urlsplit, urlunsplit

from genevals.extras import missing as missing_extra
from genevals.finite import num
from genevals.output import otel_http, summary_shape
from genevals.output.otel_credentials import HEADER_VARIABLES, credentials_problem
from genevals.output.runfolder import (OTEL_FILE, SUMMARY_FILE, iter_rows, read_manifest, read_outputs,
                                       read_summary, write_whole)
from genevals.types import ERROR, JUDGE_ERROR, OK, PARSE_ERROR

EVENT = "gen_ai.evaluation.result"
EXTRA = "otel"
REQUIRES = (("opentelemetry.sdk", "opentelemetry-sdk"),
            ("opentelemetry.exporter.otlp.proto.http", "opentelemetry-exporter-otlp-proto-http"))
#: the statuses that say the metric failed (the conventions' ``error.type``), not that it did not apply
FAILED = frozenset({JUDGE_ERROR, PARSE_ERROR, ERROR})
LOGS_PATH = "/v1/logs"
DEFAULT_ENDPOINT = "http://localhost:4318"
#: events per export request; after each, the backend has answered (a down one is found at the first)
BATCH = 512
#: characters of an explanation sent: a judge's reason is a sentence, not a transcript
MAX_EXPLANATION = 2000


class OtelError(ValueError):
    """A run folder or an endpoint that cannot be sent from or to; the message names it."""


def missing() -> str | None:
    """What to install when the ``otel`` extra's packages are not installed, else None."""
    return missing_extra("sending results to OpenTelemetry", REQUIRES, EXTRA)


def endpoint(given: str | None, env: Mapping[str, str] = os.environ) -> str:
    """The OTLP/HTTP logs URL: ``given`` (a base URL such as ``http://localhost:4318``, to which ``/v1/logs`` is
    added, or the full logs URL), else the SDK's own variables (``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` as it is,
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` plus ``/v1/logs``), else ``http://localhost:4318/v1/logs``. OtelError for a
    URL that is not http(s) with a host."""
    what = "--otel-endpoint"
    if given is not None and not given.strip():  # an unset shell variable: never a silent localhost
        raise OtelError(f"{what}: got an empty URL (an unset variable?): give one such as {DEFAULT_ENDPOINT}, or "
                        "leave the option out")
    if not given and env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        given, what, full = env["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"], "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", True
    else:
        if not given:
            given, what = env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or DEFAULT_ENDPOINT, "OTEL_EXPORTER_OTLP_ENDPOINT"
        full = None
    try:  # urlsplit itself raises for a bracket left open ("http://[::1")
        parts = urlsplit(given.strip())
        port = parts.port  # raises ValueError for a port that is not a number, or out of range
    except ValueError as exc:
        raise OtelError(f"{what}: {shown(given)}: not a URL ({exc})") from None
    if full is None:
        full = parts.path.rstrip("/").endswith(LOGS_PATH)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OtelError(f"{what}: {shown(given)}: expected an http:// or https:// URL with a host, such as "
                        f"{DEFAULT_ENDPOINT} (OTLP/HTTP; gRPC's port 4317 is not spoken here)")
    if port == 0:  # no server listens there; left as it is, the port would vanish from every message
        raise OtelError(f"{what}: {shown(given)}: port 0: expected a port from 1 to 65535")
    odd = next((c for c in parts.hostname if c.isspace() or unicodedata.category(c) in ("Cc", "Cf")), None)
    if odd is not None:  # a space or an invisible character: a typo, or a host made to look like another
        raise OtelError(f"{what}: {shown(given)}: the host holds {unicodedata.name(odd, repr(odd))} "
                        f"(U+{ord(odd):04X}); expected a host name or address")
    problem = credentials_problem(parts, env, what)
    if problem is not None:
        raise OtelError(problem)
    path = parts.path.rstrip("/")
    return urlunsplit(parts._replace(path=path if full else path + LOGS_PATH))


def shown(url: str) -> str:
    """A URL as messages and otel.json show it: without a user name, password, query or fragment, which may hold
    credentials, and cut to 200 characters."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        netloc += f":{parts.port}" if parts.port is not None else ""
        text = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    except ValueError:
        text = url.split("#")[0].split("?")[0].split("@")[-1]
    # control and format characters (a newline, a right-to-left override) would rewrite the terminal's line
    text = "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)
    return text if len(text) <= 200 else text[:200] + "..."


@dataclass(frozen=True)
class Event:
    """One result as an event: its attributes and the trace context it links to (ints; 0 when none)."""

    attributes: dict[str, Any]
    trace_id: int = 0
    span_id: int = 0


def _link(row: Mapping[str, Any]) -> tuple[int, int]:
    trace = row.get("trace")
    if not isinstance(trace, Mapping):
        return 0, 0
    try:
        trace_id = int(trace.get("trace_id") or "0", 16)
        span_id = int(trace.get("span_id") or "0", 16)
    except (TypeError, ValueError):
        return 0, 0
    if not 0 < trace_id < 1 << 128:
        return 0, 0
    return trace_id, span_id if 0 < span_id < 1 << 64 else 0


def attributes(name: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """The conventions' attributes of one metric result (results.jsonl's ``{"value", "status", "reason"}``)."""
    status = result.get("status") or OK
    status = status if isinstance(status, str) else ERROR  # a hand-edited file: no status, no score
    out: dict[str, Any] = {"gen_ai.evaluation.name": name}
    value = num(result.get("value"), None)
    if status == OK and value is not None:
        out["gen_ai.evaluation.score.value"] = value
    else:  # the status says what the score is; a number would pass for one
        out["gen_ai.evaluation.score.label"] = str(status)
    reason = result.get("reason")
    if isinstance(reason, str) and reason:
        out["gen_ai.evaluation.explanation"] = reason[:MAX_EXPLANATION]
    if status in FAILED:
        out["error.type"] = status
    out["genevals.status"] = str(status)
    return out


def events(run_dir: str | Path) -> Iterator[Event]:
    """The run's events, one per sample and metric output, in results.jsonl's order. OtelError naming the
    folder when it holds no results."""
    run_dir = Path(run_dir)
    if not (run_dir / "results.jsonl").is_file():
        raise OtelError(f"{run_dir}: no results.jsonl here: expected a run folder (`genevals run -o DIR`)")
    try:
        families = {name: d.get("family") for name, d in read_outputs(run_dir).items() if isinstance(d, Mapping)}
        summary = read_summary(run_dir)
        summary_shape.check(summary, run_dir / SUMMARY_FILE)
        signatures = summary.get("signatures") or {}
        digest = (read_manifest(run_dir) or {}).get("input_digest")
    except ValueError as exc:
        raise OtelError(str(exc)) from None
    run = {"genevals.run.input_digest": digest} if isinstance(digest, str) else {}
    for _, row in iter_rows(run_dir):
        trace_id, span_id = _link(row)
        sample = {"genevals.sample.id": str(row.get("id", "")), "genevals.system": str(row.get("system", "default"))}
        metrics = row.get("metrics")
        for name, result in (metrics.items() if isinstance(metrics, Mapping) else ()):
            if not isinstance(result, Mapping):
                continue
            family = families.get(name) or name
            extra = {"genevals.metric.family": family}
            if isinstance(signatures.get(family), str):
                extra["genevals.signature"] = signatures[family]
            yield Event({**attributes(name, result), **sample, **extra, **run}, trace_id, span_id)


@dataclass
class Sent:
    """What became of a run's events: sent (the backend took them: a 2xx answer, less what its partial_success
    rejected), failed (refused, redirected, or not answered whole in time), unsent (not tried after a failure: a
    backend that is down is not asked again for each batch), rejected (answered 2xx but rejected by its
    partial_success)."""

    endpoint: str
    events: int = 0
    sent: int = 0
    failed: int = 0
    unsent: int = 0
    rejected: int = 0
    linked: int = 0
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.unsent == 0 and self.rejected == 0

    def line(self) -> str:
        """What a terminal says about it."""
        if self.ok:
            return (f"sent {self.events:,} {EVENT} events to {self.endpoint}"
                    + (f" ({self.linked:,} linked to their traces)" if self.linked else ""))
        lost = self.failed + self.unsent + self.rejected
        why = f": {self.error}" if self.error else ""
        return (f"could not send {lost:,} of {self.events:,} {EVENT} events to {self.endpoint}{why}; "
                f"the run's files are kept: send them again with `genevals export otel RUN_DIR`")


def _context(event: Event) -> Any:
    """The trace context an event is put in: the evaluated span (remote: it lives in another process's trace),
    or none."""
    from opentelemetry import trace
    from opentelemetry.context import Context

    if not event.trace_id:
        return Context()
    span = trace.SpanContext(event.trace_id, event.span_id, is_remote=True,
                             trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED))
    return trace.set_span_in_context(trace.NonRecordingSpan(span), Context())


class _Messages(logging.Handler):
    """Keeps the SDK's first warning (why an export failed: the status code, the connection error), which it would
    otherwise print at each retry."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.first: str | None = None
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING and len(self.said) < 20:
            self.said.append(record.getMessage())
            self.first = self.first or self.said[0]

    def cause(self) -> str:
        """The reason in a few words: ``[Errno 111] Connection refused``, ``code: 404, reason: Not Found``, a
        timeout (the first such, though a warning about a setting came before it); else the SDK's first message,
        cut. Never a header's value: the SDK quotes a malformed OTEL_EXPORTER_OTLP_HEADERS whole."""
        for text in [*self.said, *([self.first] if self.first and self.first not in self.said else [])]:
            found = re.search(r"\[Errno -?\d+\] [^'\")(]+|Read timed out[^'\")(]*|code: \d+, reason: [^\n]+", text)
            if found:
                return _scrubbed(found.group(0).strip().rstrip("."))[:300]
        return _scrubbed(self.first or "the backend did not take them")[:300]




def _scrubbed(text: str, env: Mapping[str, str] = os.environ) -> str:
    """``text`` without the headers' values (whole, and each name=value part and value)."""
    if "Header format invalid" in text:
        return "OTEL_EXPORTER_OTLP_HEADERS is malformed: expected name=value pairs, comma-separated, URL-encoded"
    for name in HEADER_VARIABLES:
        raw = env.get(name) or ""
        parts = [raw] + [p for item in raw.split(",") for p in (item, item.partition("=")[2])]
        for part in sorted({p.strip() for p in parts if len(p.strip()) >= 4}, key=len, reverse=True):
            text = text.replace(part, "***")
    return text


def send(run_dir: str | Path, url: str, timeout: float | None = None) -> Sent:
    """Send the run's events to ``url`` (:func:`endpoint`'s) through the SDK's logger provider, one OTLP/HTTP
    request per :data:`BATCH` events, and say what became of them (:func:`record` writes it down). Stops at the
    first batch the backend does not take. ``timeout``: seconds each request has for its whole answer, the SDK's
    retries of a batch included (default: ``OTEL_EXPORTER_OTLP_LOGS_TIMEOUT``, ``OTEL_EXPORTER_OTLP_TIMEOUT`` or
    10); a backend still sending when it passes has failed (:mod:`genevals.output.otel_http`)."""
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs import export as sdk_export
    from opentelemetry.sdk.resources import Resource

    from genevals._version import __version__

    outcome = Sent(shown(url))
    limit = otel_http.seconds(timeout)
    stop: list[str] = []  # why the backend did not take a batch, as genevals judged its answer
    # later SDKs renamed LogExporter / LogExportResult on the way to a stable logs signal: either is taken
    LogRecordExporter = getattr(sdk_export, "LogRecordExporter", None) or sdk_export.LogExporter
    LogRecordExportResult = getattr(sdk_export, "LogRecordExportResult", None) or sdk_export.LogExportResult

    class Counting(LogRecordExporter):
        """The OTLP exporter, counting what the backend took; after a failure, the rest is not tried."""

        def __init__(self) -> None:
            self.session = otel_http.session(limit)
            self.inner = OTLPLogExporter(endpoint=url, timeout=limit, session=self.session)

        def export(self, batch):  # type: ignore[override]
            if outcome.failed or outcome.unsent:
                outcome.unsent += len(batch)
                return LogRecordExportResult.FAILURE
            self.session.deadline, self.session.last, self.session.problem = time.monotonic() + limit, None, None
            try:
                result = self.inner.export(batch)
            except Exception as exc:  # an SDK that raises a connection error instead of returning FAILURE
                listening.first = listening.first or f"{type(exc).__name__}: {exc}"
                result = LogRecordExportResult.FAILURE
            if result != LogRecordExportResult.SUCCESS:
                outcome.failed += len(batch)
                if self.session.problem:  # the deadline passed: said here, the SDK would say "timeout, retries"
                    stop.append(self.session.problem)
                return result
            # the SDK counts 200 to 399 as taken, and reads no partial_success: the answer decides
            taken, why = otel_http.verdict(self.session.last, len(batch))
            outcome.sent += taken
            if why is not None:
                stop.append(why)
                if taken:  # taken in part: the rest were rejected, and the next batch is still sent
                    outcome.rejected += len(batch) - taken
                else:
                    outcome.failed += len(batch)
                    return LogRecordExportResult.FAILURE
            return result

        def force_flush(self, timeout_millis: int = 10_000) -> bool:
            return self.inner.force_flush(timeout_millis)

        def shutdown(self) -> None:
            self.inner.shutdown()

    listening = _Messages()
    sdk_log = logging.getLogger("opentelemetry")
    was = sdk_log.propagate
    sdk_log.addHandler(listening)
    sdk_log.propagate = False  # said once, by the caller, not line by line as the exporter retries
    started = time.monotonic()
    resource = {"service.version": __version__}
    if not os.environ.get("OTEL_SERVICE_NAME") and "service.name=" not in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", ""):
        resource["service.name"] = "genevals"
    provider = LoggerProvider(resource=Resource.create(resource))
    batches = sdk_export.BatchLogRecordProcessor(Counting(), max_export_batch_size=BATCH, max_queue_size=4 * BATCH)
    provider.add_log_record_processor(batches)
    logger = provider.get_logger("genevals", __version__)
    try:
        pending = 0
        for event in events(run_dir):
            outcome.events += 1
            if outcome.failed:
                outcome.unsent += 1
                continue
            outcome.linked += event.trace_id != 0
            logger.emit(LogRecord(timestamp=time.time_ns(), event_name=EVENT, attributes=event.attributes,
                                  context=_context(event)))
            pending += 1
            if pending >= BATCH:  # the queue never overflows (it drops what does not fit) and a failure stops us
                provider.force_flush()
                pending = 0
        provider.force_flush()
    finally:
        provider.shutdown()
        sdk_log.removeHandler(listening)
        sdk_log.propagate = was
    missed = outcome.events - outcome.sent - outcome.failed - outcome.unsent - outcome.rejected
    if missed > 0:  # neither taken nor refused: dropped inside the SDK (it says why in its log)
        outcome.failed += missed
    if not outcome.ok:  # the backend's own words, without a character that would rewrite the terminal
        outcome.error = otel_http.printable(stop[0] if stop else listening.cause())
    outcome.seconds = round(time.monotonic() - started, 3)
    return outcome


def record(run_dir: str | Path, outcome: Sent) -> str | None:
    """Write ``outcome`` to the folder's otel.json (the URL without credentials; never the headers). An error
    message when the folder cannot be written, else None."""
    data = {**asdict(outcome), "event": EVENT,
            "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        write_whole(Path(run_dir) / OTEL_FILE, json.dumps(data, indent=1) + "\n")
    except OSError as exc:
        return f"{Path(run_dir) / OTEL_FILE}: {exc.strerror or exc}"
    return None
