"""A streamed chat completion (server-sent events) joined into the body an unstreamed request would have got.

The judge streams only so that a request it gives up on stops the server's generation (:mod:`genevals.judge.local`);
it still reads the reply whole, so the rest of the client sees one body either way. The stream is ``data: {chunk}``
lines, each chunk's ``choices[0].delta.content`` a piece of the reply, ending with ``data: [DONE]``; comments
(``: ping``), ``event:``/``id:``/``retry:`` fields and blank lines are skipped. A server that ignored ``stream``
answered with the body itself, which is returned as it is.

Joined: the ``content`` pieces in order; the last ``finish_reason``, ``model`` and ``usage`` given (a server sends
usage in the last chunk, if at all; without it the client estimates the tokens, as for any reply without usage).
"""
from __future__ import annotations

import json
from typing import Any


class CutShort(ValueError):
    """The stream ended without a finish reason: the server stopped the reply. llama.cpp's Python server does so,
    with ``[DONE]``, whenever another request waits for its one slot (``interrupt_requests``), so the client
    takes it as an overloaded server (:mod:`genevals.judge.limiter`) and asks again."""


def joined(body: bytes) -> bytes:
    """The chat-completion JSON body of a streamed reply ``body`` (returned as it is when it is not a stream).
    ValueError for a stream that reports an error or is not one; :class:`CutShort` for one that ends before its
    finish reason."""
    if body.lstrip()[:1] in (b"{", b"["):
        return body  # not streamed after all (a server that ignores ``stream``)
    text, finish, model, usage = [], None, None, None
    for line in body.decode("utf-8", "replace").splitlines():
        if not line.startswith("data:"):
            continue  # a comment (": ping"), another field, or the blank line between events
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ValueError(f"an event that is not JSON: {data[:80]!r}") from None
        if not isinstance(chunk, dict):
            raise ValueError(f"an event that is a {type(chunk).__name__}, not a chunk")
        if chunk.get("error") is not None:
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise ValueError(f"the server reported an error: {str(message)[:400]}")
        model = chunk.get("model") or model
        usage = chunk.get("usage") or usage
        choice = _first_choice(chunk)
        if choice is None:
            continue
        delta = choice.get("delta")
        piece = delta.get("content") if isinstance(delta, dict) else None
        if isinstance(piece, str):
            text.append(piece)
        finish = choice.get("finish_reason") or finish
    if finish is None:
        raise CutShort(f"the server ended the streamed reply after {len(''.join(text))} characters, without a "
                       "finish reason (llama.cpp's server does so when another request waits for its one slot)")
    reply: dict[str, Any] = {"object": "chat.completion", "model": model,
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(text)},
                                          "finish_reason": finish}]}
    if usage is not None:
        reply["usage"] = usage
    return json.dumps(reply, ensure_ascii=False).encode()


def _first_choice(chunk: dict[str, Any]) -> dict[str, Any] | None:
    choices = chunk.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None
