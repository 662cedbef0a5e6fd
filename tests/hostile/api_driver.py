"""Runs one API case in its own process (forked by :mod:`hostile.forkserver`): evaluates the case's Python
expression with the names below, and writes what happened as JSON for the runner to judge.

Names the expression may use: ``genevals``, ``evaluate`` (``genevals.evaluate``), ``JudgeConfig``, ``ROWS`` (a
fresh copy of the good rows), ``IN`` (the good rows as a JSONL file), ``OUT`` (a folder holding a previous good
run), ``TMP`` (the case's folder), ``M`` (the cheap metrics, a list), ``np``, ``pd``, ``itertools``.
"""
from __future__ import annotations

import copy
import itertools
import json
import os
import traceback
import warnings


def namespace(cwd: str) -> dict:
    import numpy as np
    import pandas as pd

    import genevals
    from hostile.cases import CHEAP, GOOD_ROWS

    return {"genevals": genevals, "evaluate": genevals.evaluate, "JudgeConfig": genevals.JudgeConfig,
            "ROWS": copy.deepcopy(list(GOOD_ROWS)), "IN": os.path.join(cwd, "in.jsonl"),
            "OUT": os.path.join(cwd, "out"), "TMP": cwd, "M": CHEAP.split(","), "np": np, "pd": pd,
            "itertools": itertools}


def run_api(expression: str, result_path: str, cwd: str) -> int:
    """Evaluate ``expression``; record {"kind": "returned", "type", "samples"} or {"kind": "raised", "type",
    "bases", "message", "traceback"}."""
    names = namespace(cwd)
    warnings.simplefilter("always")
    try:
        value = eval(expression, names)
    except BaseException as exc:  # noqa: BLE001 -- every exception is an outcome to judge
        outcome = {"kind": "raised", "type": type(exc).__name__,
                   "bases": [cls.__name__ for cls in type(exc).__mro__],
                   "message": str(exc), "traceback": traceback.format_exc()}
    else:
        outcome = {"kind": "returned", "type": type(value).__name__, "samples": None}
        if hasattr(value, "to_pandas"):
            try:
                outcome["samples"] = len(value.to_pandas())
                json.dumps(value.summary(), allow_nan=False)
            except BaseException as exc:  # noqa: BLE001 -- a result that cannot be read is a failure
                outcome = {"kind": "raised", "type": type(exc).__name__,
                           "bases": [cls.__name__ for cls in type(exc).__mro__],
                           "message": f"reading the returned Results: {exc}", "traceback": traceback.format_exc()}
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(outcome, handle, ensure_ascii=True)
    return 0
