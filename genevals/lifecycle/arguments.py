"""The run's gates as the API and the pytest plugin take them (``fail_under={"token_f1": 0.5}``,
``fail_over={...}``), checked before anything is scored against what each metric declares, each mistake raised
naming the argument, the metric and the value (the command line parses its own ``--fail-under`` flags).

A gate that cannot be checked is a :class:`~genevals.output.thresholds.ThresholdError` (a ValueError); given as
the wrong type (a list, a string) a :class:`GateTypeError`, which is a TypeError as well. A value is shown cut
short: a test's data can be large, and a 5,000-digit number cannot even be turned into text.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

from genevals.output import thresholds as th
from genevals.settings import Setting, check

#: a share from 0 to 1 (``min_coverage``, ``max_judge_errors``), checked by the one checker
SHARE = Setting("share", float, 0.0, "a share from 0 to 1", minimum=0.0, maximum=1.0)

#: longest metric name a gate may give: every real one is far shorter, and a longer one is quoted cut short
LONGEST_NAME = 200
_SHOWN = 80
_KINDS = {th.FAIL_UNDER: "minimum", th.FAIL_OVER: "maximum"}


class GateTypeError(th.ThresholdError, TypeError):
    """A gate given as something other than a mapping of metric name -> number."""


def shown(value: Any) -> str:
    """``repr(value)``, at most 80 characters; a huge integer by its size (its text would exceed Python's limit
    on integer digits, and say nothing)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value).bit_length() > 256:
        return f"an integer of {int(int(value).bit_length() * math.log10(2)) + 1} digits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 -- a value whose repr fails is still named by its type
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _limit(kind: str, name: str, value: Any) -> float:
    __tracebackhide__ = True
    where = f"{kind}[{shown(name)}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise GateTypeError(f"{where}: the {_KINDS[kind]} must be a number, got {type(value).__name__} "
                            f"{shown(value)}")
    try:
        limit = float(value)
    except OverflowError:
        limit = math.inf
    if not math.isfinite(limit):
        raise th.ThresholdError(f"{where}: the {_KINDS[kind]} must be a finite number, got {shown(value)}")
    return limit


def thresholds(fail_under: Any, fail_over: Any) -> list[th.Threshold]:
    """The gates, each checked now against what its metric declares (name, direction, range); a mistake is
    refused naming ``fail_under`` or ``fail_over``, the metric and the value, before anything is scored."""
    __tracebackhide__ = True
    from genevals import registry
    from genevals.suggest import did_you_mean

    given = []
    for kind, limits in ((th.FAIL_UNDER, fail_under), (th.FAIL_OVER, fail_over)):
        if limits is None:
            continue
        if not isinstance(limits, Mapping):
            raise GateTypeError(f"{kind}: expected a mapping of metric name -> {_KINDS[kind]}, e.g. "
                                f"{kind}={{'token_f1': 0.5}}; got {type(limits).__name__} {shown(limits)}")
        for name, value in limits.items():
            if not isinstance(name, str):
                raise GateTypeError(f"{kind}: a metric name must be a string, got {type(name).__name__} "
                                    f"{shown(name)}")
            limit = _limit(kind, name, value)
            if len(name) > LONGEST_NAME or not name.isprintable() or registry.declaration_of(name) is None:
                hint = did_you_mean(name, registry.known_names()) if len(name) <= LONGEST_NAME else ""
                raise th.ThresholdError(f"{kind}: unknown metric {shown(name)}{hint} (see `genevals metrics`)")
            given.append(th.Threshold(name, limit, kind))
    for gate in given:
        try:
            th.validate([gate], {gate.metric: registry.declaration_of(gate.metric)})
        except th.ThresholdError as exc:  # its message names the command line's flags; here they are arguments
            text = str(exc).replace("bad threshold: ", "", 1)
            for kind in th.KINDS:  # "--fail-under token_f1=0.5" -> "fail_under={'token_f1': 0.5}"
                text = text.replace(f"{th.flag(kind)} {gate.metric}={gate.limit:g}",
                                    f"{kind}={{{gate.metric!r}: {gate.limit:g}}}").replace(th.flag(kind), kind)
            raise th.ThresholdError(f"bad threshold: {text}") from None
    return given


def share(value: Any, name: str) -> float:
    """``value`` as a share from 0 to 1, or an InputError naming argument ``name``."""
    from genevals.input.readers import InputError

    try:
        return check(SHARE, value, name)
    except ValueError as exc:
        raise InputError(name, None, None, str(exc).removeprefix(f"{name}: ")) from None
