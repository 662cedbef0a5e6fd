"""A small OpenAI-compatible chat-completions server on 127.0.0.1 with injectable faults, for judge tests.

It plays a simple honest judge: decompose splits the answer into sentences (each its own claim and source);
verify labels a claim "supported" with the claim as quote when the claim's text occurs in the contexts, else
"unverifiable". Markers in the answer text inject faults for that sample:

    FAULT429       the first two requests answer 429 with ``Retry-After: 1``
    FAULT500       every request answers 500
    FAULTHANG      every request hangs for ``hang_seconds`` before answering
    FAULTMALFORMED decompose replies are not JSON
    FAULTBODY      the HTTP body of the first request is not JSON at all
    FAULTTRUNC     the first verify reply is cut off mid-JSON (finish_reason "length")
    FAULTWRONGID   verify replies carry claim ids that were never asked for
    FAULTQUOTE     verify quotes text that is not in the context
    FAULTAUTH      401 whose error message echoes the API key (as OpenAI's does)
    FAULTECHO      replies echo the API key sent into every claim and every verdict's reason; ``echo=FORM`` in
                   the answer picks how it is written (:data:`ECHO_FORMS`): ``plain``, ``escaped`` (each
                   character a JSON \\uXXXX escape in the reply's text), ``split`` (broken by a line break in
                   claims, as two concatenated strings in reasons), ``base64`` or ``percent`` (every byte %XX)
    FAULTINVENT    decompose adds a claim copied from the prompt's worked example and one invented claim
    FAULTLEAK      ``leak=FIELD`` in the answer (:data:`LEAK_FIELDS`) writes the credentials the request carried
                   (the Bearer key; the ``user:password`` of Basic auth; the values of the URL's query) into that
                   field of the reply, written as ``echo=FORM`` says (:data:`ECHO_FORMS`; ``escaped``: every
                   character a JSON \\uXXXX escape in the body)

A leak's form may also be ``folded``: base64 broken by a line break, as a server echoing a folded
``Authorization`` header writes it.

The same leaks without a marker, for every request (the preflight and ``GET /models`` too): a base URL that ends
in ``/leak-FIELD`` or ``/leak-FIELD-FORM`` after ``/v1`` (``{base_url}/leak-model-base64``).

``claims(answer)`` (a function) replaces decompose's claims with its own when it returns a list.
``reject_json_schema=True`` makes it answer 400 to ``response_format.type == "json_schema"`` (a llama.cpp-style
server), so the client has to fall back to ``json_object`` with a schema. ``models`` (a set of names) makes it
answer 404 model_not_found for any other model, and ``api_key`` 401 (echoing the key sent, as OpenAI does) for
any other key. ``GET /v1/models`` lists ``listed`` (default: ``models``, else ``["judge"]``; ``listed=False``
answers 404); ``answer_model`` is the ``model`` every reply names (default: the model asked for, as OpenAI
does; a llama.cpp server names its own file). ``slots=1`` with ``latency=S`` plays llama.cpp's one-slot server:
requests are answered one at a time, each taking S seconds, also when the client has given up on it.
``fail_seeds`` (a set of seeds) answers 500 to every verify request sent with one of them (a judge repeat that
fails: ``--judge-repeats`` sends seed + r in repeat r). Every request is counted and kept. ``host`` is
127.0.0.1 unless a test binds it to the address it holds on a private network it created (the bridge of
:mod:`support.netns_cluster`, so that Ray nodes in other network namespaces reach it).
:class:`CountingServer` also records the most requests in flight at once.
"""
from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MARKERS = ("FAULT429", "FAULT500", "FAULTHANG", "FAULTMALFORMED", "FAULTBODY", "FAULTTRUNC", "FAULTWRONGID",
           "FAULTQUOTE", "FAULTAUTH", "FAULTECHO",
           "FAULTINVENT", "FAULTLEAK")
_SENT = re.compile(r"(?<=[.!?])\s+")
ECHO_FORMS = ("plain", "escaped", "split", "base64", "percent")
#: where FAULTLEAK (or a ``/leak-FIELD`` base URL) writes the credentials. A reply that still answers, with them
#: in: every field of an OpenAI chat completion (``model``, ``id``, ``system_fingerprint``, ``object``,
#: ``created``, ``service_tier``, an unknown top-level field, ``finish_reason``, the message's ``role``,
#: ``refusal``, ``reasoning_content``, ``tool_calls``, ``logprobs``, a second choice, ``usage``, the content
#: itself) and the response headers; ``all``: every one of those at once. An error that carries them: 400, 401,
#: 429 (its Retry-After too), 500, an HTML 502 page, a plain-text 403, a 200 with no choices or a body that is not
#: JSON, a content that is a list of parts. ``models``: ``GET /models`` lists them as the one model;
#: ``models2``: beside another.
LEAK_REPLY = ("model", "id", "fingerprint", "object", "created", "tier", "extra", "finish", "role", "refusal",
              "reasoning", "toolcalls", "logprobs", "choices", "usage", "content", "header")
LEAK_ERRORS = ("error400", "error401", "error429", "error500", "errorhtml", "errortext", "nochoices", "body",
               "contentlist")
LEAK_FIELDS = LEAK_REPLY + ("all",) + LEAK_ERRORS + ("models", "models2")
_LEAK_PATH = re.compile(r"^/v1/leak-([a-z0-9]+)(?:-([a-z0-9]+))?(/.*)?$")


class FaultServer:
    def __init__(self, *, reject_json_schema: bool = False, hang_seconds: float = 3.0,
                 replies: Any = None, models: set[str] | None = None, api_key: str | None = None,
                 slots: int | None = None, latency: float = 0.0, listed: Any = None,
                 answer_model: str | None = None, fail_seeds: set[int] | None = None,
                 host: str = "127.0.0.1", verdict: Any = None, claims: Any = None) -> None:
        self.reject_json_schema = reject_json_schema
        #: ``claims(answer) -> list of {"claim", "source"} or None``: a judge that decomposes its own way (one that
        #: invents claims from the answer's words); None, or a None reply: one claim per sentence
        self.claims = claims
        #: ``verdict(claim, label) -> label``: a judge with views of its own (a jury's dissenter); default honest
        self.verdict = verdict
        self.fail_seeds = set(fail_seeds or ())
        #: ``replies(content) -> object or None``: the reply to a prompt that is neither decompose nor verify
        self.replies = replies
        self.slots = threading.Semaphore(slots) if slots else None
        self.latency = latency
        self.models = models
        self.api_key = api_key
        self.hang_seconds = hang_seconds
        self.listed = listed
        self.answer_model = answer_model
        self.gets: list[str] = []  # paths of GET requests (GET /v1/models)
        self.requests: list[dict[str, Any]] = []
        self.counts: Counter = Counter()  # marker (or "clean") -> requests
        self.times: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server._handle(self, body)

            def do_GET(self):
                server._get(self)

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # -- lifecycle -----------------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "FaultServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def total(self) -> int:
        """POST requests (chat completions); GETs are in ``gets``."""
        return sum(self.counts.values())

    def reset_counts(self) -> None:
        with self._lock:
            self.counts.clear()
            self.requests.clear()

    # -- behaviour -----------------------------------------------------------------------------------------
    def _get(self, h: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.gets.append(h.path)
        listed = self.listed if self.listed is not None else (sorted(self.models) if self.models else ["judge"])
        field, form, path = _leak_of_path(h.path)
        if field in ("models", "models2"):
            secret = _written(_credentials(h), form)
            listed = [secret] if field == "models" else [secret, "judge"]
            return _send(h, 200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": secret}
                                                             for m in listed]}, escape=(secret, form))
        if path.rstrip("/") != "/v1/models" or listed is False:
            return _send(h, 404, {"error": {"message": f"no route {h.path}", "type": "not_found"}})
        _send(h, 200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "test"} for m in listed]})

    def _handle(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if self.slots is None:
            return self._answer(h, body)
        with self.slots:  # queued like a server with that many slots; the work is done even if nobody waits
            time.sleep(self.latency)
            return self._answer(h, body)

    def _answer(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        content = body["messages"][0]["content"]
        marker = next((m for m in MARKERS if m in content), "clean")
        kind = "decompose" if "split an answer into atomic claims" in content else (
            "verify" if "check claims against numbered" in content else "other")
        with self._lock:
            self.counts[marker] += 1
            n = self.counts[marker]
            self.times.setdefault(marker, []).append(time.monotonic())
            self.requests.append({"marker": marker, "kind": kind, "body": body,
                                  "authorization": h.headers.get("Authorization")})
        sent_key = (h.headers.get("Authorization") or "").removeprefix("Bearer ")
        if self.api_key is not None and sent_key != self.api_key:
            return _send(h, 401, {"error": {"message": f"Incorrect API key provided: {sent_key}.",
                                            "type": "invalid_request_error", "code": "invalid_api_key"}})
        if self.models is not None and body.get("model") not in self.models:
            return _send(h, 404, {"error": {"message": f"The model `{body.get('model')}` does not exist",
                                            "type": "invalid_request_error", "code": "model_not_found"}})
        fmt = body.get("response_format") or {}
        if self.reject_json_schema and fmt.get("type") == "json_schema":
            return _send(h, 400, {"error": {"message": "response_format type json_schema not supported",
                                            "type": "invalid_request_error"}})
        if marker == "FAULT429" and n <= 2:
            return _send(h, 429, {"error": {"message": "rate limited", "type": "rate_limit"}}, {"Retry-After": "1"})
        if kind == "verify" and body.get("seed") in self.fail_seeds:
            return _send(h, 500, {"error": {"message": f"seed {body.get('seed')} fails", "type": "server_error"}})
        if marker == "FAULT500":
            return _send(h, 500, {"error": {"message": "internal error", "type": "server_error"}})
        if marker == "FAULTAUTH":
            key = (h.headers.get("Authorization") or "").removeprefix("Bearer ")
            return _send(h, 401, {"error": {"message": f"Incorrect API key provided: {key}.",
                                            "type": "invalid_request_error"}})
        leak = _leak_of_path(h.path)[:2]
        if leak[0] is None and marker == "FAULTLEAK":
            found = re.search(r"leak=(\w+)", content)
            form = re.search(r"echo=(\w+)", content)
            leak = (found.group(1) if found else "all", form.group(1) if form else None)
        if leak[0] is not None:
            return self._leak(h, body, content, kind, *leak)
        if marker == "FAULTHANG":
            time.sleep(self.hang_seconds)
        if marker == "FAULTBODY" and n == 1:
            return _send_raw(h, 200, b'{"id": "x", "choices": [ this is not json')
        finish = "stop"
        echo = sent_key if marker == "FAULTECHO" else None
        form = re.search(r"echo=(\w+)", content)
        form = form.group(1) if form and echo else "plain"
        if echo and form == "split":
            cut = len(echo) // 2
            echo_claim, echo = f"{echo[:cut]}\n{echo[cut:]}", f'"{echo[:cut]}" + "{echo[cut:]}"'
        elif echo and form == "base64":
            echo = echo_claim = base64.b64encode(echo.encode()).decode()
        elif echo and form == "percent":
            echo = echo_claim = "".join(f"%{b:02X}" for b in echo.encode())
        else:
            echo_claim = echo
        if kind == "decompose":
            reply = _decompose(content, echo_claim)
            own = self.claims(_answer_of(content)) if self.claims is not None else None
            if own is not None:
                reply = {"claims": own}
            if marker == "FAULTINVENT":  # what the tiny packaged model does: copy the example, make things up
                first = reply["claims"][0]["source"]
                reply["claims"] += [{"claim": "The Varnholt Bridge opened in 1931.", "source": first},
                                    {"claim": "Quantum chromodynamics governs gluon confinement.", "source": first}]
            text = "Here you go: claims are ... not JSON {" if marker == "FAULTMALFORMED" else json.dumps(reply)
        elif kind == "verify":
            reply = _verify(content, marker, echo, self.verdict)
            text = json.dumps(reply)
            if marker == "FAULTTRUNC" and self._nth(marker, "verify") == 1:
                text, finish = text[: max(20, len(text) * 2 // 3)], "length"
        else:
            other = self.replies(content) if self.replies is not None else None
            if marker == "FAULTMALFORMED" and other is not None:
                other = "Sure! Here is my verdict, not as JSON {"
            text = other if isinstance(other, str) else json.dumps({"scores": {}} if other is None else other)
        if echo and form == "escaped":  # what the parser decodes back into the key
            text = text.replace(sent_key, "".join(f"\\u{ord(c):04x}" for c in sent_key))
        _send(h, 200, {"id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                       "model": self.answer_model or body.get("model"),
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": finish}],
                       "usage": {"prompt_tokens": len(content) // 4, "completion_tokens": len(text) // 4,
                                 "total_tokens": len(content) // 4 + len(text) // 4}})

    def _leak(self, h: BaseHTTPRequestHandler, body: dict[str, Any], content: str, kind: str, field: str,
              form: str | None) -> None:
        """A reply (or an error) with the request's credentials, written as ``form`` says, in ``field``."""
        secret = _written(_credentials(h), form)
        escape = (secret, form)
        line = secret.replace("\r", "").replace("\n", " ")  # a header holds no line break
        error = {"message": f"Request from {secret} refused", "type": "invalid_request_error", "param": secret,
                 "code": secret}
        if field in ("error400", "error401", "error500"):
            return _send(h, int(field[5:]), {"error": error}, {"X-Request-Id": line}, escape=escape)
        if field == "error429":
            return _send(h, 429, {"error": error}, {"Retry-After": line, "Retry-After-Ms": line}, escape=escape)
        if field == "errorhtml":
            return _send_raw(h, 502, f"<html><body><h1>Bad gateway</h1><p>{secret}</p></body></html>".encode(),
                             {"Content-Type": "text/html"})
        if field == "errortext":
            return _send_raw(h, 403, f"forbidden: {secret}".encode(), {"Content-Type": "text/plain"})
        if field == "body":
            return _send_raw(h, 200, f'{{"id": "{secret}", "choices": [ {secret} not json'.encode())
        if field == "nochoices":
            return _send(h, 200, {"id": secret, "model": secret, "choices": [], "error": error}, escape=escape)
        if kind == "decompose":
            text = json.dumps(_decompose(content, secret if field in ("content", "all") else None))
        elif kind == "verify":
            text = json.dumps(_verify(content, "FAULTLEAK", secret if field in ("content", "all") else None))
        else:
            other = self.replies(content) if self.replies is not None else None
            if other is None and field in ("content", "all"):
                other = {"scores": {}, "note": f"key {secret}"}
            text = other if isinstance(other, str) else json.dumps({"scores": {}} if other is None else other)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
        reply: dict[str, Any] = {"id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                                 "model": self.answer_model or body.get("model"), "choices": [choice],
                                 "usage": {"prompt_tokens": len(content) // 4, "completion_tokens": len(text) // 4,
                                           "total_tokens": len(content) // 4 + len(text) // 4}}
        if field == "contentlist":
            message["content"] = [{"type": "text", "text": secret}]
        every = LEAK_REPLY if field == "all" else (field,)
        leaks = {
            "model": lambda: reply.update(model=secret), "id": lambda: reply.update(id=secret),
            "fingerprint": lambda: reply.update(system_fingerprint=secret),
            "object": lambda: reply.update(object=secret), "created": lambda: reply.update(created=secret),
            "tier": lambda: reply.update(service_tier=secret),
            "extra": lambda: reply.update(x_debug={"authorization": secret, secret: [secret]}),
            "finish": lambda: choice.update(finish_reason=secret), "role": lambda: message.update(role=secret),
            "refusal": lambda: message.update(refusal=secret),
            "reasoning": lambda: message.update(reasoning_content=f"The key is {secret}."),
            "toolcalls": lambda: message.update(tool_calls=[{"id": secret, "type": "function", "function": {
                "name": secret, "arguments": json.dumps({"key": secret})}}]),
            "logprobs": lambda: choice.update(logprobs={"content": [{"token": secret, "logprob": -0.5, "bytes": list(
                secret.encode()), "top_logprobs": [{"token": secret, "logprob": -0.5, "bytes": None}]}]}),
            "choices": lambda: reply["choices"].append({"index": 1, "finish_reason": secret, "message": {
                "role": "assistant", "content": secret}}),
            "usage": lambda: reply.update(usage={"prompt_tokens": secret, "completion_tokens": secret,
                                                 "total_tokens": secret,
                                                 "completion_tokens_details": {"note": secret}}),
        }
        for name in every:
            if name in leaks:
                leaks[name]()
        headers = {"X-Request-Id": line, "OpenAI-Organization": line, "Set-Cookie": f"session={line}"} \
            if field in ("header", "all") else None
        _send(h, 200, reply, headers, escape=escape)

    def _nth(self, marker: str, kind: str) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r["marker"] == marker and r["kind"] == kind)


def _answer_of(content: str) -> str:
    return content.rsplit('Answer: """', 1)[1].rsplit('"""', 1)[0]


def _decompose(content: str, echo: str | None = None) -> dict[str, Any]:
    answer = _answer_of(content)
    sentences = [s.strip() for s in _SENT.split(answer) if s.strip()]
    return {"claims": [{"claim": f"{s} ({echo})" if echo else s, "source": s} for s in sentences]}


def _verify(content: str, marker: str, echo: str | None = None, verdict: Any = None) -> dict[str, Any]:
    passages = content.split("Context passages:")[1].split("\nClaims:\n")[0]
    claims_block = content.split("\nClaims:\n")[1].split("\nReply:")[0]
    verdicts = []
    for line in claims_block.strip().splitlines():
        m = re.match(r"(\d+)\. (.*)", line.strip())
        if not m:
            continue
        cid, claim = int(m.group(1)), m.group(2)
        core = claim.rstrip(".")
        ctx = next((int(c.group(1)) for c in re.finditer(r"\[(\d+)\][^\[]*", passages) if core in c.group(0)), 0)
        supported = ctx > 0
        quote = core if supported else ""
        if marker == "FAULTQUOTE":
            quote = "this sentence is nowhere in the context"
        label = "supported" if supported else "unverifiable"
        if verdict is not None:
            label = verdict(claim, label)
        verdicts.append({"id": cid + 100 if marker == "FAULTWRONGID" else cid, "context": ctx, "quote": quote,
                         "label": label,
                         "reason": f"checked with {echo}" if echo else "checked"})
    return {"verdicts": verdicts}


def _leak_of_path(path: str) -> tuple[str | None, str | None, str]:
    """(field, form, the path without its ``/leak-...`` part) of a request's path; (None, None, path) without."""
    found = _LEAK_PATH.match(path.split("?", 1)[0])
    if not found or found.group(1) not in LEAK_FIELDS:
        return None, None, path.split("?", 1)[0]
    return found.group(1), found.group(2), "/v1" + (found.group(3) or "")


def _credentials(h: BaseHTTPRequestHandler) -> str:
    """What the request authenticated with: the Bearer key, the ``user:password`` of Basic auth, the values of
    the URL's query (where keys sometimes go); space-separated."""
    scheme, _, value = (h.headers.get("Authorization") or "").partition(" ")
    found = []
    if scheme.lower() == "bearer" and value != "not-needed":
        found.append(value)
    elif scheme.lower() == "basic":
        try:
            found.append(base64.b64decode(value).decode())
        except ValueError:
            found.append(value)
    query = h.path.partition("?")[2]
    found += [part.partition("=")[2] for part in query.split("&") if part.partition("=")[2]]
    return " ".join(found)


def _written(secret: str, form: str | None) -> str:
    """``secret`` as a leak in ``form`` writes it (``escaped`` is done on the whole body: :func:`_send`)."""
    if form == "split":
        cut = len(secret) // 2
        return f"{secret[:cut]}\n{secret[cut:]}"
    if form == "base64":
        return base64.b64encode(secret.encode()).decode()
    if form == "folded":  # base64 broken by a line break, as a folded Authorization header echoed back
        encoded = base64.b64encode(secret.encode()).decode()
        return f"{encoded[:len(encoded) // 2]}\r\n {encoded[len(encoded) // 2:]}"
    if form == "percent":
        return "".join(f"%{b:02X}" for b in secret.encode())
    return secret


def _send(h: BaseHTTPRequestHandler, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None,
          escape: tuple[str, str | None] = ("", None)):
    data = json.dumps(payload)
    secret, form = escape
    if form == "escaped" and secret:  # every character of it a \uXXXX escape, which a JSON parser decodes
        data = data.replace(json.dumps(secret)[1:-1], "".join(f"\\u{ord(c):04x}" for c in secret))
    _send_raw(h, status, data.encode(), headers)


def _send_raw(h: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None):
    try:
        h.send_response(status)
        headers = dict(headers or {})
        h.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
        h.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
        pass


class SlowServer(FaultServer):
    """FaultServer that waits ``latency`` before handling (and counting) each request, like a remote model, so a
    run lasts long enough to be killed mid-way."""

    def __init__(self, latency: float) -> None:
        super().__init__()
        self.latency = latency

    def _handle(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        time.sleep(self.latency)
        return super()._handle(h, body)

    def bodies(self, start: int, end: int | None = None) -> list[str]:
        """The request bodies ``start:end``, each as canonical JSON."""
        with self._lock:
            return [json.dumps(r["body"], sort_keys=True) for r in self.requests[start:end]]


class CountingServer(FaultServer):
    """FaultServer with a fixed latency and a record of the most requests in flight at once, to show that Ray's
    judge actors cap judge calls for the whole cluster, and of the requests each client address sent (which
    node of a cluster judged)."""

    def __init__(self, latency: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.latency, self.in_flight, self.max_in_flight = latency, 0, 0
        self.clients: Counter = Counter()
        self.httpd.socket.listen(128)

    def reset_counts(self) -> None:
        super().reset_counts()
        with self._lock:
            self.clients.clear()
            self.max_in_flight = 0

    def _handle(self, h, body):
        with self._lock:
            self.clients[h.client_address[0]] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(self.latency)
        finally:
            # Counted out before the reply is written: once the client has its reply it may send the next call,
            # and on a loaded machine this thread can be descheduled after writing, so counting out afterwards
            # saw 7 calls "in flight" for a cap of 6 (CI, stop 20).
            with self._lock:
                self.in_flight -= 1
        return super()._handle(h, body)


def leaked(text: str, secret: str) -> list[str]:
    """The forms in which ``secret`` can be read back from ``text`` (the inverse of :data:`ECHO_FORMS`): as it
    is, after JSON unescaping (as often as escapes were nested), after percent-decoding, with whitespace and
    string boundaries taken out, or inside base64 at any alignment."""
    from urllib.parse import unquote

    unescaped = text
    for _ in range(3):  # results.jsonl holds a reply's "\u002d" as "\\u002d"
        unescaped = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), unescaped)
    views = {"plain": text, "escaped": unescaped, "percent": unquote(unquote(text)),
             "split": re.sub(r'(?:\s|\\+[nrt]|\\*"\s*[+,]?\s*\\*")+', "", unescaped)}
    found = [name for name, view in views.items() if secret in view]
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + secret.encode()).decode()
        core = encoded[-(-8 * k // 6): 8 * (k + len(secret.encode())) // 6]
        if any(c in view for c in (core, core.replace("+", "-").replace("/", "_")) for view in (text, views["split"])):
            found.append(f"base64@{k}")  # whole, or broken by line breaks (a folded header)
    return found
