"""genevals in a test suite: :func:`assert_scores` (score data, fail the test on a missed gate with the worst
samples and their unsupported claims, or on a judge that failed), and a pytest plugin
(:mod:`genevals.testing.plugin`, registered through the ``pytest11`` entry point when genevals is installed)
with the ``genevals`` marker and fixture.

    arguments.py  assert_scores's arguments, checked before scoring (each mistake names its parameter)
    gates.py      assert_scores, ScoresFailed, JudgeFailed, AgreementFailed, the failure message
    agreement.py  assert_scores's require_agreement= and min_kappa=: the agreement gate
    plugin.py     the pytest plugin: @pytest.mark.genevals(...) and the ``genevals`` fixture

The names are imported on first use (PEP 562): pytest loads the plugin, and so this package, in every run where
genevals is installed, and a project's own tests must not pay for (or break on) genevals' imports.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from genevals.testing.gates import AgreementFailed, JudgeFailed, ScoresFailed, assert_scores

__all__ = ["AgreementFailed", "JudgeFailed", "ScoresFailed", "assert_scores"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'genevals.testing' has no attribute {name!r}")
    from genevals.testing import gates

    value = getattr(gates, name)
    globals()[name] = value
    return value
