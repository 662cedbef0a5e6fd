"""Which model judges, never a silent default: the model asked for, else the one model the server lists.

An OpenAI-compatible judge without a model name used to be sent "gpt-4o-mini"; a local server that ignores the
name (llama.cpp's, Ollama's) then answered with whatever it had loaded, and every record said "gpt-4o-mini".
Now, without ``--judge-model`` (``JudgeConfig(model=...)``), ``GET {base_url}/models`` is asked: exactly one
listed model is taken; none, several, or no answer is an error that lists what was found and asks for the
model. The llama.cpp backend in process needs no listing: its model is the GGUF file (default: the packaged
Gemma 3 270M). What answered each call is recorded too (the reply's ``model`` field; see
:mod:`genevals.judge.client`). The list is what a server says, so it may echo the key: its names are redacted
(:mod:`genevals.judge.redact`) before they are shown, and a single name that held a secret is refused.
"""
from __future__ import annotations

import os

from genevals.judge.config import JudgeConfig, public_url
from genevals.judge.redact import Redactor
from genevals.judge.registry import get_backend

#: shown models in an error, at most
SHOWN = 20
#: the longest listed model name taken or shown (longer: cut when shown, refused when it is the only one)
NAME_CHARS = 200
_resolved: dict[tuple[str, str | None], str] = {}  # (base URL, key) -> the one model listed, in memory only


class JudgeModelError(ValueError):
    """No model was named and the server does not list exactly one."""


def needs_listing(config: JudgeConfig) -> bool:
    """Whether the model must come from the server's list: a backend whose identity names no model (an
    OpenAI-compatible judge without ``--judge-model``)."""
    if config.provider is not None or config.model or config.dry_run:
        return False
    return get_backend(config.resolved_backend).identity(config).model is None


def listed_models(config: JudgeConfig) -> list[str]:
    """The model ids ``GET {base_url}/models`` lists; :class:`JudgeModelError` when it cannot be asked."""
    from genevals.judge.backends.openai_compatible import DEFAULT_BASE_URL

    url = config.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    shown = public_url(url)
    redact = Redactor.for_judge(config.api_key, config.base_url)
    try:
        import openai
    except ImportError:
        raise JudgeModelError("the OpenAI-compatible judge needs the openai package: pip install openai") from None
    client = openai.OpenAI(api_key=config.api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
                           base_url=url, timeout=min(config.request_timeout, 30.0), max_retries=0)
    try:
        return sorted({m.id for m in client.models.list().data if isinstance(getattr(m, "id", None), str) and m.id})
    except Exception as exc:  # noqa: BLE001  (any failure to list is the same advice: name the model)
        raise JudgeModelError(redact(f"no --judge-model was given and the models of {shown} could not be listed "
                                     f"({type(exc).__name__}: {exc}); pass --judge-model NAME") or "") from None
    finally:
        client.close()


def resolve_model(config: JudgeConfig) -> str:
    """The model that will judge: ``config.model``; for an OpenAI-compatible server without one, the single
    model it lists (remembered for the process). :class:`JudgeModelError` (a ValueError) otherwise."""
    if not needs_listing(config):
        return str(config.model) if config.model else "unnamed"  # a dry run calls nothing, not even the list
    key = (config.base_url or os.environ.get("OPENAI_BASE_URL") or "",
           config.api_key or os.environ.get("OPENAI_API_KEY"))
    if key in _resolved:
        return _resolved[key]
    names = listed_models(config)
    # The list is what a server says, so it may echo the key: its names are shown and kept redacted only, and
    # a single name that held a secret is not taken (it would be sent, signed and recorded).
    redact = Redactor.for_judge(config.api_key, config.base_url)
    shown_names = [redact.cut(name, NAME_CHARS) or "" for name in names]
    shown = public_url(config.base_url or os.environ.get("OPENAI_BASE_URL")) or "the OpenAI API"
    if len(names) == 1 and shown_names[0] != names[0]:
        raise JudgeModelError(f"no --judge-model was given and the one model the judge at {shown} lists, "
                              f"'{shown_names[0]}', is not a name genevals records (it holds the judge's API key "
                              "or URL credentials, or is too long); pass --judge-model NAME")
    if len(names) != 1:
        found = ("lists no model" if not names else f"lists {len(names)} models: " + ", ".join(shown_names[:SHOWN])
                 + (f", ... ({len(names) - SHOWN} more)" if len(names) > SHOWN else ""))
        raise JudgeModelError(f"no --judge-model was given and the judge at {shown} {found}; pass --judge-model "
                              "NAME to say which model judges")
    _resolved[key] = names[0]
    return names[0]


def with_model(config: JudgeConfig) -> JudgeConfig:
    """``config`` with its model named (see :func:`resolve_model`)."""
    return config.with_options(model=resolve_model(config)) if needs_listing(config) else config
