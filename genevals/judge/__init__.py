"""LLM-as-judge plumbing: the provider protocol, one configuration, backends, retries, cache, prompts, parsing.

Nothing is imported here until a name is asked for (PEP 562): a module of the package that needs nothing else
(the redactor, the errors) loads without the configuration and the backend registry, which read the installed
plugins' entry points. ``openai`` and ``llama_cpp`` load only when a backend is built.
"""
from __future__ import annotations

from typing import Any

__all__ = ["JudgeConfig", "Completion", "JudgeError", "PermanentError", "Provider", "TransientError", "Usage"]


def __getattr__(name: str) -> Any:
    if name == "JudgeConfig":
        from genevals.judge.config import JudgeConfig

        return JudgeConfig
    if name in __all__:
        from genevals.judge import protocol

        return getattr(protocol, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
