"""Judge backends: an OpenAI-compatible server, llama.cpp in process, and a scripted provider for tests.

``openai`` and ``llama_cpp`` load only when their backend is built.
"""
from __future__ import annotations

import os

from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import Provider


def make_provider(config: JudgeConfig) -> tuple[Provider, str | None]:
    """The provider ``config`` names, and the secret to redact from records (the API key, if any).

    ``config.provider`` when given; else ``auto`` resolves to OpenAI-compatible when a base URL,
    OPENAI_BASE_URL or OPENAI_API_KEY is set, and to the embedded llama.cpp backend with ``model`` as a GGUF
    path (default: the packaged Gemma 3 270M) otherwise.
    """
    if config.provider is not None:
        return config.provider, None
    backend = config.resolved_backend
    if backend == "openai":
        from genevals.judge.backends.openai_compatible import OpenAIProvider

        key = config.api_key or os.environ.get("OPENAI_API_KEY")
        provider = OpenAIProvider(base_url=config.base_url or os.environ.get("OPENAI_BASE_URL"),
                                  model=config.model, api_key=key, timeout=config.timeout, seed=config.seed)
        return provider, key
    from genevals.judge.backends.llamacpp import LlamaCppProvider

    return LlamaCppProvider(model_path=config.model, n_ctx=config.n_ctx, n_threads=config.n_threads,
                            seed=config.seed), None
