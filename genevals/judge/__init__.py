"""LLM-as-judge plumbing: providers (OpenAI-compatible, embedded llama.cpp), retries, cache, prompts, parsing.

Nothing heavy is imported here: ``openai`` and ``llama_cpp`` load only when a backend is built.
"""
from genevals.judge.client import (SMOKE_MODEL_WARNING, Completion, JudgeClient, JudgeError, PermanentError,
                                   Provider, TransientError, Usage)

__all__ = ["Completion", "JudgeClient", "JudgeError", "PermanentError", "Provider", "TransientError", "Usage",
           "SMOKE_MODEL_WARNING"]
