"""A local OpenAI Batch API on 127.0.0.1, for the ``--judge-batch`` tests: a real HTTP server (the cloud service
cannot be reached from here) that answers each batch line as :class:`~support.fault_server.FaultServer`, the
project's honest scripted judge, answers a chat completion.

Endpoints: ``POST /v1/files`` (multipart, purpose batch), ``POST /v1/batches``, ``GET /v1/batches/{id}``,
``GET /v1/files/{id}/content``, and FaultServer's own (``POST /v1/chat/completions``, ``GET /v1/models``).

A batch is ``in_progress`` until ``release()`` (``hold=True``; else at once), then done on the next status
check: its lines answered (each answer counted in ``counts``, as a direct call), written to an output file and an
error file. Faults:

- a marker in the answer: ``BATCHFAIL500`` its requests fail with HTTP 500 (an error-file line) the first time
  they are in a batch, ``BATCHFAIL400`` every time (a 400 naming the request);
- ``expire={1}``: the first batch created ends ``expired``, its first half answered and the rest in the error
  file as ``batch_expired`` (as OpenAI writes a batch whose window closed);
- ``hostile``: the output file of every batch made worse, one of :data:`HOSTILE`.

Counts: ``creates``, ``uploads``, ``polls``, ``downloads``; ``batched`` the custom_ids of each batch created.
"""
from __future__ import annotations

import io
import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.fault_server import FaultServer, _send, _send_raw

#: what ``hostile`` does to each output file: malformed lines in between, lines for ids never sent, a 5 MB line, an
#: output file over its size cap (padding lines), the same id twice (a wrong answer second), a reply with no
#: choices, a batch that fails as a whole, a completed batch with no files at all, and a batch that answers every
#: status check with a server error
HOSTILE = ("malformed", "unknown", "huge-line", "huge-file", "repeated", "no-choices", "failed", "no-files",
           "poll-500")
EXPIRED = "This request could not be executed before the completion window expired."


class BatchServer(FaultServer):
    def __init__(self, *, hold: bool = False, expire: set[int] | None = None, hostile: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        assert hostile is None or hostile in HOSTILE, hostile
        self.expire, self.hostile = set(expire or ()), hostile
        self.released = threading.Event()
        if not hold:
            self.released.set()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.creates = self.uploads = self.polls = self.downloads = 0
        self.batched: list[list[str]] = []
        self._seen: set[str] = set()  # custom_ids already in a batch (BATCHFAIL500 fails the first time only)
        self.httpd.RequestHandlerClass = self._handler()

    def release(self) -> None:
        self.released.set()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                path = self.path.split("?", 1)[0]
                if path == "/v1/files":
                    return server._upload(self, data)
                if path == "/v1/batches":
                    return server._create(self, json.loads(data))
                server._handle(self, json.loads(data or b"{}"))

            def do_GET(self):
                path = self.path.split("?", 1)[0]
                if path.startswith("/v1/batches/"):
                    return server._status(self, path.removeprefix("/v1/batches/"))
                if path.startswith("/v1/files/") and path.endswith("/content"):
                    return server._content(self, path.removeprefix("/v1/files/").removesuffix("/content"))
                server._get(self)

        return Handler

    # -- the Batch API -----------------------------------------------------------------------------------
    def _upload(self, h: BaseHTTPRequestHandler, data: bytes) -> None:
        boundary = h.headers.get("Content-Type", "").partition("boundary=")[2].encode()
        part = next(p for p in data.split(b"--" + boundary) if b'name="file"' in p)
        content = part.split(b"\r\n\r\n", 1)[1].removesuffix(b"\r\n")
        with self._lock:
            self.uploads += 1
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
        _send(h, 200, {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(content)})

    def _create(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        assert body["endpoint"] == "/v1/chat/completions" and body["completion_window"] == "24h", body
        with self._lock:
            self.creates += 1
            batch_id = f"batch_{self.creates}"
            lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines()]
            self.batched.append([line["custom_id"] for line in lines])
            self.batches[batch_id] = {"id": batch_id, "object": "batch", "status": "in_progress",
                                      "input_file_id": body["input_file_id"], "n": self.creates, "lines": lines,
                                      "authorization": h.headers.get("Authorization")}
        _send(h, 200, self._public(self.batches[batch_id]))

    def _status(self, h: BaseHTTPRequestHandler, batch_id: str) -> None:
        with self._lock:
            self.polls += 1
        batch = self.batches.get(batch_id)
        if batch is None:
            return _send(h, 404, {"error": {"message": f"no batch {batch_id}"}})
        if self.hostile == "poll-500":
            return _send(h, 500, {"error": {"message": "status unavailable"}})
        if batch["status"] == "in_progress" and self.released.is_set():
            self._finish(batch)
        _send(h, 200, self._public(batch))

    def _content(self, h: BaseHTTPRequestHandler, file_id: str) -> None:
        with self._lock:
            self.downloads += 1
        if file_id not in self.files:
            return _send(h, 404, {"error": {"message": f"no file {file_id}"}})
        _send_raw(h, 200, self.files[file_id], {"Content-Type": "application/octet-stream"})

    @staticmethod
    def _public(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if k not in ("lines", "n", "authorization")}

    # -- answering a batch -----------------------------------------------------------------------------------
    def _finish(self, batch: dict[str, Any]) -> None:
        output, errors = [], []
        expired = batch["n"] in self.expire
        for i, line in enumerate(batch["lines"]):
            cid, body = line["custom_id"], line["body"]
            content = body["messages"][0]["content"]
            first = cid not in self._seen
            self._seen.add(cid)
            if expired and i >= len(batch["lines"]) // 2:
                errors.append({"id": f"req_{i}", "custom_id": cid, "response": None,
                               "error": {"code": "batch_expired", "message": EXPIRED}})
                continue
            status, reply = self._reply(body, batch["authorization"])
            if "BATCHFAIL500" in content and first:
                status, reply = 500, {"error": {"message": "the model crashed", "type": "server_error"}}
            if "BATCHFAIL400" in content:
                status, reply = 400, {"error": {"message": "the request names a model feature it may not use",
                                                "type": "invalid_request_error"}}
            row = {"id": f"req_{i}", "custom_id": cid, "response": {"status_code": status, "body": reply},
                   "error": None}
            (output if status == 200 else errors).append(row)
        text = self._worse([json.dumps(row) for row in output], batch)
        with self._lock:
            if self.hostile == "failed":
                batch.update(status="failed", errors={"data": [{"code": "invalid_file",
                                                                 "message": "the input file could not be read"}]})
                return
            batch["status"] = "expired" if expired else "completed"
            if self.hostile == "no-files":
                return
            for key, content in (("output_file_id", text), ("error_file_id",
                                                             "".join(json.dumps(r) + "\n" for r in errors).encode())):
                if content:
                    file_id = f"file-{len(self.files) + 1}"
                    self.files[file_id] = content
                    batch[key] = file_id

    def _worse(self, lines: list[str], batch: dict[str, Any]) -> bytes:
        """The output file's lines as ``hostile`` says."""
        if self.hostile == "malformed":
            lines = [x for line in lines for x in (line, '{"custom_id": "cut', "not json at all", "[1, 2]",
                                                   '{"custom_id": 5}')]
        elif self.hostile == "unknown":
            lines = lines + [json.dumps({"custom_id": f"never-sent-{i}", "response": {"status_code": 200,
                                         "body": {"choices": []}}}) for i in range(3)]
        elif self.hostile == "huge-line":
            lines = [lines[0][:-1] + ', "pad": "' + "x" * (5 << 20) + '"}'] + lines[1:]
        elif self.hostile == "huge-file":
            lines = ['{"pad": "' + "y" * 60_000 + '"}' for _ in range(400)] + lines
        elif self.hostile == "repeated":
            wrong = []
            for line in lines:
                row = json.loads(line)
                row["response"]["body"]["choices"][0]["message"]["content"] = "WRONG SECOND LINE"
                wrong.append(json.dumps(row))
            lines = lines + wrong
        elif self.hostile == "no-choices":
            for i, line in enumerate(lines):
                row = json.loads(line)
                row["response"]["body"].pop("choices")
                lines[i] = json.dumps(row)
        return "".join(line + "\n" for line in lines).encode()

    def _reply(self, body: dict[str, Any], authorization: str | None) -> tuple[int, dict[str, Any]]:
        """FaultServer's answer to ``body`` as a direct chat completion: (status, the reply's JSON)."""
        h = _Captured(authorization)
        self._answer(h, body)
        return h.status, json.loads(h.wfile.getvalue())


class _Captured:
    """Enough of a request handler for :meth:`FaultServer._answer` to write its reply into."""

    path = "/v1/chat/completions"

    def __init__(self, authorization: str | None) -> None:
        self.headers = {"Authorization": authorization} if authorization else {}
        self.wfile = io.BytesIO()
        self.status = 0

    def send_response(self, status: int) -> None:
        self.status = status

    def send_header(self, *_: Any) -> None:
        pass

    def end_headers(self) -> None:
        pass
