"""The offline citation checker's calibration and validation card, measured on expert attribution labels.

``citations_calibration.json`` beside this module is written by ``benchmarks/bench_citations.py`` and by nothing
else: a logistic regression over :mod:`genevals.metrics.citations.citation_features`,

.. math::
    p(\\text{not supported}) = \\sigma\\Big(b + \\sum_j w_j x_j\\Big),

its feature set, coefficients and threshold chosen on ExpertQA's expert labels (the selection run on all rows),
and the **validation card**: out-of-fold ROC AUC, F1 at the threshold and balanced accuracy from cross-validation
grouped by question, every choice made inside each training fold, with 95% CIs over questions, beside the best
trivial baseline on the same folds and the paired CI of the difference. No figure here is typed by hand.

:func:`caveat` turns the card into the one line every run that uses the checker shows when it does not beat
its baseline.
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

PATH = Path(__file__).with_name("citations_calibration.json")
#: ``citations_local``'s ``calibration`` setting: the rule verdict, or the model fit on ExpertQA; the card's
#: evaluations are in this order
MODES = ("rule", "expertqa")


@dataclass(frozen=True)
class Model:
    """The shipped logistic model: weights on the named features (of :data:`FEATURES`), a threshold on p."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    threshold: float
    tag: str

    def probability(self, row: Sequence[float]) -> float:
        """p(not supported) of one row of every :data:`FEATURES`, in their order."""
        from genevals.metrics.citations.citation_features import FEATURES

        z = self.intercept + sum(w * row[FEATURES.index(name)] for w, name in zip(self.weights, self.features))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


@functools.lru_cache(maxsize=None)
def _document() -> dict[str, Any]:
    return json.loads(PATH.read_text(encoding="utf-8"))


def entry(judge: str = "citations_local") -> dict[str, Any]:
    return _document()["judges"][judge]


def model(judge: str = "citations_local") -> Model:
    """The shipped calibration of ``judge``; a feature the code no longer computes is an error, not a misreading."""
    from genevals.metrics.citations.citation_features import FEATURES

    e = entry(judge)
    unknown = [f for f in e["features"] if f not in FEATURES]
    if unknown:
        raise RuntimeError(f"{PATH.name}: {judge} was fit on features {unknown} the code does not compute; rerun "
                           "benchmarks/bench_citations.py")
    return Model(tuple(e["features"]), tuple(float(w) for w in e["weights"]), float(e["intercept"]),
                 float(e["threshold"]), e["tag"])


def card(judge: str = "citations_local") -> dict[str, Any] | None:
    """The validation card of ``judge`` (None when none is shipped)."""
    found = _document().get("judges", {}).get(judge)
    return found.get("card") if found else None


def beaten_by(mode: str = "rule", judge: str = "citations_local") -> list[str]:
    """The trivial rules the card says ``judge`` (in ``mode``) is worse than, on F1 or balanced accuracy (the
    paired CI of the difference below 0), on people's labels. Where there is one, that rule, not the checker,
    should be the offline default (issue 52; ``tests/metrics/citations/test_offline_choice.py`` holds the
    shipped choice to this)."""
    found = card(judge)
    if not found:
        return []
    e = found["evaluations"][MODES.index(mode)]
    return [name for name, v in e.get("versus_each_rule", {}).items()
            if "worse than" in (v["f1_versus"], v["balanced_accuracy_versus"])]


def caveat(mode: str = "rule", judge: str = "citations_local") -> str | None:
    """One line for every run that uses ``judge`` (in ``mode``, one of :data:`MODES`) when its card says it does
    not beat the best trivial baseline on F1 (its verdicts are what the citation metrics count), naming both
    figures; "worse than" (naming that rule) where the paired CI against any trivial rule, on F1 or balanced
    accuracy, lies below 0, else "no better than"; None when it beats them."""
    found = card(judge)
    if not found:
        return None
    e = found["evaluations"][MODES.index(mode)]
    name = judge if mode == "rule" else f"{judge} (calibration={mode})"
    data = e["data"].split(":")[0].split(" (")[0]
    each = e.get("versus_each_rule", {})
    worse = [(rule, figure) for rule, v in each.items() for figure in ("f1", "balanced_accuracy")
             if v[f"{figure}_versus"] == "worse than"]
    # the first line is the terminal's (genevals.lifecycle.messages.MAX_LINE); the second, the details
    if worse:
        said = []
        for rule, figure in worse:
            v, mine = each[rule], e[figure]["value"]
            lo, hi = v[f"{figure}_difference_ci"]
            label = "F1" if figure == "f1" else "balanced accuracy"
            said.append(f"{label} {mine:.2f} vs {v[figure]:.2f} for '{rule}', difference CI [{lo:+.2f}, {hi:+.2f}]")
        return (f"{name} is worse than a trivial rule on {data} expert labels ('{worse[0][0]}'); a screen; "
                f"the LLM judge: citations\nMeasured on {data} expert labels: {'; '.join(said)}.")
    if e.get("f1_versus_baseline", "beats") == "beats":
        return None
    base = e["f1_baseline"]
    how = {"level with": "no better than", "worse than": "worse than"}[e["f1_versus_baseline"]]
    return (f"{name} is {how} '{base['name']}' on expert labels (F1 {e['f1']['value']:.2f} vs {base['value']:.2f}); "
            "a screen; the LLM judge: citations\n"
            f"Measured on {data} expert labels: F1 {e['f1']['value']:.2f} against {base['value']:.2f} for "
            f"'{base['name']}', difference CI [{base['difference_ci'][0]:+.2f}, {base['difference_ci'][1]:+.2f}].")
