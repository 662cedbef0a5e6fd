"""LLM-as-judge plumbing: the provider protocol, one configuration, backends, retries, cache, prompts, parsing.

Nothing heavy is imported here: ``openai`` and ``llama_cpp`` load only when a backend is built.
"""
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import Completion, JudgeError, PermanentError, Provider, TransientError, Usage

__all__ = ["JudgeConfig", "Completion", "JudgeError", "PermanentError", "Provider", "TransientError", "Usage"]
