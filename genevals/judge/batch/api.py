"""The Batch API's five calls, over the standard library's HTTP client (each a few per batch, so its cost does
not matter, and it reads a reply a line at a time with a cap: the output file of a batch may be large).

``upload`` (``POST /files``, multipart, purpose ``batch``), ``create`` (``POST /batches``), ``get``
(``GET /batches/{id}``) and ``lines`` (``GET /files/{id}/content``, one line at a time). A failed call raises
:class:`BatchAPIError`, ``transient`` for what is worth trying again (a dropped connection, a timeout, 429, 5xx),
its message the server's error message (the client redacts it before it is kept anywhere).
"""
from __future__ import annotations

import json
import os
import secrets
import urllib.error
import urllib.request
from typing import Any

from genevals.judge.backends.http import StatusError


class BatchAPIError(Exception):
    def __init__(self, message: str, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


class BatchAPI:
    """The Batch API of the OpenAI-compatible server at ``base_url`` (the API root: ``.../v1``)."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key or 'not-needed'}", "User-Agent": "genevals-batch"}
        for env, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
            if os.environ.get(env):
                self._headers[header] = os.environ[env]
        self.timeout = timeout

    def __repr__(self) -> str:  # never the key
        return f"BatchAPI({self.base_url!r})"

    def upload(self, content: bytes, name: str) -> str:
        """The id of the uploaded requests file."""
        boundary = "genevals" + secrets.token_hex(12)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                "Content-Type: application/jsonl\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
        reply = self._json("POST", "/files", body, f"multipart/form-data; boundary={boundary}")
        return _id(reply, "file")

    def create(self, input_file_id: str, metadata: dict[str, str]) -> dict[str, Any]:
        body = json.dumps({"input_file_id": input_file_id, "endpoint": "/v1/chat/completions",
                           "completion_window": "24h", "metadata": metadata}).encode()
        reply = self._json("POST", "/batches", body, "application/json")
        _id(reply, "batch")
        return reply

    def get(self, batch_id: str) -> dict[str, Any]:
        reply = self._json("GET", f"/batches/{_path(batch_id)}", None, None)
        if not isinstance(reply.get("status"), str):
            raise BatchAPIError(f"batch {batch_id}: the reply has no status", True)
        return reply

    def lines(self, file_id: str, max_bytes: int, max_line: int) -> tuple[list[bytes | None], bool]:
        """The lines of file ``file_id``, read one at a time: a line over ``max_line`` bytes is None (its bytes
        skipped), and reading stops after ``max_bytes``; (lines, whether the file was cut there)."""
        found: list[bytes | None] = []
        read = 0
        with self._open("GET", f"/files/{_path(file_id)}/content", None, None) as reply:
            while read < max_bytes:
                line = reply.readline(max_line + 1)
                if not line:
                    return found, False
                read += len(line)
                if len(line) > max_line and not line.endswith(b"\n"):
                    while read < max_bytes:  # the rest of the long line, not kept
                        rest = reply.readline(1 << 16)
                        read += len(rest)
                        if not rest or rest.endswith(b"\n"):
                            break
                    found.append(None)
                    continue
                if line.strip():
                    found.append(line)
            return found, bool(reply.read(1))

    # -- transport ---------------------------------------------------------------------------------------
    def _json(self, method: str, path: str, body: bytes | None, content_type: str | None) -> dict[str, Any]:
        with self._open(method, path, body, content_type) as reply:
            data = reply.read(1 << 20)  # a status reply is small: a megabyte is plenty
        try:
            parsed = json.loads(data)
        except ValueError:
            raise BatchAPIError(f"{method} {path}: the reply is not JSON", True) from None
        if not isinstance(parsed, dict):
            raise BatchAPIError(f"{method} {path}: the reply is not a JSON object", True)
        return parsed

    def _open(self, method: str, path: str, body: bytes | None, content_type: str | None):
        headers = dict(self._headers)
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base_url + path, data=body, method=method, headers=headers)
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)  # noqa: S310 (the configured judge URL)
        except urllib.error.HTTPError as exc:
            status = exc.code
            error = StatusError.from_reply(status, {}, exc.read(1 << 16) if exc.fp else b"")
            raise BatchAPIError(f"{method} {path}: HTTP {status}: {error.message}",
                                status >= 500 or status in (408, 409, 429)) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:  # refused, reset, timeout, a bad URL
            reason = getattr(exc, "reason", None) or exc
            raise BatchAPIError(f"{method} {path}: connection error: {type(exc).__name__}: {reason}", True) from None


def _id(reply: dict[str, Any], what: str) -> str:
    value = reply.get("id")
    if not isinstance(value, str) or not value or len(value) > 200:
        raise BatchAPIError(f"the {what} reply has no usable id", True)
    return value


def _path(value: str) -> str:
    """An id as one path segment (an id from a server is not trusted to be one)."""
    from urllib.parse import quote

    return quote(value, safe="")
