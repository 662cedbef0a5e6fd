"""The judge behind one metric: its :class:`JudgeConfig`, the prompts' hash, and the client, built lazily.

Building a metric is cheap (``genevals metrics`` builds every family): the provider, the model and the cache
are created on the first call. The API key goes to the provider only; it is never part of a signature, a
result, a cache key or a transcript.
"""
from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from genevals.judge.client import JudgeClient, SampleUsage, default_cache_dir
from genevals.judge.config import JudgeConfig, public_url
from genevals.judge.protocol import JudgeError
from genevals.judge.redact import Redactor
from genevals.judge.registry import find_backend, get_backend, make_provider
from genevals.judge.retry import RetryPolicy

#: the model in a signature made before the server was asked which one it serves
UNRESOLVED = "unresolved"

#: the judge repeat the current task asks for (0: the first; set around one repeat's calls by
#: :mod:`genevals.metrics.judging.repeats`): repeat r sends seed ``seed + r``, so it has its own cache key
REPEAT: ContextVar[int] = ContextVar("genevals_judge_repeat", default=0)


class JudgeRuntime:
    def __init__(self, config: JudgeConfig, prompt_version: str) -> None:
        self.config = config
        self.prompt_version = prompt_version
        provider = config.provider
        self.backend = config.resolved_backend
        self._model: str | None = None
        #: whether the model comes from the server's list (then it is named in the config the provider gets)
        self._listed = False
        if provider is not None:
            self._model = provider.model
            self.base_url = public_url(getattr(provider, "base_url", None))
        else:
            identity = get_backend(self.backend).identity(config)
            self.base_url = public_url(identity.base_url)
            self._model = identity.model  # None: the one model the server lists, asked when first needed
            self._listed = identity.model is None
        #: the API key and the base URL's credentials, in every encoding (:mod:`genevals.judge.redact`)
        self.redactor = Redactor.for_judge(config.api_key, config.base_url)
        self.cache_dir = None if not config.cache else str(config.cache_dir or default_cache_dir())
        self._client: JudgeClient | None = None
        self.total = SampleUsage()

    @property
    def model(self) -> str:
        """The model asked for: the configured one, else the only one the server lists
        (:mod:`genevals.judge.models`). A server that lists none or several stops the run
        (:class:`~genevals.judge.preflight.JudgeUnavailable`): a default name would be recorded for whatever
        model the server has loaded."""
        if self._model is None:
            from genevals.judge.models import JudgeModelError, resolve_model
            from genevals.judge.preflight import JudgeUnavailable

            try:
                self._model = resolve_model(self.config)
            except JudgeModelError as exc:
                raise JudgeUnavailable(str(exc)) from None
        return self._model

    @property
    def answered(self) -> list[str]:
        """The models that answered this runtime's calls in this process, as the replies named them."""
        return sorted(self._client.answered) if self._client is not None else []

    @property
    def warning(self) -> str | None:
        if self.config.provider is not None:
            return getattr(self.config.provider, "warning", None)
        backend = get_backend(self.backend)
        return backend.warning(self.config) if backend.warning is not None else None

    @property
    def repeats(self) -> int:
        """How many times each request is made: ``config.repeats``, or 1 when those repeats would all be the
        same reply (temperature 0, and a backend whose replies do not change with the seed; then
        :attr:`repeats_note` says so)."""
        return 1 if self.repeats_note else self.config.repeats

    @property
    def repeats_note(self) -> str | None:
        """Why ``--judge-repeats N`` asks only once, or None."""
        if self.config.repeats == 1 or self.config.temperature > 0:
            return None
        provider = self.config.provider
        varies = getattr(provider, "repeats_vary_at_zero", None) if provider is not None else None
        if varies is None:
            backend = find_backend(self.backend)
            varies = True if backend is None else backend.repeats_vary_at_zero
        if varies:
            return None
        return (f"--judge-repeats {self.config.repeats} asked once: at temperature 0 the {self.backend} judge "
                "gives the same reply whatever the seed, so the repeats would all agree; set --judge-temperature "
                "above 0 to measure the judge's variance")

    def judge_info(self) -> dict[str, Any]:
        return {"backend": self.backend, "model": self.model, "base_url": self.base_url,
                "prompt_version": self.prompt_version}

    def signature_settings(self) -> dict[str, Any]:
        # Describing a metric (``genevals metrics``, a manifest) asks no server: a model still to be listed is
        # named as such, and the summary written after the calls names the model that answered.
        settings: dict[str, Any] = {"backend": self.backend, "model": self._model or UNRESOLVED}
        if self.answered:  # known once calls were made: beside the model asked for, the one that answered
            settings["answered"] = "+".join(self.answered)
        if self.base_url:
            settings["base_url"] = self.base_url
        settings.update({"prompt": self.prompt_version, "temperature": f"{self.config.temperature:g}",
                         "seed": self.config.seed})
        if self.repeats > 1:  # one repeat signs as before, so its summaries compare with earlier runs
            settings["repeats"] = self.repeats
        if self.warning:
            settings["warning"] = "tiny-base-model-smoke-run-only"
        return settings

    def params(self, max_tokens: int) -> dict[str, Any]:
        """What every request sends: temperature, seed (``seed + r`` in repeat r: :data:`REPEAT`), and its own
        token budget capped by max_tokens."""
        cap = self.config.reply_cap
        return {"temperature": float(self.config.temperature), "seed": self.config.seed + REPEAT.get(),
                "max_tokens": min(max_tokens, cap) if cap else max_tokens}

    def client(self) -> JudgeClient:
        if self._client is None:
            config = self.config.with_options(model=self.model) if self._listed else self.config
            try:
                provider = make_provider(config)
            except JudgeError as exc:  # e.g. a script that is not there: a judge that cannot answer at all
                if not config.preflight:
                    raise
                from genevals.judge.preflight import JudgeUnavailable

                raise JudgeUnavailable(str(exc)) from None
            inner = provider
            if self.config.batch:
                provider = self._batched(config, provider)
            cache = None
            if self.cache_dir is not None:
                from genevals.judge.cache import JudgeCache

                cache = JudgeCache(self.cache_dir)
            retry = RetryPolicy(max_tries=max(1, int(self.config.max_retries) + 1), base=self.config.backoff_base,
                                cap=self.config.backoff_max)
            self._client = JudgeClient(provider, prompt_version=self.prompt_version, cache=cache,
                                       concurrency=self.config.in_flight, retry=retry, redactor=self.redactor,
                                       adaptive=self.config.adaptive_concurrency and not self.config.batch,
                                       preflight=self._preflight(config, inner) if config.preflight else None)
        return self._client

    def _batched(self, config: JudgeConfig, provider: Any) -> Any:
        """``provider``'s requests through the OpenAI Batch API (:mod:`genevals.judge.batch`); a judge that has
        none (llama.cpp in process, a scripted one) stops the run, saying so."""
        from genevals.judge.batch.provider import build

        if not callable(getattr(provider, "request_body", None)):
            from genevals.judge.preflight import JudgeUnavailable

            raise JudgeUnavailable(f"--judge-batch: the {self.backend} judge has no batch API; it needs an "
                                   "OpenAI-compatible server (--judge-base-url, or OpenAI itself)")
        return build(provider, config, self.redactor)

    @staticmethod
    def _preflight(config: JudgeConfig, provider: Any):
        """The check the client makes before its first request (none for a run answered from the cache)."""
        from genevals.judge.preflight import check

        return lambda: check(config, provider)

    def redact(self, text: str) -> str:
        return self.redactor(text) or ""

    @property
    def price_factor(self) -> float:
        """What a call costs, as a share of the price table's price: 1, or a batch call's (1 - its discount)."""
        if not self.config.batch:
            return 1.0
        from genevals.judge.batch.pricing import factor

        return factor(self.model, self.config.prices, self.base_url)

    def usage_dict(self, usage: SampleUsage) -> dict[str, Any]:
        return usage.to_dict(self.model, self.config.prices, self.price_factor)

    def add_total(self, usage: SampleUsage) -> None:
        self.total.merge(usage)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        return SampleUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens).cost(
            self.model, self.config.prices, self.price_factor)
