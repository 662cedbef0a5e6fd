"""The shipped calibrations and validation cards of the offline triad judges.

``triad_calibration.json`` beside this module is written by ``benchmarks/bench_triad.py`` and by nothing else:
for each judge, a logistic regression over the features of :mod:`genevals.metrics.triad.triad_features`,

.. math::
    p = \\sigma\\Big(b + \\sum_j w_j x_j\\Big), \\qquad \\sigma(z) = \\frac{1}{1 + e^{-z}},

fit on the development halves of public human-labelled sets, the decision threshold on p where the judge gives
a binary verdict, and its **validation card**: out-of-fold ROC AUC (and F1 at the threshold) from nested
cross-validation grouped by question (the feature set and coefficients chosen inside each training fold; the
shipped weights give the features the selection on all rows left out 0), with a 95% CI from a bootstrap over
questions, beside the best trivial baseline on the same rows, and whether the judge beats it, is level with it
or is worse than it (the paired CI of the difference above, covering or below 0). No figure here is typed by
hand.
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

PATH = Path(__file__).with_name("triad_calibration.json")
#: figures measured out of sample on data the repository does not hold (each with its source); added to the
#: card as ``held_out`` so that every place a card is shown says what they say
HELD_OUT_PATH = Path(__file__).with_name("triad_held_out.json")


@dataclass(frozen=True)
class Calibration:
    """One judge's fitted logistic regression (weights on the raw features) and decision threshold."""

    judge: str
    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    threshold: float | None
    tag: str

    def probability(self, row: Sequence[float]) -> float:
        z = self.intercept + sum(w * x for w, x in zip(self.weights, row))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


@functools.lru_cache(maxsize=None)
def _document() -> dict[str, Any]:
    return json.loads(PATH.read_text(encoding="utf-8"))


def calibration(judge: str, features: Sequence[str]) -> Calibration:
    """The shipped calibration of ``judge``; ``features`` are the names the code computes, which must be the
    ones the weights were fit on (a stale file is an error, not a silent misreading)."""
    entry = _document()["judges"][judge]
    if tuple(entry["features"]) != tuple(features):
        raise RuntimeError(f"{PATH.name}: {judge} was fit on features {entry['features']}, the code computes "
                           f"{list(features)}; rerun benchmarks/bench_triad.py")
    return Calibration(judge, tuple(entry["features"]), tuple(float(w) for w in entry["weights"]),
                       float(entry["intercept"]), entry.get("threshold"), entry["tag"])


@functools.lru_cache(maxsize=None)
def _held_out() -> dict[str, Any]:
    return json.loads(HELD_OUT_PATH.read_text(encoding="utf-8"))["judges"]


def held_out(judge: str) -> list[dict[str, Any]]:
    """The held-out figures of ``judge`` (:data:`HELD_OUT_PATH`); [] when there are none."""
    return list(_held_out().get(judge, []))


def card(judge: str) -> dict[str, Any] | None:
    """The validation card of ``judge`` (None when none is shipped): the development card ``bench_triad.py``
    wrote, with the held-out figures beside it (``held_out``) where there are any, which overrule it."""
    entry = _document().get("judges", {}).get(judge)
    if not entry:
        return None
    found = held_out(judge)
    return {**entry["card"], "held_out": found} if found else entry["card"]
