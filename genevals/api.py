"""The Python API's entry point: :func:`evaluate` as :mod:`genevals.engine.local` runs it, with its caveats
raised as Python warnings (:class:`GenevalsWarning`) rather than left in ``Results.meta``: notebooks and test
runners show warnings; nobody reads ``meta["judge_warnings"]``. The command line prints the same caveats
itself, so it calls the engine directly.

Filter them as usual: ``warnings.simplefilter("error", genevals.GenevalsWarning)`` makes them errors.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any, Mapping

from genevals import types
from genevals.engine.local import evaluate as _evaluate
from genevals.output.results import Results


class GenevalsWarning(UserWarning):
    """A caveat about a result: an offline stand-in for the judge asked for, a smoke-test judge model, samples
    the judge failed on."""


@functools.wraps(_evaluate)
def evaluate(*args: Any, **kwargs: Any) -> Results:
    results = _evaluate(*args, **kwargs)
    for message in caveats(results.status_counts()):
        warnings.warn(message, GenevalsWarning, stacklevel=2)
    return results


def caveats(summary: Mapping[str, Any]) -> list[str]:
    """The run's caveats: each unknown input field (with its did-you-mean), each metric a preset left out (an
    extra not installed), each judge warning, and how many
    samples the judge failed on (the metric most affected), as sentences."""
    meta = summary.get("meta", {})
    out = [str(line) for line in meta.get("unknown_fields") or ()]
    out += [f"{family} left out: {why}" for family, why in (meta.get("left_out") or {}).items()]
    out += [f"{family}: {note}" for family, note in (meta.get("judge_warnings") or {}).items()]
    if isinstance(meta.get("qrels_judged_by"), Mapping) and meta["qrels_judged_by"].get("note"):
        out.append(f"qrels: {meta['qrels_judged_by']['note']}")
    failed: dict[str, list[int]] = {}
    for metrics in (summary.get("systems") or {}).values():
        for name, m in metrics.items():
            statuses = m.get("statuses") or {}
            counts = failed.setdefault(name, [0, 0, 0])
            counts[0] += int(statuses.get(types.JUDGE_ERROR, 0))
            counts[1] += int(statuses.get(types.PARSE_ERROR, 0))
            counts[2] += int(m.get("scored") or 0) + int(m.get("unscored") or 0)
    worst = max(failed.items(), key=lambda item: item[1][0] + item[1][1], default=None)
    if worst is not None and worst[1][0] + worst[1][1]:
        name, (errors, unparsed, n) = worst
        out.append(f"{name}: the judge failed on {errors + unparsed} of {n} samples ({errors} judge_error, "
                   f"{unparsed} parse_error); they are unscored, and each result's reason says why")
    return out
