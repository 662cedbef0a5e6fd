"""The judge provider protocol and the client that wraps it.

A provider does one thing (inspect_ai-style): ``await complete(messages, schema, params) -> Completion``.
It makes exactly one request and raises :class:`TransientError` (429, 5xx, timeouts: worth retrying) or
:class:`PermanentError` (anything else) on failure. Everything operational wraps the provider, never lives
inside it: :class:`JudgeClient` adds the on-disk cache, bounded retries with backoff, a concurrency limit,
token accounting and redaction of the API key from anything that is recorded.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

Message = Mapping[str, str]  # {"role": "user" | "system" | "assistant", "content": str}

#: Shown in details and signatures whenever the tiny packaged base model judges.
SMOKE_MODEL_WARNING = (
    "judge is the packaged Gemma 3 270M base model (not instruction-tuned): for offline smoke runs only; "
    "its claims and verdicts are not trustworthy"
)
CHARS_PER_TOKEN = 4  # dry-run estimate; tiktoken is not available offline


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    raw: Any = None
    #: "length" when the reply was cut at max_tokens (then the JSON is likely truncated)
    finish_reason: str | None = None
    cached: bool = False
    #: requests this completion took (more than 1 when a provider had to fall back, e.g. json_schema -> json_object)
    requests: int = 1


class JudgeError(Exception):
    """A judge call failed."""


class TransientError(JudgeError):
    """Worth retrying: 429, 5xx, timeouts, dropped connections. ``retry_after`` in seconds if the server said."""

    def __init__(self, message: str, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class PermanentError(JudgeError):
    """Not worth retrying (4xx other than 429, a bad model path, ...)."""


@runtime_checkable
class Provider(Protocol):
    """One judge backend. ``schema`` is a JSON schema the reply must follow (or None for free text)."""

    backend: str
    model: str
    base_url: str | None

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion: ...


def estimate_tokens(text: str) -> int:
    """About 4 characters per token (tiktoken is not available offline); a rough dry-run figure."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN))


def default_cache_dir() -> Path:
    env = os.environ.get("GENEVALS_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "genevals" / "judge"


@dataclass
class CallRecord:
    """One logical judge call as it is kept in a transcript (never holding the API key)."""

    stage: str
    reply: str | None = None
    error: str | None = None
    attempts: int = 0
    cached: bool = False
    finish_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"stage": self.stage, "attempts": self.attempts, "cached": self.cached}
        if self.reply is not None:
            d["reply"] = self.reply
        if self.error is not None:
            d["error"] = self.error
        if self.finish_reason is not None:
            d["finish_reason"] = self.finish_reason
        return d


@dataclass
class SampleUsage:
    """Token and request counts of one sample; ``requests`` counts calls that reached the backend."""

    requests: int = 0
    cached_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, completion: Completion, attempts: int) -> None:
        if completion.cached:
            self.cached_requests += 1
        else:
            self.requests += attempts - 1 + completion.requests
            self.prompt_tokens += completion.usage.prompt_tokens
            self.completion_tokens += completion.usage.completion_tokens

    def cost(self, model: str, prices: Mapping[str, Mapping[str, float]] | None) -> float | None:
        price = (prices or {}).get(model)
        if price is None:
            return None
        return round(self.prompt_tokens / 1000 * float(price.get("input_per_1k", 0.0))
                     + self.completion_tokens / 1000 * float(price.get("output_per_1k", 0.0)), 8)

    def to_dict(self, model: str, prices: Mapping[str, Mapping[str, float]] | None) -> dict[str, Any]:
        return {"requests": self.requests, "cached_requests": self.cached_requests,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost(model, prices)}


class JudgeClient:
    """Cache -> concurrency limit -> bounded retries -> provider. Safe to share across one event loop."""

    def __init__(self, provider: Provider, *, prompt_version: str, cache: Any = None, concurrency: int = 4,
                 max_retries: int = 4, secret: str | None = None, backoff_base: float = 0.5,
                 backoff_max: float = 30.0) -> None:
        from genevals.judge.retry import RetryPolicy

        self.provider = provider
        self.prompt_version = prompt_version
        self.cache = cache
        self.concurrency = max(1, int(concurrency))
        self.retry = RetryPolicy(max_tries=max(1, int(max_retries) + 1), base=backoff_base, cap=backoff_max)
        self._secret = secret
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def redact(self, text: str | None) -> str | None:
        if text is None or not self._secret:
            return text
        return text.replace(self._secret, "***")

    def cache_key(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                  params: Mapping[str, Any]) -> str:
        """sha256 over everything that changes the reply; the API key is deliberately not part of it."""
        payload = {
            "backend": self.provider.backend, "model": self.provider.model,
            "base_url": self.provider.base_url, "prompt_version": self.prompt_version,
            "params": dict(params), "schema": schema, "messages": [dict(m) for m in messages],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def _sem(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.concurrency), loop
        return self._semaphore

    async def complete(self, stage: str, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any], usage: SampleUsage,
                       transcript: list[CallRecord]) -> Completion:
        """One logical call. Records it in ``transcript`` and ``usage``; raises JudgeError when it fails."""
        record = CallRecord(stage=stage)
        transcript.append(record)
        key = self.cache_key(messages, schema, params)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                completion = Completion(text=hit["text"], usage=Usage(**hit.get("usage", {})),
                                        finish_reason=hit.get("finish_reason"), cached=True)
                record.reply, record.cached, record.finish_reason = completion.text, True, completion.finish_reason
                usage.add(completion, 0)
                return completion
        async with self._sem():
            try:
                completion, attempts = await self.retry.run(
                    lambda: self.provider.complete(messages, schema, params))
            except JudgeError as exc:
                record.attempts = getattr(exc, "attempts", 1)
                record.error = self.redact(f"{type(exc).__name__}: {exc}")
                usage.requests += record.attempts
                raise
        record.attempts = attempts
        record.reply = self.redact(completion.text)
        record.finish_reason = completion.finish_reason
        usage.add(completion, attempts)
        if self.cache is not None:
            self.cache.put(key, {"text": completion.text, "usage": completion.usage.to_dict(),
                                 "finish_reason": completion.finish_reason})
        return completion


def make_provider(backend: str = "auto", *, base_url: str | None = None, model: str | None = None,
                  api_key: str | None = None, timeout: float = 60.0, seed: int = 0,
                  n_ctx: int = 4096, n_threads: int | None = None) -> tuple[Provider, str | None]:
    """Build the provider for ``backend`` and return it with the secret to redact (the API key, if any).

    ``auto``: OpenAI-compatible when a base_url, OPENAI_BASE_URL or OPENAI_API_KEY is set, else the embedded
    llama.cpp backend with ``model`` as a GGUF path (default: the packaged Gemma 3 270M).
    """
    backend = resolve_backend(backend, base_url)
    if backend == "openai":
        from genevals.judge.openai_backend import OpenAIProvider

        key = api_key or os.environ.get("OPENAI_API_KEY")
        provider = OpenAIProvider(base_url=base_url or os.environ.get("OPENAI_BASE_URL"), model=model,
                                  api_key=key, timeout=timeout, seed=seed)
        return provider, key
    if backend == "llamacpp":
        from genevals.judge.llamacpp_backend import LlamaCppProvider

        return LlamaCppProvider(model_path=model, n_ctx=n_ctx, n_threads=n_threads, seed=seed), None
    raise ValueError(f"unknown judge backend '{backend}' (openai, llamacpp or auto)")


def resolve_backend(backend: str, base_url: str | None) -> str:
    if backend not in ("auto", "openai", "llamacpp"):
        raise ValueError(f"unknown judge backend '{backend}' (openai, llamacpp or auto)")
    if backend != "auto":
        return backend
    if base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        return "openai"
    return "llamacpp"


def run_sync(coro_factory):
    """Run ``coro_factory()`` to completion from synchronous code, also when a loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
