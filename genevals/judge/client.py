"""The judge client: cache -> bounded retries -> adaptive concurrency limit (:mod:`genevals.judge.limiter`) ->
provider.

Every logical call returns a :class:`Call`, a typed record of what happened (the completion or the error, the
requests it took, whether it came from the cache); nothing passed in is mutated. A sample's calls are kept in
a :class:`CallLog`, which gives its transcript and token usage.

The client is where what a judge server says enters genevals, and so where the judge's secrets (API key,
base-URL credentials) are taken out of it, in every encoding :mod:`genevals.judge.redact` knows: every string of
a reply (its text, the ``model`` that answered, the finish reason; the rest of the body is dropped), every
error (which quotes the server's error body), the preflight's verdict and the limiter's reasons
(:meth:`JudgeClient.received`, :meth:`JudgeClient.failed`). So nothing built from a reply (results.jsonl, the
summary and its signatures, the cache, the report, the history) can hold them; a cached reply, written by an
older genevals or another tool, passes through the same point as it is read. (The one server string that
does not come through a client, the model list of :mod:`genevals.judge.models`, is redacted there.)
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping, Sequence

from genevals.judge.limiter import AdaptiveLimit, is_overload
from genevals.judge.protocol import Completion, Message, Provider, TransientError, Usage
from genevals.judge.redact import Redactor
from genevals.judge.retry import RetryPolicy


#: the models that answered the calls of the sample being scored (set by the judge metric around one sample:
#: :class:`genevals.metrics.judging.judge_metric.JudgeMetric`), so its record says which model answered it
ANSWERED: ContextVar[set[str] | None] = ContextVar("genevals_judge_answered", default=None)


#: the longest model name or finish reason kept from a reply (a server may send anything in them)
NAME_CHARS = 200
#: the longest error kept (an error quotes the server's error body, which may be a whole HTML page)
ERROR_CHARS = 400


def default_cache_dir() -> Path:
    env = os.environ.get("GENEVALS_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "genevals" / "judge"


@dataclass(frozen=True)
class Call:
    """One logical judge call. ``completion`` is None when it failed; then ``error`` says why."""

    stage: str
    completion: Completion | None
    attempts: int
    #: the redacted reply, as kept in transcripts
    reply: str | None = None
    #: "ErrorType: message", redacted
    error: str | None = None
    #: the error's message alone, redacted
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.completion is not None

    @property
    def cached(self) -> bool:
        return self.completion is not None and self.completion.cached

    def to_dict(self) -> dict[str, Any]:
        """The transcript record (never holding the API key)."""
        d: dict[str, Any] = {"stage": self.stage, "attempts": self.attempts, "cached": self.cached}
        if self.reply is not None:
            d["reply"] = self.reply
        if self.error is not None:
            d["error"] = self.error
        if self.completion is not None and self.completion.finish_reason is not None:
            d["finish_reason"] = self.completion.finish_reason
        return d


@dataclass
class SampleUsage:
    """Token and request counts of one sample; ``requests`` counts requests that reached the backend."""

    requests: int = 0
    cached_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, call: Call) -> None:
        if call.completion is None:
            self.requests += call.attempts
        elif call.completion.cached:
            self.cached_requests += 1
        else:
            self.requests += call.attempts - 1 + call.completion.requests
            self.prompt_tokens += call.completion.usage.prompt_tokens
            self.completion_tokens += call.completion.usage.completion_tokens

    def merge(self, other: "SampleUsage") -> None:
        for name in ("requests", "cached_requests", "prompt_tokens", "completion_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def cost(self, model: str, prices: Mapping[str, Mapping[str, float]] | None,
             factor: float = 1.0) -> float | None:
        """The price table's cost of these tokens, times ``factor`` (a batch call's: :mod:`genevals.judge.batch.pricing`)."""
        price = (prices or {}).get(model)
        if price is None:
            return None
        return round((self.prompt_tokens / 1000 * float(price.get("input_per_1k", 0.0))
                      + self.completion_tokens / 1000 * float(price.get("output_per_1k", 0.0))) * factor, 8)

    def to_dict(self, model: str, prices: Mapping[str, Mapping[str, float]] | None,
                factor: float = 1.0) -> dict[str, Any]:
        return {"requests": self.requests, "cached_requests": self.cached_requests,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost(model, prices, factor)}


@dataclass
class CallLog:
    """The calls made for one sample, in the order they were made."""

    calls: list[Call] = field(default_factory=list)

    def add(self, call: Call) -> Call:
        self.calls.append(call)
        return call

    @property
    def usage(self) -> SampleUsage:
        usage = SampleUsage()
        for call in self.calls:
            usage.add(call)
        return usage

    def transcript(self) -> list[dict[str, Any]]:
        return [call.to_dict() for call in self.calls]


class JudgeClient:
    """Cache -> bounded retries -> adaptive concurrency limit -> provider. Safe to share across one event loop.

    The limit wraps each request, not the logical call: a retry's backoff sleep holds no slot."""

    def __init__(self, provider: Provider, *, prompt_version: str, cache: Any = None, concurrency: int = 4,
                 retry: RetryPolicy | None = None, secret: str | None = None, adaptive: bool = True,
                 redactor: Redactor | None = None,
                 preflight: Callable[[], Awaitable[str | None]] | None = None) -> None:
        self.provider = provider
        self.prompt_version = prompt_version
        self.cache = cache
        self.concurrency = max(1, int(concurrency))
        self.retry = retry or RetryPolicy()
        #: ``redactor``, else one for ``secret`` alone
        self.redactor = redactor if redactor is not None else Redactor([secret])
        #: requests in flight: at most ``concurrency``, fewer while the server times out or answers 429
        self.limit = AdaptiveLimit(self.concurrency, adaptive=adaptive)
        #: the check before the first request (:func:`genevals.judge.preflight.check`): a run whose calls all
        #: come from the cache sends nothing, and succeeds with the endpoint down
        self._preflight = preflight
        self._checking: asyncio.Future | None = None
        #: model -> calls it answered (the reply's ``model``; the provider's own when the reply names none)
        self.answered: Counter = Counter()

    def redact(self, text: str | None) -> str | None:
        return self.redactor(text)

    def cache_key(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                  params: Mapping[str, Any]) -> str:
        """sha256 over everything that changes the reply; the API key is deliberately not part of it."""
        payload = {
            "backend": self.provider.backend, "model": self.provider.model,
            "base_url": self.provider.base_url, "prompt_version": self.prompt_version,
            "params": dict(params), "schema": schema, "messages": [dict(m) for m in messages],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    async def _request(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion:
        """One request to the provider in one slot of the adaptive limit, telling it how the request went."""
        async with self.limit.slot() as slot:
            try:
                completion = await self.provider.complete(messages, schema, params)
            except TransientError as exc:
                if is_overload(exc.status, str(exc)):
                    slot.overloaded(self.redactor.cut(str(exc), ERROR_CHARS) or "")
                raise
            slot.succeeded()
            return completion

    async def complete(self, stage: str, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Call:
        """One logical call: from the cache, or from the provider with bounded retries. Never raises for a
        failed call: the returned :class:`Call` carries the error."""
        key = self.cache_key(messages, schema, params)
        if self.cache is not None:
            hit = _from_cache(self.cache.get(key))
            if hit is not None:
                completion = self.received(hit)
                self._answered(completion)
                return Call(stage, completion, 0, reply=completion.text)
        await self._ready()
        outcome = await self.retry.run(lambda: self._request(messages, schema, params))
        if outcome.error is not None:
            return self.failed(stage, outcome.error, outcome.attempts)
        completion = self.received(outcome.value)
        if self.cache is not None:
            entry = {"text": completion.text, "usage": completion.usage.to_dict(),
                     "finish_reason": completion.finish_reason}
            if completion.model:  # so a run answered from the cache still says which model answered
                entry["model"] = completion.model
            self.cache.put(key, entry)
        self._answered(completion)
        return Call(stage, completion, outcome.attempts, reply=completion.text)

    def received(self, completion: Completion) -> Completion:
        """``completion`` as genevals keeps it: every string a server sent in it redacted (a server can echo
        what it was sent, the Authorization header included, into any field of its reply), the model and finish
        reason only when they are short text, and the raw body dropped (nothing reads its other fields)."""
        return replace(completion, text=self.redact(completion.text if isinstance(completion.text, str) else "")
                       or "", model=self._name(completion.model), finish_reason=self._name(completion.finish_reason),
                       raw=None)

    def failed(self, stage: str, exc: BaseException, attempts: int) -> Call:
        """The record of a call that failed: its error redacted (an error quotes the server's error body)."""
        return Call(stage, None, attempts, error=self.redactor.cut(f"{type(exc).__name__}: {exc}", ERROR_CHARS),
                    failure=self.redactor.cut(str(exc), ERROR_CHARS))

    def _name(self, value: Any) -> str | None:
        """A model name or finish reason from a server: redacted, and cut to :data:`NAME_CHARS` (it is written
        into every record and signature); None when it is not text."""
        if not isinstance(value, str) or not value:
            return None
        value = self.redact(value) or ""
        return value if len(value) <= NAME_CHARS else value[:NAME_CHARS] + "..."

    def _answered(self, completion: Completion) -> None:
        self.answered[completion.model or self.provider.model] += 1
        models = ANSWERED.get()
        if models is not None:
            models.add(completion.model or self.provider.model)

    async def _ready(self) -> None:
        """The preflight, once, before the first request; :class:`~genevals.judge.preflight.JudgeUnavailable`
        (which stops the run) when it fails. Concurrent first calls wait for the one check."""
        if self._preflight is None:
            return
        from genevals.judge.preflight import JudgeUnavailable

        if self._checking is None or self._checking.get_loop() is not asyncio.get_running_loop():
            self._checking = asyncio.ensure_future(self._preflight())
        problem = await asyncio.shield(self._checking)
        if problem is not None:
            raise JudgeUnavailable(self.redact(problem) or "the judge's preflight failed")
        self._preflight = None


def _from_cache(hit: Any) -> Completion | None:
    """A cache entry as the completion it stored; None (a miss: asked again) for an entry that is not one (a
    cache written by another tool, or damaged)."""
    if not isinstance(hit, dict) or not isinstance(hit.get("text"), str):
        return None
    usage = hit.get("usage") or {}
    tokens = [usage.get(name, 0) if isinstance(usage, dict) else None
              for name in ("prompt_tokens", "completion_tokens")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in tokens):
        return None
    return Completion(text=hit["text"], usage=Usage(*tokens), finish_reason=hit.get("finish_reason"), cached=True,
                      model=hit.get("model"))
