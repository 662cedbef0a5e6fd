"""The lean HTTP/1.1 client of the OpenAI-compatible backend, against real servers on 127.0.0.1: a raw asyncio
server that answers in the ways real servers do (chunked bodies, Content-Length, closing a kept-alive connection,
1xx before the reply, error bodies), and the fault-injecting judge server."""
from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from genevals.judge.backends import http
from genevals.judge.backends.openai_compatible import OpenAIProvider
from genevals.judge.protocol import PermanentError, TransientError
from support.fault_server import FaultServer

REPLY = {"choices": [{"message": {"content": "{\"ok\": true}"}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 7, "completion_tokens": 3}}


async def _raw_server(replies):
    """A server that reads one request at a time and writes ``replies[i](request_bytes)`` for the i-th request
    overall (bytes, or None to close the connection without answering). Returns (server, port, log)."""
    log: list[dict] = []
    connections = itertools.count()

    async def handle(reader, writer):
        conn = next(connections)  # not id(writer): a closed writer's id can be reused by the next one
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                log.append({"line": lines[0], "headers": headers, "body": json.loads(body), "conn": conn})
                out = replies[len(log) - 1](body)
                if out is None:
                    writer.close()
                    return
                writer.write(out)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):  # client gone, or loop ends
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], log


def _reply(status: int, body: bytes, *extra: str, chunked: bool = False) -> bytes:
    head = [f"HTTP/1.1 {status} X", "Content-Type: application/json", *extra]
    if chunked:
        parts = [body[:5], body[5:]]
        payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts if p) + b"0\r\n\r\n"
        head.append("Transfer-Encoding: chunked")
    else:
        payload = body
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


def _run(coro):
    return asyncio.run(coro)


def test_keep_alive_chunked_and_content_length_replies():
    body = json.dumps(REPLY).encode()

    async def main():
        server, port, log = await _raw_server([
            lambda _: _reply(200, body),
            lambda _: b"HTTP/1.1 100 Continue\r\n\r\n" + _reply(200, body, chunked=True),
            lambda _: _reply(200, body),
        ])
        async with server:
            poster = http.JsonPoster(f"http://127.0.0.1:{port}/v1/", {"Authorization": "Bearer k"}, 5.0)
            got = [await poster.post("/chat/completions", {"n": i, "text": "é"}) for i in range(3)]
        return got, log, port

    got, log, port = _run(main())
    assert got == [body] * 3
    assert [e["line"] for e in log] == ["POST /v1/chat/completions HTTP/1.1"] * 3
    assert len({e["conn"] for e in log}) == 1  # one connection, kept alive
    assert log[0]["headers"]["authorization"] == "Bearer k" and log[0]["headers"]["host"] == f"127.0.0.1:{port}"
    assert [e["body"] for e in log] == [{"n": i, "text": "é"} for i in range(3)]


def test_a_kept_alive_connection_the_server_dropped_is_replaced_once():
    body = json.dumps(REPLY).encode()

    async def main():
        server, port, log = await _raw_server([
            lambda _: _reply(200, body, "Connection: keep-alive"),
            lambda _: None,  # the server closes the idle connection as the next request arrives
            lambda _: _reply(200, body),
        ])
        async with server:
            poster = http.JsonPoster(f"http://127.0.0.1:{port}/v1", {}, 5.0)
            first = await poster.post("/x", {"n": 1})
            second = await poster.post("/x", {"n": 2})
        return first, second, log

    first, second, log = _run(main())
    assert first == second == body
    assert [e["body"]["n"] for e in log] == [1, 2, 2] and log[1]["conn"] != log[2]["conn"]


def test_errors_read_like_the_openai_clients_and_map_to_transient_or_permanent():
    async def main():
        error = json.dumps({"error": {"message": "model `m` does not exist"}}).encode()
        server, port, _ = await _raw_server([
            lambda _: _reply(404, error),
            lambda _: _reply(429, b'{"error": {"message": "slow down"}}', "Retry-After: 2"),
            lambda _: _reply(503, b"<html>busy</html>"),
            lambda _: b"NOT HTTP\r\n\r\n",
        ])
        async with server:
            provider = OpenAIProvider(base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key="k", timeout=5)
            out = []
            for _ in range(4):
                try:
                    await provider.complete([{"role": "user", "content": "hi"}], None, {})
                except (TransientError, PermanentError) as exc:
                    out.append(exc)
        return out

    e404, e429, e503, bad = _run(main())
    assert isinstance(e404, PermanentError) and str(e404) == "HTTP 404: Error code: 404 - model `m` does not exist"
    assert isinstance(e429, TransientError) and e429.status == 429 and e429.retry_after == 2.0
    assert str(e429) == "HTTP 429: Error code: 429 - slow down"
    assert isinstance(e503, TransientError) and e503.status == 503 and "<html>busy</html>" in str(e503)
    assert isinstance(bad, TransientError) and str(bad).startswith("connection error:")


def test_timeout_and_refused_connection_are_transient():
    async def main():
        async def hang(reader, writer):
            await asyncio.sleep(5)

        server = await asyncio.start_server(hang, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            slow = OpenAIProvider(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=0.3)
            with pytest.raises(TransientError, match=r"^timeout after 0.3s$"):
                await slow.complete([{"role": "user", "content": "hi"}], None, {})
        closed = OpenAIProvider(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=2)
        with pytest.raises(TransientError, match=r"^connection error: "):
            await closed.complete([{"role": "user", "content": "hi"}], None, {})

    _run(main())


def test_the_openai_client_serves_what_the_lean_client_leaves(monkeypatch):
    """A proxy for the host, or a URL with a query, goes through the openai client; its replies and errors are
    the same as the lean client's, against the fault-injecting server."""
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert http.lean_url("http://127.0.0.1:8080/v1") and http.lean_url("https://api.openai.com/v1")
    assert not http.lean_url("http://127.0.0.1:8080/v1?api-version=1") and not http.lean_url("ftp://x/v1")
    assert not http.lean_url("http://user:pw@127.0.0.1:8080/v1")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert not http.lean_url("http://10.1.2.3:8080/v1")
    monkeypatch.setenv("NO_PROXY", "10.1.2.3")
    assert http.lean_url("http://10.1.2.3:8080/v1")
    monkeypatch.delenv("HTTP_PROXY")
    monkeypatch.delenv("NO_PROXY")

    with FaultServer(reject_json_schema=True, api_key="sk-right") as server:
        async def main(key):
            provider = OpenAIProvider(base_url=server.base_url + "?trace=1", model="m", api_key=key, timeout=5)
            schema = {"type": "object"}
            try:
                return provider, await provider.complete(
                    [{"role": "user", "content": 'split an answer into atomic claims\nAnswer: """A b. C d."""'}],
                    schema, {})
            except PermanentError as exc:
                return provider, exc

        provider, done = _run(main("sk-right"))
        assert type(provider._client).__name__ == "AsyncOpenAI"
        assert json.loads(done.text)["claims"][0]["claim"] == "A b." and done.usage.prompt_tokens > 0
        assert done.requests == 2 and provider.mode == "json_object_schema"  # json_schema refused, then served
        _, refused = _run(main("sk-wrong"))
        assert isinstance(refused, PermanentError) and str(refused).startswith("HTTP 401: Error code: 401 - ")
