"""The arguments of :func:`~genevals.testing.assert_scores` (and so of the ``genevals`` marker), checked before
anything is scored, each mistake raised naming the parameter and the value, as :func:`genevals.evaluate` names
its own (an :class:`~genevals.input.readers.InputError`, a ValueError).

A gate that cannot be checked is a :class:`~genevals.output.thresholds.ThresholdError` (a ValueError); given as
the wrong type (a list, a string) a :class:`GateTypeError`, which is a TypeError as well. A value is shown cut
short: a test's data can be large, and a 5,000-digit number cannot even be turned into text. Each check hides
its frame from pytest (``__tracebackhide__``): a refused argument shows the test's own line and the message.
"""
from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from genevals.lifecycle.arguments import LONGEST_NAME, GateTypeError, shown, thresholds  # noqa: F401
from genevals.settings import Setting, check

#: assert_scores's own parameters, beside genevals.evaluate's
OWN = ("data", "metrics", "fail_under", "fail_over", "worst", "max_judge_errors", "require_agreement", "min_kappa")


def _bad(source: str, message: str) -> ValueError:
    from genevals.input.readers import InputError

    return InputError(source, None, None, message)


def check_names(given: Mapping[str, Any]) -> None:
    """TypeError for an argument neither assert_scores nor :func:`genevals.evaluate` takes, with a did-you-mean
    (a marker's ``fail_undr=`` would otherwise reach evaluate as an unexplained keyword)."""
    __tracebackhide__ = True
    from genevals.api import evaluate
    from genevals.suggest import did_you_mean

    known = [*OWN, *inspect.signature(evaluate).parameters]
    for name in given:
        if name not in known:
            hint = did_you_mean(str(name), known) if isinstance(name, str) and len(name) <= LONGEST_NAME else ""
            raise TypeError(f"assert_scores: unknown argument {shown(name)}{hint} (it takes {', '.join(OWN)} "
                            "and genevals.evaluate's arguments)")


#: assert_scores' own settings, declared once and checked by the one checker (as ``--max-judge-errors``)
SETTINGS = (
    Setting("worst", int, 5, "the worst samples shown when a gate fails", minimum=0),
    Setting("max_judge_errors", float, 0.05, "the share of judged samples that may end in judge_error or "
            "parse_error", minimum=0.0, maximum=1.0),
)
_DECLARED = {s.name: s for s in SETTINGS}


def _checked(value: Any, name: str) -> Any:
    __tracebackhide__ = True
    try:
        return check(_DECLARED[name], value, name)
    except ValueError as exc:
        raise _bad(name, str(exc).removeprefix(f"{name}: ")) from None


def count(value: Any, name: str) -> int:
    """A whole number, 0 or more (``worst``)."""
    __tracebackhide__ = True
    return _checked(value, name)


def fraction(value: Any, name: str) -> float:
    """A number in [0, 1] (``max_judge_errors``, as ``--max-judge-errors``)."""
    __tracebackhide__ = True
    return _checked(value, name)


