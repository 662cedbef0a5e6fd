"""The built-in judge backends: an OpenAI-compatible server, llama.cpp in process, and a scripted provider for
tests and offline trials. Each module registers its own :class:`~genevals.judge.registry.Backend`; importing
this package (the registry does, by name) registers them all. ``openai`` and ``llama_cpp`` load only when their
backend builds a provider.
"""
from genevals.judge.backends import openai_compatible, llamacpp, scripted  # noqa: F401  (each registers itself)
