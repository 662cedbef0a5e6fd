"""One judge configuration, built once (from the command line or the Python API) and handed whole to every
judge-backed metric.

The API key lives here in memory only: it is left out of ``repr``, signatures, results, cache keys and
transcripts.
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field, replace
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from genevals.judge.registry import AUTO, backend_names, find_backend, is_backend, unknown_backend

#: Tokens of context per verify call for a hosted model; a backend may set its own (llama.cpp: its window).
DEFAULT_CONTEXT_BUDGET = 6000


def resolve_backend(backend: str, base_url: str | None) -> str:
    """A registered backend's name (:mod:`genevals.judge.registry`) as it is; ``auto``: OpenAI-compatible when a
    base URL, OPENAI_BASE_URL or OPENAI_API_KEY is set, else the embedded llama.cpp backend."""
    if backend != AUTO and not is_backend(backend):
        raise ValueError(unknown_backend(backend))
    if backend != AUTO:
        return backend
    if base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        return "openai"
    return "llamacpp"


def public_url(url: str | None) -> str | None:
    """The URL without user info, query or fragment (where keys sometimes hide)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class JudgeConfigError(ValueError):
    """A JudgeConfig field that cannot work; ``field`` names it (the command line names its option instead)
    and ``problem`` says what is wrong with it."""

    def __init__(self, field: str, problem: str, message: str | None = None) -> None:
        self.field, self.problem = field, problem
        super().__init__(message or f"judge {field} {problem}")


#: the most judge repeats: each repeat is every judge request of the run again, and the repeats of a sample are
#: held at once; 10^6 took 1.27 GB in 20 s before its first request (issue 34). A variance estimate settles long
#: before 100 repeats.
MAX_REPEATS = 100

#: whole-number fields -> their least value (None: any); those in _OPTIONAL may also be None
_WHOLE = {"seed": None, "max_retries": 0, "concurrency": 1, "n_ctx": 1, "max_tokens": 1, "context_token_budget": 1,
          "n_threads": 1, "repeats": 1}
#: whole-number fields -> their greatest value
_MOST = {"repeats": MAX_REPEATS}
_OPTIONAL = ("max_tokens", "context_token_budget", "n_threads")
_SECONDS = ("timeout", "temperature", "backoff_base", "backoff_max")
_FLAGS = ("adaptive_concurrency", "cache", "dry_run", "preflight")


def _shown(value: Any) -> str:
    if isinstance(value, int) and not -10**20 < value < 10**20:
        return "a larger number"  # repr() of a 5,000-digit int is itself an error
    return repr(value)


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int past a double's range
        return False


def prices_problem(prices: Any) -> str | None:
    """What is wrong with ``prices`` (model -> {"input_per_1k": X, "output_per_1k": Y}, X and Y numbers >= 0),
    or None."""
    expected = 'expected {"MODEL": {"input_per_1k": X, "output_per_1k": Y}} with X, Y numbers >= 0'
    if prices is None:
        return None
    if not isinstance(prices, Mapping):
        return f"{expected}, got {type(prices).__name__}"
    for model, price in prices.items():
        if not isinstance(model, str):
            return f"model names must be strings, got {model!r}; {expected}"
        if not isinstance(price, Mapping):
            return f"model '{model}': {expected}, got {type(price).__name__}"
        for key, value in price.items():
            if key not in ("input_per_1k", "output_per_1k"):
                return f"model '{model}': unknown key '{key}'; {expected}"
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not _finite(value) or value < 0:
                return f"model '{model}': {key} {_shown(value)}: expected a number >= 0"
    return None


@dataclass(frozen=True)
class JudgeConfig:
    """Everything that says which judge answers and how it is called.

    Args:
        backend: "auto" (an OpenAI-compatible server when one is configured, else llama.cpp in process), or a
            registered backend (:mod:`genevals.judge.registry`): "openai", "llamacpp", "scripted" or a plugin's.
        base_url: OpenAI-compatible endpoint (default: OPENAI_BASE_URL).
        model: model name, or a GGUF path for llama.cpp (default: the packaged Gemma 3 270M). An
            OpenAI-compatible judge without one takes the only model its server lists at ``/models``, and stops
            the run when it lists none or several (:mod:`genevals.judge.models`): never a default name.
        api_key: default OPENAI_API_KEY; never recorded anywhere.
        temperature, seed, max_tokens: sent with every request (max_tokens caps each call's own budget).
        timeout: seconds per request. max_retries: extra tries on 429/5xx/timeouts, with exponential backoff
            from ``backoff_base`` up to ``backoff_max`` seconds (Retry-After is honoured).
        concurrency: requests in flight at once, at most. ``adaptive_concurrency`` (default on) halves it on
            timeouts, 429s and 503s and raises it again as requests succeed (:mod:`genevals.judge.limiter`).
        cache: read and write the on-disk reply cache in ``cache_dir`` (default ~/.cache/genevals/judge or
            GENEVALS_CACHE_DIR).
        context_token_budget: tokens of context per call (default: 6000, or what fits a llama.cpp window).
        prices: model -> {"input_per_1k": X, "output_per_1k": Y}, for cost estimates.
        dry_run: estimate tokens and cost; call nothing.
        preflight: check the judge (:mod:`genevals.judge.preflight`) before the first request the cache cannot
            answer; a judge that cannot answer then stops the run (``genevals run`` turns it on).
        n_ctx, n_threads: llama.cpp's context window and threads.
        provider: a ready provider (e.g. :class:`genevals.judge.backends.scripted.ScriptedProvider`); the
            backend, model and URL are then the provider's own.
        repeats: how many times each judge request is made (default 1, at most :data:`MAX_REPEATS`), repeat r
            with seed ``seed + r`` and, for verification, the claims in a shuffled order; each repeat is cached
            under its own key. The verdicts are combined by majority (:mod:`genevals.judge.repeats`), and the
            spread between repeats is reported. At temperature 0 with a backend that ignores the seed the
            repeats would be identical: the judge asks once and says so
            (:attr:`genevals.judge.runtime.JudgeRuntime.repeats_note`).
    """

    backend: str = "auto"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int | None = None
    timeout: float = 60.0
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    concurrency: int = 4
    adaptive_concurrency: bool = True
    cache: bool = True
    cache_dir: str | None = None
    context_token_budget: int | None = None
    prices: Mapping[str, Mapping[str, float]] | None = None
    dry_run: bool = False
    preflight: bool = False
    n_ctx: int = 4096
    n_threads: int | None = None
    provider: Any = field(default=None, compare=False)
    repeats: int = 1

    def __repr__(self) -> str:
        # The key is never shown, and neither is what a URL may hide in its user info or query.
        shown = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "api_key"}
        shown["base_url"] = public_url(self.base_url)
        return "JudgeConfig(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    def __post_init__(self) -> None:
        if self.backend != AUTO and not is_backend(self.backend):
            names = ", ".join((AUTO,) + backend_names())
            raise JudgeConfigError("backend", f"must be one of {names}, got {self.backend!r}",
                                   unknown_backend(self.backend))
        for name in ("base_url", "model"):  # an empty one would fall back, silently, to another judge
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise JudgeConfigError(name, f"must be a string, got {type(value).__name__}")
            if value is not None and not value.strip():
                raise JudgeConfigError(name, "must not be empty (leave it out for the default)")
        for name, least in _WHOLE.items():
            value = getattr(self, name)
            if value is None and name in _OPTIONAL:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise JudgeConfigError(name, f"must be a whole number, got {_shown(value)}")
            if least is not None and value < least:
                # a budget of 0 tokens splits the contexts into windows forever
                raise JudgeConfigError(name, f"must be {'at least 1' if least else '0 or more'}, got {_shown(value)}")
            if name in _MOST and value > _MOST[name]:
                raise JudgeConfigError(name, f"must be at most {_MOST[name]}, got {_shown(value)}")
            object.__setattr__(self, name, int(value))  # numpy's integers as ints: they go into JSON
        for name in _SECONDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise JudgeConfigError(name, f"must be a number, got {_shown(value)}")
            if not _finite(value):  # NaN would make every comparison false: a timeout that never fires
                raise JudgeConfigError(name, f"must be a finite number, got {_shown(value)}")
            if name == "timeout" and not value > 0:
                raise JudgeConfigError(name, f"must be positive, got {_shown(value)}")
            if value < 0:
                raise JudgeConfigError(name, f"must be 0 or more, got {_shown(value)}")
        for name in _FLAGS:
            if not isinstance(getattr(self, name), bool):
                raise JudgeConfigError(name, f"must be True or False, got {_shown(getattr(self, name))}")
        problem = prices_problem(self.prices)
        if problem is not None:
            raise JudgeConfigError("prices", f"are malformed: {problem}")

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None = None) -> "JudgeConfig":
        """From a mapping of field names (unknown names are an error naming them)."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown judge option(s): {', '.join(unknown)}")
        return cls(**options)

    def with_options(self, **changes: Any) -> "JudgeConfig":
        return replace(self, **changes)

    @property
    def configured(self) -> bool:
        """Whether the user named a judge (a backend, endpoint, model or provider, or OPENAI_* in the
        environment); ``faithfulness`` with none configured runs the local grounding checker."""
        if self.backend != "auto" or self.base_url or self.model or self.provider is not None:
            return True
        return resolve_backend("auto", None) != "llamacpp"

    @property
    def resolved_backend(self) -> str:
        if self.provider is not None:
            return self.provider.backend
        return resolve_backend(self.backend, self.base_url)

    @property
    def context_budget(self) -> int:
        """Tokens of context per call: the option, else the backend's own (llama.cpp: what leaves room in its
        window for the instructions, the claims and the reply), else :data:`DEFAULT_CONTEXT_BUDGET`."""
        if self.context_token_budget is not None:
            return int(self.context_token_budget)
        backend = find_backend(self.resolved_backend)  # a ready provider may carry a name nothing registered
        if backend is not None and backend.context_budget is not None:
            return int(backend.context_budget(self))
        return DEFAULT_CONTEXT_BUDGET
