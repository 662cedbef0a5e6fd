"""Options shared by the judge metrics (faithfulness, llm_rubric) and the lazily built client behind them.

Building a metric is cheap (``genevals metrics`` builds every family): the provider, the model and the cache
are created on the first ``score()``. The API key is read from the option or OPENAI_API_KEY and handed to the
provider only; it is never part of a signature, a result, a cache key or a transcript.
"""
from __future__ import annotations

import os
import re
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from genevals.judge.client import (SMOKE_MODEL_WARNING, JudgeClient, Provider, SampleUsage, default_cache_dir,
                                   resolve_backend)


def public_url(url: str | None) -> str | None:
    """The URL without user info, query or fragment (where keys sometimes hide)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class JudgeRuntime:
    def __init__(self, *, backend: str = "auto", base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, concurrency: int = 4, max_retries: int = 4, timeout: float = 60.0,
                 cache_dir: str | None = None, cache: bool = True, prices: Mapping[str, Mapping[str, float]] | None = None,
                 dry_run: bool = False, seed: int = 0, n_ctx: int = 4096, n_threads: int | None = None,
                 provider: Provider | None = None, backoff_base: float = 0.5, backoff_max: float = 30.0,
                 prompt_version: str = "") -> None:
        self.provider = provider
        if provider is not None:
            self.backend = provider.backend
            self.model = provider.model
            self.base_url = public_url(getattr(provider, "base_url", None))
        else:
            self.backend = resolve_backend(backend, base_url)
            self.base_url = public_url(base_url or os.environ.get("OPENAI_BASE_URL")) if self.backend == "openai" else None
            if self.backend == "llamacpp":
                from genevals.judge.llamacpp_backend import PACKAGED_MODEL, is_packaged

                self.model = PACKAGED_MODEL if is_packaged(model) else os.path.basename(str(model))
            else:
                from genevals.judge.openai_backend import DEFAULT_MODEL

                self.model = model or DEFAULT_MODEL
        self._model_arg = model
        self._base_url_arg = base_url
        self._api_key_arg = api_key  # in memory only, handed to the provider
        self.concurrency, self.max_retries, self.timeout = concurrency, max_retries, timeout
        self.cache_dir = None if not cache else str(cache_dir or default_cache_dir())
        self.prices = dict(prices or {})
        self.dry_run, self.seed = dry_run, seed
        self.n_ctx, self.n_threads = n_ctx, n_threads
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        self.prompt_version = prompt_version
        self._client: JudgeClient | None = None
        self.total = SampleUsage()

    @property
    def warning(self) -> str | None:
        from genevals.judge.llamacpp_backend import PACKAGED_MODEL

        if self.backend == "llamacpp" and self.model == PACKAGED_MODEL:
            return SMOKE_MODEL_WARNING
        return getattr(self.provider, "warning", None)

    def judge_info(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model, "base_url": self.base_url,
                "prompt_version": self.prompt_version}

    def signature_settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"backend": self.backend, "model": self.model}
        if self.base_url:
            settings["base_url"] = self.base_url
        settings.update({"prompt": self.prompt_version, "temperature": 0, "seed": self.seed})
        if self.warning:
            settings["warning"] = "tiny-base-model-smoke-run-only"
        return settings

    def client(self) -> JudgeClient:
        if self._client is None:
            from genevals.judge.client import make_provider

            secret = None
            provider = self.provider
            if provider is None:
                provider, secret = make_provider(self.backend, base_url=self._base_url_arg, model=self._model_arg,
                                                 api_key=self._api_key_arg, timeout=self.timeout, seed=self.seed,
                                                 n_ctx=self.n_ctx, n_threads=self.n_threads)
                self.provider = provider
            cache = None
            if self.cache_dir is not None:
                from genevals.judge.cache import JudgeCache

                cache = JudgeCache(self.cache_dir)
            self._client = JudgeClient(provider, prompt_version=self.prompt_version, cache=cache,
                                       concurrency=self.concurrency, max_retries=self.max_retries, secret=secret,
                                       backoff_base=self.backoff_base, backoff_max=self.backoff_max)
        return self._client

    def redact(self, text: str) -> str:
        if self._client is not None:
            return self._client.redact(text) or ""
        key = self._api_key_arg or os.environ.get("OPENAI_API_KEY")
        return text.replace(key, "***") if key else text

    def usage_dict(self, usage: SampleUsage) -> dict[str, Any]:
        return usage.to_dict(self.model, self.prices)

    def add_total(self, usage: SampleUsage) -> None:
        for name in ("requests", "cached_requests", "prompt_tokens", "completion_tokens"):
            setattr(self.total, name, getattr(self.total, name) + getattr(usage, name))

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        u = SampleUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return u.cost(self.model, self.prices)


# sentence ends, and clause joints that can carry a claim after a refusal ("..., but X is Y")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|[,;]\s+(?=(?:but|however|although|though|yet|instead)\b)", re.I)
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:do\s+not|don'?t|cannot|can'?t|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:know|answer|say|determine|tell|find|provide|help)"
    r"|(?:cannot|can'?t|can\s+not|unable\s+to|not\s+able\s+to|impossible\s+to)\s+(?:be\s+)?"
    r"(?:answered|answer|determined|determine|found|find|provided|provide|say|tell|verified|verify)"
    r"|(?:no|not\s+enough|insufficient|lacks?(?:\s+the)?|without\s+(?:enough|sufficient))\s+"
    r"(?:relevant\s+|specific\s+|sufficient\s+)?(?:information|details|data|context)"
    r"|(?:does|do|did)\s*n[o']?t\s+(?:contain|provide|mention|include|specify|say|state|give)"
    r"|i'?m\s+sorry|i\s+apologi[sz]e|as\s+an\s+ai\b|no\s+answer)",
    re.I)
REFUSAL_REST_CHARS = 20


def detect_refusal(answer: str) -> str | None:
    """The refusal phrase when the answer abstains ("I don't know", "cannot be answered from the context").

    The answer is split into sentences (and clauses after ", but" / ", however" ...); it is a refusal when
    at least one part matches a refusal pattern and the parts that do not match hold fewer than 20
    characters together, so "The context does not say X, but Y is Z" (an answer with a claim) is scored.
    """
    sentences = [s for s in _SENTENCE.split(answer.strip()) if s.strip()]
    hits = [(_REFUSAL.search(s), s) for s in sentences]
    matched = [m.group(0) for m, _ in hits if m]
    if not matched:
        return None
    rest = sum(len(s.strip()) for m, s in hits if not m)
    return matched[0] if rest < REFUSAL_REST_CHARS else None
