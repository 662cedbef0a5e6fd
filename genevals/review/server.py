"""``genevals review RUN_DIR``: the run's report served on 127.0.0.1 with reviewers' writes enabled.

The standard library's :mod:`http.server` (a :class:`~http.server.ThreadingHTTPServer`): the review needs a
handful of routes on one machine, so nothing new has to be installed. Routes:

* ``GET /``: the report page, built from the run folder (rebuilt when results.jsonl changes), carrying a token
  made for this server process;
* ``GET /api/state`` and ``POST /api/decisions`` (JSON): the stored decisions with progress, agreement and the
  judge's precision (:func:`genevals.review.tally.tally`), and a new decision (on a claim, on marked text, or,
  with ``citation: {sentence, context}``, on a citation verdict: :mod:`genevals.review.citations`);
* ``GET /files/NAME``: a file of the run folder, as a download that cannot run (``sandbox`` CSP).

Security: bound to 127.0.0.1 unless the caller allows otherwise; the Host header must name the loopback address
(so a DNS-rebinding page cannot read the token); API calls need the token in ``X-Genevals-Token`` (a cross-site
page can neither read it nor send that header without a CORS preflight, which is never granted), a JSON body of
at most :data:`MAX_BODY` bytes and, when the browser sends one, a same-origin ``Origin``. Every response forbids
framing, sniffing and caching.

Slow clients: each request (its line, headers and body) must arrive within ``request_timeout`` seconds of the
first wait for it, however it trickles in, and every send has the same limit; a connection past it is closed.
Each connection has its own thread, so a slow one never holds up the others. Anything malformed a client sends
(headers, JSON nested past what the parser takes, text that is not valid Unicode, a file name the system
refuses) is answered 4xx; 500 is left for failures of the server's own (a run folder rewritten under it).
"""
from __future__ import annotations

import errno
import hmac
import io
import json
import re
import sys
import time
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from genevals.review.app import ReviewApp, ServeConfig  # noqa: F401 (the server's public names, as before)
from genevals.review.requests import RequestError
from genevals.output.terminal import say

MAX_BODY = 16 * 1024
_DIGITS = re.compile("[0-9]+")
SEND_CHUNK = 64 * 1024
TOKEN_HEADER = "X-Genevals-Token"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_COMMON_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                   "X-Frame-Options": "DENY", "Cache-Control": "no-store",
                   "Cross-Origin-Resource-Policy": "same-origin"}


class _DeadlineReader(io.RawIOBase):
    """A connection's incoming bytes, each read waiting only until the request's deadline, so a client that
    trickles one byte a second cannot keep a request open longer than the timeout (a socket timeout alone
    limits each wait, not their sum)."""

    def __init__(self, sock) -> None:
        self._sock = sock
        self.deadline = time.monotonic()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request not received in time")
        self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class Handler(BaseHTTPRequestHandler):
    server_version = "genevals-review"
    sys_version = ""
    server: ReviewServer

    def setup(self) -> None:
        self.timeout = self.server.app.config.request_timeout  # sends, and the first wait (StreamRequestHandler)
        super().setup()
        self.rfile.close()  # the socket's own reader, replaced (left open, it would keep the socket from closing)
        self._reader = _DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        self._reader.deadline = time.monotonic() + self.server.app.config.request_timeout
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.app.config.verbose:
            super().log_message(format, *args)

    # -- responses ---------------------------------------------------------------------------------------------
    def _send(self, status: HTTPStatus, body: bytes, content_type: str, headers: Mapping[str, str] = {}) -> None:
        self.connection.settimeout(self.server.app.config.request_timeout)  # reads left it at what remained
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in {**_COMMON_HEADERS, **headers}.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            # In pieces: a socket's timeout bounds a whole sendall, and a big page to a slow but live client is fine.
            for start in range(0, len(body), SEND_CHUNK):
                self.wfile.write(body[start:start + SEND_CHUNK])

    def _json(self, status: HTTPStatus, data: Any) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8",
                   {"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"})

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line or header, a method no route takes) as JSON,
        like every other answer; a method that is not served is 405, not 501."""
        status = HTTPStatus(code)
        headers = {}
        if status == HTTPStatus.NOT_IMPLEMENTED:
            status, message = HTTPStatus.METHOD_NOT_ALLOWED, f"method {str(self.command)[:20]!r} is not served here"
            headers["Allow"] = "GET, HEAD, POST"
        elif status == HTTPStatus.HTTP_VERSION_NOT_SUPPORTED:  # the client's mistake: a 4xx like the others
            status = HTTPStatus.BAD_REQUEST
        self.close_connection = True
        if getattr(self, "request_version", "HTTP/0.9") == "HTTP/0.9":  # a request line it could not read:
            self.request_version = "HTTP/1.0"  # answer with a status line, not a bare HTTP/0.9 body
        try:
            body = json.dumps({"error": message or status.phrase}, ensure_ascii=True).encode("ascii")
            self._send(status, body, "application/json; charset=utf-8",
                       {**headers, "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'"})
        except (TimeoutError, ConnectionError):
            pass

    def _error(self, exc: Exception) -> None:
        self.close_connection = True
        if isinstance(exc, (TimeoutError, ConnectionError)):  # too slow, or gone: nobody is left to answer
            self.log_error("connection dropped: %r", exc)
            return
        if isinstance(exc, RequestError):
            self._json(exc.status, {"error": str(exc)})
            return
        # A run folder being rewritten (a re-run in progress) can fail a rebuild: say so, keep serving.
        say(f"genevals review: error: {type(exc).__name__}: {exc}", flush=True)
        self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"{type(exc).__name__}: {exc}"})

    # -- checks ------------------------------------------------------------------------------------------------
    def _check_host(self) -> None:
        if self.server.app.config.allow_remote:
            return
        host = _hostname("//" + (self.headers.get("Host") or ""))
        if host not in (*LOOPBACK, self.server.app.config.host):
            raise RequestError(HTTPStatus.MISDIRECTED_REQUEST, "this server answers only to its loopback address")

    def _check_token(self) -> None:
        given = self.headers.get(TOKEN_HEADER) or ""
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.server.app.token.encode("ascii")):
            raise RequestError(HTTPStatus.FORBIDDEN, "missing or wrong review token (reload the page)")

    def _check_origin(self) -> None:
        origin = self.headers.get("Origin")
        if origin is None or self.server.app.config.allow_remote:
            return
        try:
            parts = urlsplit(origin)
            host, port = parts.hostname, parts.port  # ValueError: a bad IPv6 literal or port
        except ValueError:
            raise RequestError(HTTPStatus.FORBIDDEN, "malformed Origin header") from None
        if host not in (*LOOPBACK, self.server.app.config.host) or port != self.server.server_address[1]:
            raise RequestError(HTTPStatus.FORBIDDEN, "cross-origin writes are refused")

    def _body(self) -> Any:
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
        given = self.headers.get("Content-Length")
        if given is None or not _DIGITS.fullmatch(given.strip()):  # ASCII digits: "²".isdigit() is true
            raise RequestError(HTTPStatus.LENGTH_REQUIRED, "Content-Length: a number of bytes is needed")
        digits = given.strip().lstrip("0") or "0"
        if len(digits) > len(str(MAX_BODY)) or int(digits) > MAX_BODY:  # never int() of 5,000 digits
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                               f"Content-Length: request bodies are limited to {MAX_BODY} bytes")
        length = int(digits)
        data = self.rfile.read(length)
        if len(data) < length:
            raise RequestError(HTTPStatus.BAD_REQUEST, "request body shorter than its Content-Length")
        try:
            return json.loads(data.decode("utf-8"), parse_int=_json_int)
        except UnicodeDecodeError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "malformed JSON: the body is not UTF-8") from None
        except ValueError as exc:  # JSONDecodeError, or a number of more digits than int() takes
            raise RequestError(HTTPStatus.BAD_REQUEST, f"malformed JSON: {str(exc)[:200]}") from None
        except RecursionError:  # arrays or objects nested thousands deep; no decision nests at all
            raise RequestError(HTTPStatus.BAD_REQUEST, "JSON nested too deep") from None

    # -- routes ------------------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        try:
            self._check_host()
            path = urlsplit(self.path).path
            app = self.server.app
            if path in ("/", "/index.html", "/report"):
                if path == "/report" and app.config.blind:
                    raise RequestError(HTTPStatus.FORBIDDEN, "blind review: the report shows the judge's verdicts; "
                                       "serve the run without --blind to see it")
                app.refresh()
                page = app.item_page if app.items_page and path != "/report" else app.page
                self._send(HTTPStatus.OK, page, "text/html; charset=utf-8",
                           {"Content-Security-Policy": "frame-ancestors 'none'"})
            elif path in ("/api/items", "/api/item"):
                self._check_token()
                app.refresh()
                try:
                    query = parse_qs(urlsplit(self.path).query, max_num_fields=10)
                except ValueError:
                    raise RequestError(HTTPStatus.BAD_REQUEST, "too many query parameters") from None
                self._json(HTTPStatus.OK, app.items(query) if path == "/api/items" else app.item(query))
            elif path == "/api/state":
                self._check_token()
                app.refresh()
                self._json(HTTPStatus.OK, app.state())
            elif path.startswith("/files/"):
                if app.config.blind:  # results.jsonl and the report hold every verdict
                    raise RequestError(HTTPStatus.FORBIDDEN, "blind review: the run's files hold the judge's "
                                       "verdicts; serve the run without --blind to download them")
                self._file(unquote(path[len("/files/"):]))
            else:
                raise RequestError(HTTPStatus.NOT_FOUND, "not found")
        except Exception as exc:  # noqa: BLE001 (every failure becomes a response)
            self._error(exc)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        try:
            self._check_host()
            if urlsplit(self.path).path != "/api/decisions":
                raise RequestError(HTTPStatus.NOT_FOUND, "not found")
            self._check_token()
            self._check_origin()
            body = self._body()
            self.server.app.refresh()
            self._json(HTTPStatus.CREATED, self.server.app.decide(body))
        except Exception as exc:  # noqa: BLE001
            self._error(exc)

    def _file(self, name: str) -> None:
        """A file inside the run folder, never outside it: no ``..``, no hidden names, and a link only when what
        it points at passes the same checks (a link to ``.hidden`` or out of the folder is not found)."""
        root = self.server.app.run_dir.resolve()
        if not name or "\x00" in name or not _visible(Path(name).parts):
            raise RequestError(HTTPStatus.NOT_FOUND, "not found")
        try:
            target = (root / name).resolve()
            if not (target.is_relative_to(root) and _visible(target.relative_to(root).parts) and target.is_file()):
                raise RequestError(HTTPStatus.NOT_FOUND, "not found")
            content = target.read_bytes()
        except OSError:  # a name too long for the file system, a loop of links, a file gone or unreadable
            raise RequestError(HTTPStatus.NOT_FOUND, "not found") from None
        content_type = "application/json" if target.suffix in (".json", ".jsonl") else "application/octet-stream"
        filename = re.sub(r"[^A-Za-z0-9._-]", "_", target.name)
        self._send(HTTPStatus.OK, content, content_type,
                   {"Content-Security-Policy": "sandbox; default-src 'none'",
                    "Content-Disposition": f'attachment; filename="{filename}"'})


def _json_int(digits: str) -> int | float:
    """A JSON integer; one too long for int() (over 4,300 digits) reads as an infinite float, which no field
    takes, so the reply names the field rather than the parser."""
    return int(digits) if len(digits) <= 4000 else float(digits)


def _hostname(url: str) -> str | None:
    """The host of ``url``, or None when it is malformed (an unclosed IPv6 bracket)."""
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _visible(parts: tuple[str, ...]) -> bool:
    return bool(parts) and not any(p.startswith(".") or p in ("/", "\\") for p in parts)


class PortInUse(OSError):
    """The port is taken; the message names it and the way out."""


class ReviewServer(ThreadingHTTPServer):
    # A thread per connection (daemon: Ctrl-C does not wait for a client's open connection).
    daemon_threads = True

    def __init__(self, app: ReviewApp) -> None:
        self.app = app
        try:
            super().__init__((app.config.host, app.config.port), Handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(f"port {app.config.port} on {app.config.host} is already in use (another "
                                f"`genevals review`?); pass --port N for another port, or --port 0 for any "
                                f"free one") from None
            raise

    def handle_error(self, request, client_address) -> None:
        """A connection that failed outside a route (reset while its request was read): one line when
        --verbose, not socketserver's traceback."""
        exc = sys.exc_info()[1]
        if self.app.config.verbose or not isinstance(exc, (TimeoutError, ConnectionError)):
            say(f"genevals review: {client_address[0]}: connection failed: {type(exc).__name__}: {exc}", flush=True)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"


def is_loopback(host: str) -> bool:
    return host in LOOPBACK or host.startswith("127.")


def serve(config: ServeConfig, declared: Callable[[str], Mapping[str, Any] | None] | None = None,
          out=sys.stdout) -> None:
    """Serve ``config.run_dir`` until interrupted, printing the address first."""
    if not is_loopback(config.host) and not config.allow_remote:
        raise ValueError(f"--host {config.host}: not a loopback address; pass --allow-remote to bind it anyway")
    app = ReviewApp(config, declared)
    server = ReviewServer(app)
    where = "loopback only: other machines cannot reach it" if is_loopback(config.host) else "REACHABLE FROM OTHER MACHINES"
    say(f"genevals review: serving {config.run_dir} at {server.url} ({where}); Ctrl-C stops it", out, flush=True)
    if app.queue is not None:
        q = app.queue
        say(f"genevals review: queue of {len(q.entries)} answers from {sum(q.sizes.values())} in {len(q.sizes)} "
            f"strata ({'drawn now' if app.queue_new else 'continued from review.sqlite'}, seed {q.seed})"
            + ("; blind" if config.blind else ""), out, flush=True)
        if app.stale:  # kept in the store (results.jsonl may come back), left out of what is served
            say(f"genevals: warning: {config.run_dir / 'review.sqlite'}: {app.stale} of the {len(q.entries)} "
                f"answers of its review queue are no longer in {config.run_dir / 'results.jsonl'} (scored again?); "
                "they are left out of the review", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
