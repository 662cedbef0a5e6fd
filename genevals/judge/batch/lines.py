"""The Batch API's JSONL files: the requests file genevals writes, and the output and error files it reads.

A request line: ``{"custom_id": ID, "method": "POST", "url": "/v1/chat/completions", "body": BODY}``, its id
:func:`custom_id` (the sha256 of the body as canonical JSON: the same request has the same id in every run and
every process, and two samples asking the same thing share one line).

An output or error line: ``{"custom_id": ID, "response": {"status_code": S, "body": {...}} | null,
"error": {"code": C, "message": M} | null}``. :func:`read` turns each into an :class:`Answer` (the body of a
200 reply, or the error), keyed by its id; a line that is not one (not JSON, not an object, no id, too long) is
counted as malformed, a line for an id that was never sent as unknown, and a second line for the same id is
ignored (the first one wins).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

#: the longest line read from an output or error file (a judge's reply is a few kilobytes)
MAX_LINE_BYTES = 1 << 20
#: error codes that mean "not done", not "refused": the request is sent again in a follow-up batch
UNFINISHED = ("batch_expired", "batch_cancelled")


def custom_id(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def request_file(bodies: Mapping[str, Mapping[str, Any]]) -> bytes:
    """The requests file of ``bodies`` (custom_id -> body)."""
    return b"".join(json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body},
                               ensure_ascii=False).encode() + b"\n" for cid, body in bodies.items())


@dataclass(frozen=True)
class Answer:
    """One request's line: ``body`` (a 200 reply's chat completion) or ``status`` and ``error`` (why not)."""

    body: Any = None
    status: int | None = None
    error: str | None = None
    code: str | None = None

    @property
    def transient(self) -> bool:
        """Worth sending again: not done in the window, or an error the server calls passing."""
        if self.code in UNFINISHED:
            return True
        return self.status is not None and (self.status >= 500 or self.status in (408, 409, 429))


@dataclass
class Read:
    """What a batch's files said: id -> answer, and the lines that said nothing usable."""

    answers: dict[str, Answer] = field(default_factory=dict)
    malformed: int = 0
    unknown: int = 0
    repeated: int = 0
    #: why a file could not be read whole (cut at its size cap)
    problems: list[str] = field(default_factory=list)


def read(lines: Iterable[bytes | None], expected: set[str], into: Read, name: str) -> Read:
    """Read the ``lines`` of file ``name`` into ``into`` (None: a line over :data:`MAX_LINE_BYTES`)."""
    for line in lines:
        parsed = _parse(line)
        if parsed is None:
            into.malformed += 1
            continue
        cid, answer = parsed
        if cid not in expected:
            into.unknown += 1
        elif cid in into.answers:
            into.repeated += 1
        else:
            into.answers[cid] = answer
    return into


def _parse(line: bytes | None) -> tuple[str, Answer] | None:
    if line is None:
        return None
    try:
        row = json.loads(line)
    except ValueError:  # JSONDecodeError, UnicodeDecodeError
        return None
    if not isinstance(row, dict) or not isinstance(row.get("custom_id"), str):
        return None
    response, error = row.get("response"), row.get("error")
    status = response.get("status_code") if isinstance(response, dict) else None
    status = status if isinstance(status, int) and not isinstance(status, bool) else None
    body = response.get("body") if isinstance(response, dict) else None
    if status == 200 and isinstance(body, dict) and not error:
        return row["custom_id"], Answer(body=body)
    code = error.get("code") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message:
        inner = body.get("error") if isinstance(body, dict) else None
        message = inner.get("message") if isinstance(inner, dict) else None
    if not isinstance(message, str) or not message:
        message = "no message" if status is None else "no message in the reply"
    code = code if isinstance(code, str) else None
    where = f"HTTP {status}" if status is not None else (code or "error")
    return row["custom_id"], Answer(status=status, code=code, error=f"{where}: {message}")
