"""summary.json's shape, checked before a reader trusts it: ``genevals compare`` and ``genevals export otel`` read
a folder that may have been edited by hand, merged or damaged, and a field of the wrong type would otherwise
fail deep inside the statistics (a string seed, a list where a system's metrics belong), unnamed.

:func:`check` says where the first field of the wrong type is (``systems.dense.token_f1.mean``), naming the file;
fields it does not know are left alone (a later version may add some), and a field that is missing is the
reader's concern (a run interrupted before its summary was written has none).
"""
from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any, Mapping

from genevals.quote import quoted

#: a metric's entry in a system's block: field -> (the types it may have, what the message says it should be)
_NUMBER = (numbers.Real, type(None))
_ENTRY = {"mean": (_NUMBER, "a number or null"), "ci95": ((list, type(None)), "a list [low, high] or null"),
          "scored": (numbers.Integral, "a whole number"), "unscored": (numbers.Integral, "a whole number"),
          "total": (numbers.Integral, "a whole number"), "statuses": (Mapping, "an object (status -> count)")}
#: the top-level fields: (the types they may have, what the message says they should be)
_TOP = {"systems": (Mapping, "an object (system -> its metrics)"), "seed": (numbers.Integral, "a whole number"),
        "meta": (Mapping, "an object"), "signatures": (Mapping, "an object (family -> signature)"),
        "comparisons": (list, "a list"), "leaderboard": (Mapping, "an object")}


class SummaryShapeError(ValueError):
    """A summary.json field of the wrong type; the message names the file and the field."""


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}")


def _expect(path: Path, field: str, value: Any, types: Any, what: str) -> None:
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        ok = False  # true is an int to Python, never a seed or a count to a reader
    else:
        ok = isinstance(value, types)
    if not ok:
        raise SummaryShapeError(f"{path}: field {field}: expected {what}, got {_kind(value)} {quoted(value, 60)} "
                                "(a damaged or hand-edited summary: run again with --resume, or `genevals report` "
                                "the folder to see what it holds)")


def check(summary: Mapping[str, Any], path: str | Path) -> None:
    """SummaryShapeError at the first field of ``summary`` (read from ``path``) whose type no reader can use."""
    path = Path(path)
    for field, (types, what) in _TOP.items():
        if field in summary:
            _expect(path, field, summary[field], types, what)
    for kind in ("fail_under", "fail_over"):
        limits = (summary.get("meta") or {}).get(kind)
        if limits is not None:
            _expect(path, f"meta.{kind}", limits, Mapping, "an object (metric -> limit)")
    for system, metrics in (summary.get("systems") or {}).items():
        where = f"systems.{quoted(system, 60)}"
        _expect(path, where, metrics, Mapping, "an object (metric -> its figures)")
        for metric, entry in metrics.items():
            at = f"{where}.{quoted(metric, 60)}"
            _expect(path, at, entry, Mapping, "an object (mean, ci95, scored, ...)")
            for name, (types, what) in _ENTRY.items():
                if name in entry:
                    _expect(path, f"{at}.{name}", entry[name], types, what)
            ci = entry.get("ci95")
            if isinstance(ci, list) and (len(ci) != 2 or not all(isinstance(v, _NUMBER) and not isinstance(v, bool)
                                                                 for v in ci)):
                _expect(path, f"{at}.ci95", ci, (), "a list of two numbers [low, high] or null")
