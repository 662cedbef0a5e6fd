"""genevals: scores for RAG answers, and where they make things up."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from genevals._version import __version__

if TYPE_CHECKING:
    from genevals.api import GenevalsWarning, evaluate
    from genevals.input.readers import InputError
    from genevals.judge.config import JudgeConfig
    from genevals.registry import register
    from genevals.output.results import Results
    from genevals.types import Claim, Context, MetricResult, Sample, SampleResult, Verdict

__all__ = ["evaluate", "Results", "Sample", "Context", "MetricResult", "SampleResult", "Claim", "Verdict",
           "InputError", "JudgeConfig", "register", "GenevalsWarning", "__version__"]

# Imported on first use (PEP 562), so that `genevals --help` and the CLI do not pay for numpy and the engine
# before they need them.
_WHERE = {"evaluate": "genevals.api", "GenevalsWarning": "genevals.api", "InputError": "genevals.input.readers",
          "JudgeConfig": "genevals.judge.config", "register": "genevals.registry", "Results": "genevals.output.results",
          **{name: "genevals.types" for name in ("Claim", "Context", "MetricResult", "Sample", "SampleResult",
                                                  "Verdict")}}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'genevals' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
