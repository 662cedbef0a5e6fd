"""The judge behind one metric: its :class:`JudgeConfig`, the prompts' hash, and the client, built lazily.

Building a metric is cheap (``genevals metrics`` builds every family): the provider, the model and the cache
are created on the first call. The API key goes to the provider only; it is never part of a signature, a
result, a cache key or a transcript.
"""
from __future__ import annotations

import os
from typing import Any

from genevals.judge.client import JudgeClient, SampleUsage, default_cache_dir
from genevals.judge.config import JudgeConfig, public_url
from genevals.judge.retry import RetryPolicy


class JudgeRuntime:
    def __init__(self, config: JudgeConfig, prompt_version: str) -> None:
        self.config = config
        self.prompt_version = prompt_version
        provider = config.provider
        self.backend = config.resolved_backend
        if provider is not None:
            self.model = provider.model
            self.base_url = public_url(getattr(provider, "base_url", None))
        elif self.backend == "llamacpp":
            from genevals.judge.backends.llamacpp import PACKAGED_MODEL, is_packaged

            self.base_url = None
            self.model = PACKAGED_MODEL if is_packaged(config.model) else os.path.basename(str(config.model))
        else:
            from genevals.judge.backends.openai_compatible import DEFAULT_MODEL

            self.base_url = public_url(config.base_url or os.environ.get("OPENAI_BASE_URL"))
            self.model = config.model or DEFAULT_MODEL
        self.cache_dir = None if not config.cache else str(config.cache_dir or default_cache_dir())
        self._client: JudgeClient | None = None
        self.total = SampleUsage()

    @property
    def warning(self) -> str | None:
        from genevals.judge.backends.llamacpp import PACKAGED_MODEL, SMOKE_MODEL_WARNING

        if self.config.provider is None and self.backend == "llamacpp" and self.model == PACKAGED_MODEL:
            return SMOKE_MODEL_WARNING
        return getattr(self.config.provider, "warning", None)

    def judge_info(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model, "base_url": self.base_url,
                "prompt_version": self.prompt_version}

    def signature_settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = {"backend": self.backend, "model": self.model}
        if self.base_url:
            settings["base_url"] = self.base_url
        settings.update({"prompt": self.prompt_version, "temperature": f"{self.config.temperature:g}",
                         "seed": self.config.seed})
        if self.warning:
            settings["warning"] = "tiny-base-model-smoke-run-only"
        return settings

    def params(self, max_tokens: int) -> dict[str, Any]:
        """What every request sends: temperature, seed, and its own token budget capped by max_tokens."""
        cap = self.config.max_tokens
        return {"temperature": float(self.config.temperature), "seed": self.config.seed,
                "max_tokens": min(max_tokens, cap) if cap else max_tokens}

    def client(self) -> JudgeClient:
        if self._client is None:
            from genevals.judge.backends import make_provider

            provider, secret = make_provider(self.config)
            cache = None
            if self.cache_dir is not None:
                from genevals.judge.cache import JudgeCache

                cache = JudgeCache(self.cache_dir)
            retry = RetryPolicy(max_tries=max(1, int(self.config.max_retries) + 1), base=self.config.backoff_base,
                                cap=self.config.backoff_max)
            self._client = JudgeClient(provider, prompt_version=self.prompt_version, cache=cache,
                                       concurrency=self.config.concurrency, retry=retry, secret=secret,
                                       adaptive=self.config.adaptive_concurrency)
        return self._client

    def redact(self, text: str) -> str:
        if self._client is not None:
            return self._client.redact(text) or ""
        key = self.config.api_key or os.environ.get("OPENAI_API_KEY")
        return text.replace(key, "***") if key else text

    def usage_dict(self, usage: SampleUsage) -> dict[str, Any]:
        return usage.to_dict(self.model, self.config.prices)

    def add_total(self, usage: SampleUsage) -> None:
        self.total.merge(usage)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        return SampleUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens).cost(
            self.model, self.config.prices)
