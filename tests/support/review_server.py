"""``genevals review RUN_DIR`` as a real process on 127.0.0.1 (a free port), and plain HTTP calls to it; the same
server in a thread of the test's process (:class:`InProcessServer`), for the hostile corpus's many short calls."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from http.client import HTTPConnection, HTTPException, HTTPResponse
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


class ReviewProcess:
    """A running review server: ``url``, ``token`` (read from its page, as the browser does) and ``call``."""

    def __init__(self, run_dir: Path, *options: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen([sys.executable, "-m", "genevals", "review", str(run_dir), "--port", "0", *options],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        match = re.search(r"http://[^ ]+/", line)
        if not match:
            self.proc.kill()
            raise RuntimeError(f"review server did not start: {line!r} {self.proc.stderr.read()[-2000:]}")
        self.banner = line
        self.stderr = ""
        self.url = match.group(0)
        from support.runs import embedded  # here: the in-process server's many short cases need none of it

        status, html = self.call("GET", "/", raw=True)
        assert status == 200
        self.token = embedded(html)["review"]["token"]

    def call(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None,
             token: str | None = "page", raw: bool = False, data: bytes | None = None) -> tuple[int, Any]:
        hdrs = {"Content-Type": "application/json"}
        if token == "page":
            token = getattr(self, "token", None)
        if token:
            hdrs["X-Genevals-Token"] = token
        hdrs.update(headers or {})
        payload = data if data is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url.rstrip("/") + path, data=payload, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, content = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            status, content = exc.code, exc.read().decode("utf-8")
        if raw:
            return status, content
        return status, json.loads(content) if content else None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.proc.stderr.closed:
            self.stderr = self.proc.stderr.read()
            self.proc.stdout.close()
            self.proc.stderr.close()


class InProcessServer:
    """The real :class:`~genevals.review.server.ReviewServer` over ``run_dir`` in a thread of this process, on
    127.0.0.1 and a free port (for many short checks, where starting a process each would cost a second)."""

    def __init__(self, run_dir: Path, request_timeout: float = 3.0) -> None:
        from genevals.registry import declaration_of
        from genevals.review.server import ReviewApp, ReviewServer, ServeConfig

        self.app = ReviewApp(ServeConfig(run_dir=Path(run_dir), port=0, request_timeout=request_timeout),
                             declaration_of)
        self.server = ReviewServer(self.app)
        self.port = self.server.server_address[1]
        # a short poll: stop() waits for it, and the hostile corpus starts and stops hundreds of these
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def send(self, method: str, path: str, body: bytes | None = None, headers: Mapping[str, str] | None = None,
             raw: bytes | None = None, half_close: bool = False) -> tuple[int, bytes]:
        """One request with :mod:`http.client`, headers exactly as given (no Content-Length is added), or the
        bytes ``raw`` as they are; ``half_close`` ends the sending side after the body (a client that sent
        less than it announced and waits). (status, body); ConnectionError when the server hung up."""
        conn = HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.connect()
            if raw is not None:  # no request was put, so http.client would not read a reply: read it here
                conn.send(raw)
                if half_close:
                    conn.sock.shutdown(socket.SHUT_WR)
                response = HTTPResponse(conn.sock, method="GET")
                response.begin()
                return response.status, response.read()
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for key, value in (headers or {}).items():
                conn.putheader(key, value)
            conn.endheaders(body)
            if half_close:
                conn.sock.shutdown(socket.SHUT_WR)
            response = conn.getresponse()
            return response.status, response.read()
        except (OSError, HTTPException) as exc:  # reset, closed without a reply, timed out
            raise ConnectionError(f"the server dropped the connection: {type(exc).__name__}: {exc}") from None
        finally:
            conn.close()

    def headers(self, token: bool = True) -> dict[str, str]:
        out = {"Host": f"127.0.0.1:{self.port}", "Content-Type": "application/json"}
        if token:
            out["X-Genevals-Token"] = self.app.token
        return out

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)

    def __enter__(self) -> InProcessServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def judged(status: int, content: bytes) -> Any:
    """A reply as the hostile corpus judges it: a 2xx's JSON returned (the length of a page or file); a 4xx with a JSON error raises
    ValueError (HTTP status and the error, which names the field); anything else raises RuntimeError."""
    try:
        reply = json.loads(content.decode("utf-8")) if content else None
    except ValueError:
        if 200 <= status < 300:  # a page or a file
            return len(content)
        raise RuntimeError(f"HTTP {status} with a body that is not JSON: {content[:200]!r}") from None
    if 200 <= status < 300:
        return reply
    if 400 <= status < 500 and isinstance(reply, dict) and isinstance(reply.get("error"), str):
        raise ValueError(f"HTTP {status}: {reply['error']}")
    raise RuntimeError(f"HTTP {status}: {content[:500]!r}")


def annotate_run(run_dir: Path) -> None:
    """Every sample of a run gets one claim (the whole answer, contradicted) and one checked citation (sentence 0
    cites context 0, supported), as a judge and the citation check would have written them: something to
    decide on in a run scored with cheap metrics only."""
    path = Path(run_dir) / "results.jsonl"
    rows = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw]
    for row in rows:
        answer = row["answer"]
        row["metrics"]["faithfulness"] = {"value": 0.0, "status": "ok", "details": {
            "claims": [{"index": 0, "text": answer, "spans": [[0, len(answer)]], "located": True}],
            "verdicts": [{"claim_index": 0, "label": "contradicted", "missing": False}]}}
        row["metrics"]["citation_recall"] = {"value": 1.0, "status": "ok", "details": {
            "sentences": [{"index": 0, "text": answer, "cited": [0], "citations": [{"context": 0, "relevant": True}]}]}}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


# ------------------------------------------------------------------ one hostile request (the hostile corpus)

def _expand(body: str | bytes) -> bytes:
    """JSON text with ``§BIG§`` as 5,000 digits and ``§LONG§`` as 15,000 characters (kept short in case ids)."""
    if isinstance(body, bytes):
        return body
    return body.replace("§BIG§", "7" * 5000).replace("§LONG§", "x" * 15000).encode("utf-8")


def hostile_post(run_dir: Path, body: str | bytes, headers: dict | None = None, method: str = "POST",
                 path: str = "/api/decisions", half_close: bool = False, token: bool = True) -> Any:
    """Start a server over ``run_dir``, send ``body`` with the page's headers changed by ``headers`` (None
    removes one; Content-Length is the body's unless given), stop it, and judge the reply (:func:`judged`)."""
    data = _expand(body)
    with InProcessServer(run_dir) as server:
        sent = {**server.headers(token), "Content-Length": str(len(data))}
        for key, value in (headers or {}).items():
            if value is None:
                sent.pop(key, None)
            else:
                sent[key] = value
        reply = server.send(method, path, data, sent, half_close=half_close)
    return judged(*reply)


def hostile_get(run_dir: Path, path: str, headers: dict | None = None, token: bool = True,
                method: str = "GET") -> Any:
    with InProcessServer(run_dir) as server:
        sent = {**server.headers(token), **(headers or {})}
        reply = server.send(method, path, None, {k: v for k, v in sent.items() if v is not None})
    return judged(*reply)


def hostile_raw(run_dir: Path, data: bytes) -> Any:
    """Bytes sent as they are, then the sending side closed: what the server makes of a malformed request."""
    with InProcessServer(run_dir) as server:
        return judged(*server.send("", "", raw=data, half_close=True))


def hostile_concurrent(run_dir: Path, bodies: list[dict]) -> dict:
    """Every body sent at once, each on its own connection: each stored, and the state then shows them all."""
    with InProcessServer(run_dir) as server:
        results: list = [None] * len(bodies)

        def one(i: int) -> None:
            data = json.dumps(bodies[i]).encode()
            try:
                results[i] = server.send("POST", "/api/decisions", data,
                                         {**server.headers(), "Content-Length": str(len(data))})
            except ConnectionError as exc:
                results[i] = exc

        threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        for result in results:
            if not isinstance(result, tuple):
                raise RuntimeError(f"a concurrent decision failed: {result!r}")
            judged(*result)
        final = judged(*server.send("GET", "/api/state", None, server.headers()))
    if len(final["decisions"]) != len(bodies):
        raise RuntimeError(f"{len(final['decisions'])} decisions stored of {len(bodies)}")
    return final
