"""A lean HTTP/1.1 client for one thing: POST a JSON body, get the reply's bytes, over keep-alive connections.

Why it exists: against a judge answering in 200 ms at concurrency 32, the openai client and httpx under it spent
3-5 ms of CPU per call (request transforms, pydantic models, httpx's layers), and on two cores that CPU, not the
server, set the pace (benchmarks/RESULTS.md, issue 16). A chat completion needs none of it: one request line, a
few headers, a JSON body; one status line, headers and a body back. Here a call costs a fraction of a
millisecond.

What it does: http and https (certificates checked against certifi's bundle when installed, as the openai client
does, else the system's), connections kept alive and reused within one event loop, a request on a reused
connection that the server had closed sent again once on a new one (nothing was read of it), Content-Length and
chunked replies, one timeout over the whole request. What it leaves to the openai client
(:func:`lean_url` says when): proxies, URLs with a query or user info, redirects, compressed replies (it never
asks for them).
"""
from __future__ import annotations

import asyncio
import json
import ssl
import urllib.request
from typing import Any, Mapping
from urllib.parse import urlsplit


class StatusError(Exception):
    """The server answered with status >= 400, from either transport (this client or the openai client's).
    ``message`` is worded like the openai client's ("Error code: 429 - <the body's error.message>") so errors
    read the same on both paths."""

    def __init__(self, status: int, headers: Any, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers
        self.message = message

    @classmethod
    def from_reply(cls, status: int, headers: Mapping[str, str], body: bytes) -> StatusError:
        message = f"Error code: {status}"
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        error = parsed.get("error", parsed) if isinstance(parsed, dict) else None
        detail = error.get("message") if isinstance(error, dict) else None
        if isinstance(detail, str) and detail:
            message += f" - {detail}"
        elif parsed is None and body.strip():
            message += f" - {body.decode('utf-8', 'replace').strip()}"
        return cls(status, headers, message)


class _Closed(ConnectionError):
    """The server closed the connection before sending a status line."""


class ReplyCut(ConnectionError):
    """The server closed the connection inside a reply's body, after its status line and headers (llama.cpp's
    Python server ends a streamed reply so when another request waits for its one slot)."""


def lean_url(url: str) -> bool:
    """Whether :class:`JsonPoster` can serve ``url``: http(s), no query, fragment or user info, and no proxy
    configured for its host (the environment's HTTP(S)_PROXY / ALL_PROXY, minus NO_PROXY)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment \
            or parts.username is not None:
        return False
    proxies = urllib.request.getproxies()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return True
    return bool(urllib.request.proxy_bypass(parts.hostname))


def _ssl_context() -> ssl.SSLContext:
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi comes with openai
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


class JsonPoster:
    """POST JSON to ``base_url + path`` and return the reply's body. Use from one event loop."""

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout: float) -> None:
        parts = urlsplit(base_url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        host = f"[{self.host}]" if ":" in self.host else self.host
        if parts.port:
            host += f":{parts.port}"
        self._head = "".join(f"{k}: {v}\r\n" for k, v in {"Host": host, **headers}.items())
        self._ssl = _ssl_context() if self.https else None
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(self, path: str, payload: Any) -> bytes:
        """The body of a 2xx reply; :class:`StatusError` for >= 400, ``asyncio.TimeoutError`` after
        ``timeout`` seconds, ``OSError`` (ConnectionError, ssl.SSLError, ...) when the connection fails."""
        body = json.dumps(payload, ensure_ascii=False).encode()
        request = (f"POST {self.prefix}{path} HTTP/1.1\r\n{self._head}Content-Length: {len(body)}\r\n\r\n"
                   .encode("latin-1") + body)
        return await asyncio.wait_for(self._send(request), self.timeout)

    async def _send(self, request: bytes) -> bytes:
        while True:
            reused = bool(self._idle)
            reader, writer = self._idle.pop() if reused else await self._connect()
            done = False
            try:
                writer.write(request)
                status, headers, data, keep = await _read_reply(reader)
                done = True
            except (_Closed, ConnectionResetError, BrokenPipeError):
                if reused:  # the server dropped an idle connection: nothing was read, send again on a new one
                    continue
                raise
            finally:
                if not done:
                    writer.close()
            if keep:
                self._idle.append((reader, writer))
            else:
                writer.close()
            if status >= 400:
                raise StatusError.from_reply(status, headers, data)
            return data

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.host, self.port, ssl=self._ssl,
                                             server_hostname=self.host if self._ssl else None)


async def _read_reply(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes, bool]:
    """status, headers (lower-case names), body, and whether the connection may be reused."""
    while True:
        line = await reader.readline()
        if not line:
            raise _Closed("connection closed before a reply")
        version, _, rest = line.decode("latin-1").partition(" ")
        try:
            status = int(rest[:3])
        except ValueError:
            raise ConnectionError(f"not an HTTP reply: {line[:80]!r}") from None
        headers: dict[str, str] = {}
        while True:
            field = await reader.readline()
            if field in (b"\r\n", b"\n"):
                break
            if not field:
                raise ConnectionError("connection closed inside the reply's headers")
            name, _, value = field.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if status >= 200:
            break  # 1xx (100 Continue, 103 Early Hints): the real reply follows
    keep = (headers.get("connection", "").lower() != "close") if version == "HTTP/1.1" else \
        headers.get("connection", "").lower() == "keep-alive"
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            parts = []
            while True:
                line = await reader.readline()
                if not line:
                    raise ReplyCut("connection closed inside a chunked reply")
                head = line.split(b";", 1)[0].strip()
                try:
                    size = int(head, 16)
                except ValueError:
                    raise ConnectionError(f"bad chunk size {head[:20]!r}") from None
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                parts.append(await reader.readexactly(size))
                await reader.readexactly(2)
            return status, headers, b"".join(parts), keep
        if "content-length" in headers:
            return status, headers, await reader.readexactly(int(headers["content-length"])), keep
    except asyncio.IncompleteReadError:
        raise ReplyCut("connection closed inside a reply") from None
    return status, headers, await reader.read(), False
