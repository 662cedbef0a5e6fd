"""The judge backends by name: one :class:`Backend` record each, which the configuration (the names it accepts,
the context budget), the runtime (the provider, the model and URL in signatures, the warning), the preflight and
the CLI (``--judge-backend``'s choices) all read.

A backend is one module that ends in one ``register_backend(Backend(...))`` call. The built-in ones are the
modules :mod:`genevals.judge.backends` imports; another package adds its own through the entry point group
``genevals.judge_backends`` (``NAME = "module"``, loaded the first time NAME is asked for), and the Python API
also takes a backend registered by importing its module. This module imports only the provider protocol: the
configuration reads it, so the backends above it may read the configuration.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Awaitable, Callable

from genevals import extras
from genevals.judge.protocol import Provider

#: the entry point group through which installed packages add judge backends
ENTRY_POINTS = "genevals.judge_backends"
#: the name that picks a backend from the environment (:func:`genevals.judge.config.resolve_backend`)
AUTO = "auto"

_BACKENDS: dict[str, "Backend"] = {}
_BUILT_IN = "genevals.judge.backends"  # imported by name: its modules import this one to register


@dataclass(frozen=True)
class Identity:
    """What names a judge in signatures, results and cache keys. ``model`` None: the server names it (an
    OpenAI-compatible judge without ``--judge-model`` takes the one model ``GET /models`` lists,
    :mod:`genevals.judge.models`)."""

    model: str | None
    base_url: str | None = None


@dataclass(frozen=True)
class Backend:
    """One judge backend. Every callable takes the run's :class:`~genevals.judge.config.JudgeConfig`.

    Args:
        name: ``--judge-backend NAME``, ``JudgeConfig(backend=NAME)``; the providers it builds carry it as
            their ``backend``, so it is in every signature and cache key.
        factory: builds the provider (lazily importing what it needs).
        identity: the model and URL that name the judge (:class:`Identity`), known without building anything.
        summary: one line for ``--judge-backend``'s help.
        extra: the genevals extra that installs ``requires`` (``pip install 'genevals[EXTRA]'``), or None.
        requires: (import name, distribution) pairs checked before a run, e.g. ``(("llama_cpp",
            "llama-cpp-python"),)``.
        preflight: ``await preflight(config, provider)``: None when the judge can answer, else what to fix
            (:mod:`genevals.judge.preflight`); None checks only ``requires``.
        context_budget: tokens of context per call when ``context_token_budget`` is not set (None:
            :data:`genevals.judge.config.DEFAULT_CONTEXT_BUDGET`).
        warning: a line shown with every result this judge gave (e.g. a smoke-test model), or None.
        auto: how ``--judge-backend auto`` may pick this backend: ``"when"`` with ``picked`` (a function of the
            base URL that says whether the environment names this backend: the OpenAI-compatible one when a URL,
            OPENAI_BASE_URL or OPENAI_API_KEY is set), ``"fallback"`` for the one taken when no backend is named
            (the embedded llama.cpp), or None (named only).
        picked: see ``auto``.
        settings: the backend's own settings (:class:`genevals.settings.Setting`), set with ``--judge-option
            KEY=VALUE``, the run file's [judge] table or ``JudgeConfig(options=...)`` and read with
            ``config.option(KEY)``; the configuration checks them with the one checker.
        repeats_vary_at_zero: whether two requests at temperature 0 with different seeds can get different
            replies (a hosted API's can; greedy decoding in process and a script cannot): when not,
            ``--judge-repeats`` at temperature 0 asks once and says why.
    """

    name: str
    factory: Callable[[Any], Provider]
    identity: Callable[[Any], Identity]
    summary: str = ""
    extra: str | None = None
    requires: tuple[tuple[str, str], ...] = ()
    preflight: Callable[[Any, Provider], Awaitable[str | None]] | None = None
    context_budget: Callable[[Any], int] | None = None
    warning: Callable[[Any], str | None] | None = None
    repeats_vary_at_zero: bool = True
    settings: tuple[Any, ...] = ()
    auto: str | None = None
    picked: Callable[[str | None], bool] | None = None

    def build(self, config: Any) -> Provider:
        """The provider, checked to carry this backend's name (signatures and cache keys are keyed on it)."""
        provider = self.factory(config)
        if getattr(provider, "backend", None) != self.name:
            raise TypeError(f"judge backend '{self.name}' built a provider whose backend is "
                            f"{getattr(provider, 'backend', None)!r}; it must be '{self.name}'")
        return provider

    def missing(self) -> str | None:
        """What to install when a module in ``requires`` is not importable, else None."""
        return extras.missing(f"--judge-backend {self.name}", self.requires, self.extra)


def register_backend(backend: Backend) -> Backend:
    """Make ``backend`` available by its name; returns it. A name already taken by another record is an error
    (two plugins must not silently replace one another)."""
    if not isinstance(backend, Backend):
        raise TypeError(f"register_backend takes a Backend, got {type(backend).__name__}")
    if not backend.name or backend.name == AUTO or not backend.name.isidentifier():
        raise ValueError(f"judge backend name {backend.name!r}: expected an identifier other than '{AUTO}'")
    known = _BACKENDS.get(backend.name)
    if known is not None and known != backend:
        raise ValueError(f"judge backend '{backend.name}' is registered twice")
    _BACKENDS[backend.name] = backend
    return backend


#: the installed plugins by the sys.path they were read under: reading the entry points scans every installed
#: distribution (10-15 ms), and one `genevals run` asks six times (its options' choices, the settings check)
_PLUGINS: dict[tuple[str, ...], dict[str, Any]] = {}


def _plugins() -> dict[str, Any]:
    key = tuple(sys.path)
    found = _PLUGINS.get(key)
    if found is None:
        found = _PLUGINS[key] = {ep.name: ep for ep in entry_points(group=ENTRY_POINTS)}
    return found


def _built_in() -> None:
    importlib.import_module(_BUILT_IN)  # a no-op once imported


def backend_names() -> tuple[str, ...]:
    """Every backend that can be named: the built-in and registered ones, then installed plugins (not loaded)."""
    _built_in()
    return tuple(_BACKENDS) + tuple(sorted(set(_plugins()) - set(_BACKENDS)))


def described(name: str) -> str:
    """``NAME: summary`` for a registered backend, else the name (an installed plugin is not loaded to say)."""
    backend = _BACKENDS.get(name)
    return f"{name}: {backend.summary}" if backend is not None and backend.summary else name


def is_backend(name: str) -> bool:
    """Whether ``name`` is a registered backend or an installed plugin's (entry points are read only for a name
    nothing registered: a configuration is checked often)."""
    _built_in()
    return isinstance(name, str) and (name in _BACKENDS or name in _plugins())


def unknown_backend(name: str) -> str:
    return f"unknown judge backend '{name}' ({', '.join((AUTO,) + backend_names())})"


def get_backend(name: str) -> Backend:
    """The backend registered as ``name``, loading its plugin the first time; ValueError when there is none or
    its plugin does not load."""
    _built_in()
    if name not in _BACKENDS:
        plugin = _plugins().get(name)
        if plugin is None:
            raise ValueError(unknown_backend(name))
        try:
            plugin.load()
        except Exception as exc:  # noqa: BLE001  (any failure of a plugin's import is the same advice)
            raise ValueError(f"judge backend '{name}' (entry point {plugin.value}) did not load: "
                             f"{type(exc).__name__}: {exc}") from None
        if name not in _BACKENDS:
            raise ValueError(f"judge backend '{name}': its entry point {plugin.value} registered no backend of "
                             "that name (call register_backend(Backend(name=...)) in the module)")
    return _BACKENDS[name]


def auto_backend(base_url: str | None) -> str:
    """The backend ``auto`` stands for: the first registered one whose ``picked(base_url)`` says the environment
    names it, else the registered ``fallback``."""
    _built_in()
    for backend in _BACKENDS.values():
        if backend.auto == "when" and backend.picked is not None and backend.picked(base_url):
            return backend.name
    return fallback_backend()


def fallback_backend() -> str:
    """The backend ``auto`` takes when nothing names one (the embedded llama.cpp)."""
    _built_in()
    return next(b.name for b in _BACKENDS.values() if b.auto == "fallback")


def find_backend(name: str) -> Backend | None:
    """The backend registered as ``name``, or None (a ready provider may carry a name nothing registered)."""
    try:
        return get_backend(name)
    except ValueError:
        return None


def make_provider(config: Any) -> Provider:
    """The provider ``config`` names: its ready ``provider``, else one its backend builds."""
    if config.provider is not None:
        return config.provider
    return get_backend(config.resolved_backend).build(config)
