"""The judge provider protocol: what one backend must do, and the records it returns.

A provider does one thing (inspect_ai-style): ``await complete(messages, schema, params) -> Completion``. It
makes exactly one logical request and raises :class:`TransientError` (429, 5xx, timeouts: worth retrying) or
:class:`PermanentError` (anything else) on failure. Retries, the cache, concurrency and accounting wrap around
it (:mod:`genevals.judge.client`). This module imports nothing else of genevals, so a backend depends on it
alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

Message = Mapping[str, str]  # {"role": "user" | "system" | "assistant", "content": str}

CHARS_PER_TOKEN = 4  # dry-run estimate; tiktoken is not available offline


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass(frozen=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    raw: Any = None
    #: "length" when the reply was cut at max_tokens (then the JSON is likely truncated)
    finish_reason: str | None = None
    cached: bool = False
    #: requests this completion took (more than 1 when a provider had to fall back, e.g. json_schema -> json_object)
    requests: int = 1
    #: the model that answered, as the reply names it (a server may answer with another than the one asked for)
    model: str | None = None


class JudgeError(Exception):
    """A judge call failed."""


class TransientError(JudgeError):
    """Worth retrying: 429, 5xx, timeouts, dropped connections. ``retry_after`` in seconds if the server said."""

    def __init__(self, message: str, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class PermanentError(JudgeError):
    """Not worth retrying (4xx other than 429, a bad model path, a missing extra, ...)."""


@runtime_checkable
class Provider(Protocol):
    """One judge backend. ``schema`` is a JSON schema the reply must follow (or None for free text).

    A provider may also carry ``warning`` (a string shown with every result it judged)."""

    backend: str
    model: str
    base_url: str | None

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion: ...


def estimate_tokens(text: str) -> int:
    """About 4 characters per token (tiktoken is not available offline); a rough dry-run figure."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))
