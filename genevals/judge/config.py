"""One judge configuration, built once (from the command line or the Python API) and handed whole to every
judge-backed metric.

The API key lives here in memory only: it is left out of ``repr``, signatures, results, cache keys and
transcripts.
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field, replace
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from genevals.judge.registry import (AUTO, auto_backend, backend_names, fallback_backend, find_backend, is_backend,
                                     unknown_backend)
from genevals.judge.redact import MAX_SECRET_CHARS, url_secret_problem
from genevals.settings import Setting, check, did_you_mean, finite, shown

#: requests held at once with ``--judge-batch``: every request of a round waits in its batch (the Batch API takes at
#: most 50,000 requests in one batch; a longer run sends a round as several batches). Here, not in
#: :mod:`genevals.judge.batch`, which reads this configuration.
BATCH_IN_FLIGHT = 50_000

#: Tokens of context per verify call for a hosted model; a backend may set its own (llama.cpp: its window).
DEFAULT_CONTEXT_BUDGET = 6000


def resolve_backend(backend: str, base_url: str | None) -> str:
    """A registered backend's name (:mod:`genevals.judge.registry`) as it is; ``auto``: the backend whose record
    says the environment names it (OpenAI-compatible when a base URL, OPENAI_BASE_URL or OPENAI_API_KEY is set),
    else the fallback (the embedded llama.cpp backend)."""
    if backend != AUTO and not is_backend(backend):
        raise ValueError(unknown_backend(backend))
    if backend != AUTO:
        return backend
    return auto_backend(base_url)


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
        super().__init__(message or f"judge {field}: {problem}")


#: the most judge repeats: each repeat is every judge request of the run again, and the repeats of a sample are
#: held at once; 10^6 took 1.27 GB in 20 s before its first request (issue 34). A variance estimate settles long
#: before 100 repeats.
MAX_REPEATS = 100


def prices_problem(prices: Any) -> str | None:
    """What is wrong with ``prices`` (model -> {"input_per_1k": X, "output_per_1k": Y}, X and Y numbers >= 0, and
    optionally ``"batch_discount": D``, the share a batch call saves, 0 <= D <= 1), or None."""
    expected = ('expected {"MODEL": {"input_per_1k": X, "output_per_1k": Y}} with X, Y numbers >= 0 (and '
                'optionally "batch_discount": D, 0 to 1)')
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
            if key not in ("input_per_1k", "output_per_1k", "batch_discount"):
                return f"model '{model}': unknown key '{key}'; {expected}"
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not finite(value) or value < 0:
                return f"model '{model}': {key} {shown(value)}: expected a number >= 0"
            if key == "batch_discount" and value > 1:
                return f"model '{model}': batch_discount {shown(value)}: expected a share from 0 to 1 (0.5: half off)"
    return None


def _prices(value: Any) -> None:
    problem = prices_problem(value)
    if problem is not None:
        raise ValueError(f"prices: malformed: {problem}")


def _named(name: str):
    def rule(value: str) -> None:  # an empty one would fall back, silently, to another judge
        if not value.strip():
            raise ValueError(f"{name}: must not be empty (leave it out for the default)")
    return rule


def _positive(value: float) -> None:
    if not value > 0:  # a timeout of 0 fails every request at once
        raise ValueError(f"timeout: expected a number above 0, got {value:g}")


def _backend(value: str) -> None:
    if value != AUTO and not is_backend(value):
        raise ValueError(f"backend: {unknown_backend(value)}")


#: every judge setting any backend takes, declared once: JudgeConfig checks its fields against these with the one
#: checker, and ``--judge-option``, the run file's [judge] table and the docs' reference read them. A backend's own
#: settings (llama.cpp's n_ctx) are declared in its file (:attr:`genevals.judge.registry.Backend.settings`).
SETTINGS = (
    Setting("backend", str, AUTO, "auto, or a registered backend (openai, llamacpp, scripted, a plugin's)",
            rule=_backend),
    Setting("base_url", str, None, "OpenAI-compatible endpoint (default OPENAI_BASE_URL)", rule=_named("base_url")),
    Setting("model", str, None, "model name, or a .gguf path for llama.cpp", rule=_named("model")),
    Setting("temperature", float, 0.0, "sampling temperature sent with every request", minimum=0.0),
    Setting("seed", int, 0, "sampling seed sent with every request (repeat r uses seed + r)", minimum=None),
    Setting("max_tokens", int, None, "cap on each reply's tokens (default: none; 512 for a server on this "
            "machine)", minimum=1),
    Setting("timeout", float, None, "seconds per request (default 60; 300 for a server on this machine)",
            minimum=0.0, rule=_positive),
    Setting("max_retries", int, 4, "extra tries on 429/5xx/timeouts", minimum=0),
    Setting("backoff_base", float, 0.5, "first retry's wait, seconds (doubles per retry)", minimum=0.0),
    Setting("backoff_max", float, 30.0, "longest wait between retries, seconds", minimum=0.0),
    Setting("concurrency", int, 4, "requests in flight at once, at most", minimum=1),
    Setting("adaptive_concurrency", bool, True, "halve concurrency on timeouts/429/503, raise it as calls succeed"),
    Setting("cache", bool, True, "read and write the on-disk reply cache"),
    Setting("cache_dir", str, None, "cache folder (default ~/.cache/genevals/judge or GENEVALS_CACHE_DIR)",
            rule=_named("cache_dir")),
    Setting("context_token_budget", int, None, "tokens of context per call (default 6000, or what fits a "
            "llama.cpp window)", minimum=1),
    Setting("prices", object, None, 'model -> {"input_per_1k": X, "output_per_1k": Y}, for cost estimates',
            rule=_prices),
    Setting("dry_run", bool, False, "estimate tokens and cost; call nothing"),
    Setting("preflight", bool, False, "check the judge with one request before the first uncached one"),
    Setting("repeats", int, 1, "times each judge request is made (majority verdict, flip rate)", minimum=1,
            maximum=MAX_REPEATS),
    Setting("batch", bool, False, "send the judge requests through the OpenAI Batch API (about half the price; "
            "answers within 24 h)"),
    Setting("batch_dir", str, None, "folder keeping the batch ids, so a killed run resumes its batches (genevals "
            "run: --out)", rule=_named("batch_dir")),
    Setting("batch_poll", float, 10.0, "first wait between checks of a batch's status, seconds (doubles)",
            minimum=0.0),
    Setting("batch_poll_max", float, 300.0, "longest wait between checks of a batch's status, seconds",
            minimum=0.0),
)
_DECLARED = {s.name: s for s in SETTINGS}


def backend_settings(name: str) -> tuple[Setting, ...]:
    """The settings backend ``name`` declares in its own file (none for an unknown one)."""
    backend = find_backend(name)
    return tuple(backend.settings) if backend is not None else ()


def all_backend_settings() -> dict[str, tuple[Setting, ...]]:
    """backend name -> its own settings, for every registered backend that declares some."""
    found = {name: backend_settings(name) for name in backend_names() if find_backend(name) is not None}
    return {name: declared for name, declared in found.items() if declared}


def is_judge_setting(key: str) -> bool:
    """Whether ``key`` is a JudgeConfig setting or some backend's own (``--judge-option`` routes it here)."""
    return key in _DECLARED or _owner_of(key) is not None


def _owner_of(key: str) -> str | None:
    for name, declared in all_backend_settings().items():
        if any(s.name == key for s in declared):
            return name
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
        temperature, seed, max_tokens: sent with every request (max_tokens caps each call's own budget; for a
            server on this machine, default :data:`genevals.judge.local.LOCAL_MAX_TOKENS`: :attr:`reply_cap`).
        timeout: seconds per request (default 60, and :data:`genevals.judge.local.LOCAL_TIMEOUT` for a server on
            this machine: :attr:`request_timeout`). max_retries: extra tries on 429/5xx/timeouts, with exponential backoff
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
        options: the backend's own settings (llama.cpp's ``n_ctx``, ``n_threads``; OpenAI's
            ``response_format``), declared in the backend's file and checked against it:
            ``JudgeConfig.from_options({"n_ctx": 8192})`` puts them here. :meth:`option` reads one.
        provider: a ready provider (e.g. :class:`genevals.judge.backends.scripted.ScriptedProvider`); the
            backend, model and URL are then the provider's own.
        repeats: how many times each judge request is made (default 1, at most :data:`MAX_REPEATS`), repeat r
            with seed ``seed + r`` and, for verification, the claims in a shuffled order; each repeat is cached
            under its own key. The verdicts are combined by majority (:mod:`genevals.judge.repeats`), and the
            spread between repeats is reported. At temperature 0 with a backend that ignores the seed the
            repeats would be identical: the judge asks once and says so
            (:attr:`genevals.judge.runtime.JudgeRuntime.repeats_note`).
        batch: send the requests through the OpenAI Batch API (:mod:`genevals.judge.batch`): gathered, uploaded
            as one file per round, polled every ``batch_poll`` seconds (doubling up to ``batch_poll_max``), and
            the ids kept in ``batch_dir`` so that a killed run resumes its batches instead of paying twice.
    """

    backend: str = "auto"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int | None = None
    timeout: float | None = None
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
    provider: Any = field(default=None, compare=False)
    repeats: int = 1
    batch: bool = False
    batch_dir: str | None = None
    batch_poll: float = 10.0
    batch_poll_max: float = 300.0
    options: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        # The key is never shown, and neither is what a URL may hide in its user info or query.
        shown = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "api_key"}
        shown["base_url"] = public_url(self.base_url)
        return "JudgeConfig(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    def __post_init__(self) -> None:
        for setting in SETTINGS:  # the one checker: the message names the field, the value and the limit
            value = getattr(self, setting.name)
            try:
                checked = check(setting, value, setting.name)
            except ValueError as exc:
                raise JudgeConfigError(setting.name, str(exc).removeprefix(f"{setting.name}: "),
                                       unknown_backend(value) if setting.name == "backend" else None) from None
            if setting.type in (int, float) and checked is not None:
                object.__setattr__(self, setting.name, checked)  # numpy's numbers as Python's: they go into JSON
        key, named = (self.api_key, "api_key") if self.api_key is not None else \
            (os.environ.get("OPENAI_API_KEY"), "OPENAI_API_KEY")
        if isinstance(key, str) and len(key) > MAX_SECRET_CHARS:
            raise JudgeConfigError(named, f"{len(key):,} characters; an API key is at most {MAX_SECRET_CHARS:,} (a "
                                          "file or a log pasted in?)")
        for url, named in ((self.base_url, "base_url"), (os.environ.get("OPENAI_BASE_URL"), "OPENAI_BASE_URL")):
            problem = url_secret_problem(url) if isinstance(url, str) else None
            if problem is not None:
                raise JudgeConfigError(named, problem)
        if not isinstance(self.options, Mapping):
            raise JudgeConfigError("options", f"expected a mapping of backend settings, got "
                                              f"{type(self.options).__name__}")
        object.__setattr__(self, "options", self._checked_options(dict(self.options)))

    def _checked_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The backend's own settings, each checked against its declaration in the backend's file."""
        if not options:
            return options
        backend = self.provider.backend if self.provider is not None else self.resolved_backend
        declared = {s.name: s for s in backend_settings(backend)}
        out = {}
        for key, value in options.items():
            if key not in declared:
                owner = _owner_of(key)
                problem = (f"a setting of the {owner} backend; this judge is {backend}" if owner else
                           f"unknown setting of the {backend} backend{did_you_mean(key, declared)} "
                           f"(its settings: {', '.join(declared) or 'none'})")
                raise JudgeConfigError(key, problem)
            try:
                out[key] = check(declared[key], value, key)
            except ValueError as exc:
                raise JudgeConfigError(key, str(exc).removeprefix(f"{key}: ")) from None
        return out

    def option(self, name: str) -> Any:
        """The backend setting ``name``: as given in :attr:`options`, else its declared default."""
        if name in self.options:
            return self.options[name]
        for setting in backend_settings(self.resolved_backend):
            if setting.name == name:
                return setting.default
        raise KeyError(f"judge backend {self.resolved_backend} declares no setting '{name}'")

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None = None) -> "JudgeConfig":
        """From a mapping of field names and backend settings (``{"model": ..., "n_ctx": 8192}``: a backend's
        setting goes into :attr:`options`); an unknown name is an error with a did-you-mean."""
        fields, backend = {}, dict((options or {}).get("options") or {})
        for key, value in dict(options or {}).items():
            if key == "options":
                continue
            if key in cls.__dataclass_fields__:
                fields[key] = value
            elif _owner_of(key) is not None:
                backend[key] = value
            else:
                known = [f for f in cls.__dataclass_fields__ if f not in ("options", "provider")]
                known += [s.name for declared in all_backend_settings().values() for s in declared]
                raise JudgeConfigError(str(key), f"unknown judge setting{did_you_mean(str(key), known)} "
                                                 f"(settings: {', '.join(known)})")
        return cls(**fields, options=backend)

    def with_options(self, **changes: Any) -> "JudgeConfig":
        return replace(self, **changes)

    @property
    def configured(self) -> bool:
        """Whether the user named a judge (a backend, endpoint, model or provider, or OPENAI_* in the
        environment); ``faithfulness`` with none configured runs the local grounding checker."""
        if self.backend != "auto" or self.base_url or self.model or self.provider is not None:
            return True
        return resolve_backend("auto", None) != fallback_backend()

    @property
    def in_flight(self) -> int:
        """Requests held at once: ``concurrency``, or with ``batch`` every request of a round (they wait in a batch
        together, not on the server; :data:`BATCH_IN_FLIGHT`)."""
        if self.batch:
            return BATCH_IN_FLIGHT
        return self.concurrency

    @property
    def local_server(self) -> bool:
        """Whether the judge is a server on this machine: the URL its backend names it by (an OpenAI-compatible
        one's base URL or OPENAI_BASE_URL; a ready provider's ``base_url``) is a loopback address. Such a judge
        gets the local defaults of :mod:`genevals.judge.local`."""
        from genevals.judge.local import on_this_machine

        if self.provider is not None:
            return on_this_machine(getattr(self.provider, "base_url", None))
        backend = find_backend(self.resolved_backend)
        return backend is not None and on_this_machine(backend.identity(self).base_url)

    @property
    def request_timeout(self) -> float:
        """Seconds per request: ``timeout``, else the default for where the server is (:mod:`genevals.judge.local`)."""
        from genevals.judge import local

        return local.timeout(self.timeout, self.local_server)

    @property
    def reply_cap(self) -> int | None:
        """The cap on each reply's tokens: ``max_tokens``, else the local server's default, else none."""
        from genevals.judge import local

        return local.max_tokens(self.max_tokens, self.local_server)

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
