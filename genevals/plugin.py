"""What a plugin needs, in one public place: a metric (its class, declarations, settings, signature and results)
or a judge backend (its record and the provider protocol it implements).

Code outside genevals imports these names from here rather than from the modules that define them, so those
modules can move without breaking a plugin: ``from genevals.plugin import Metric, Output, register``. Each name
is the internal object itself, not a copy (a metric registered with this ``register`` is the one a run finds).

Nothing is imported until a name is asked for (PEP 562): a judge backend does not load the metric base, nor a
metric the backend registry, which reads the installed plugins' entry points. The package's own modules import
the defining modules, not this one; this one imports neither the engines nor the command line
(``pyproject.toml``'s import contracts).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genevals import types
    from genevals.judge.protocol import Completion, JudgeError, PermanentError, Provider, TransientError, Usage
    from genevals.judge.registry import Backend, Identity, register_backend
    from genevals.metrics.base import CHEAP, JUDGE, MODEL, Metric, Output, register
    from genevals.settings import Setting
    from genevals.signature import make_signature
    from genevals.types import (EMPTY_ANSWER, EMPTY_REFERENCE, ERROR, JUDGE_ERROR, NO_CLAIMS, NO_CONTEXT,
                                NO_RELEVANCE_LABELS, NOT_FOUND, OK, PARSE_ERROR, REFUSAL, UNSUPPORTED_LANGUAGE,
                                Context, MetricResult, Sample)

#: the statuses a metric may give a result (every one but ``ok`` carries a reason instead of a value)
_STATUSES = ("OK", "EMPTY_ANSWER", "EMPTY_REFERENCE", "NO_CONTEXT", "NO_RELEVANCE_LABELS", "NOT_FOUND", "NO_CLAIMS",
             "REFUSAL", "JUDGE_ERROR", "PARSE_ERROR", "ERROR", "UNSUPPORTED_LANGUAGE")

#: each public name -> the module that defines it
_WHERE = {
    # a metric
    **{name: "genevals.metrics.base" for name in ("Metric", "Output", "register", "CHEAP", "MODEL", "JUDGE")},
    "Setting": "genevals.settings",
    "make_signature": "genevals.signature",
    **{name: "genevals.types" for name in ("MetricResult", "Sample", "Context", *_STATUSES)},
    # a judge backend
    **{name: "genevals.judge.registry" for name in ("Backend", "Identity", "register_backend")},
    **{name: "genevals.judge.protocol" for name in ("Completion", "Usage", "Provider", "JudgeError",
                                                    "TransientError", "PermanentError")},
}

__all__ = ["Metric", "Output", "register", "CHEAP", "MODEL", "JUDGE", "Setting", "make_signature", "MetricResult",
           "Sample", "Context", "OK", "EMPTY_ANSWER", "EMPTY_REFERENCE", "NO_CONTEXT", "NO_RELEVANCE_LABELS",
           "NOT_FOUND", "NO_CLAIMS", "REFUSAL", "JUDGE_ERROR", "PARSE_ERROR", "ERROR", "UNSUPPORTED_LANGUAGE",
           "Backend", "Identity", "register_backend", "Completion", "Usage", "Provider", "JudgeError",
           "TransientError", "PermanentError", "types"]


def __getattr__(name: str) -> Any:
    if name == "types":
        value = importlib.import_module("genevals.types")
    elif name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # asked once: the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
