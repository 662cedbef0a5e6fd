"""Where the detector's confidence means what it says: the domain its calibration was measured in, read from
``detector.json`` (``trained_on`` and the cross-validated scores ``tools/train_grounding.py`` wrote) and from
``cascade_domain.json`` (``benchmarks/bench_cascade_domain.py``: the shipped detector on data unlike its
training data).

The confidence of an answer is :math:`\\max(p, 1 - p)`; the cascade settles an answer locally when it reaches
``settle_confidence``. That is only worth doing where :math:`p` is calibrated: the expected calibration error

.. math::
    \\mathrm{ECE} = \\sum_b \\frac{|B_b|}{n}\\,\\big|\\bar p_b - \\bar y_b\\big|

(ten equal-width bins of :math:`p`) is small on the data the detector was fit on, out of fold, and large on data
unlike it, where settled answers can be less accurate than always saying the majority label. So the cascade
settles locally only for answers the run declares to be of the calibrated domain (its ``domain`` setting); the
rest go to the LLM judge, and the reason below says why.

Reading needs no numpy, so that importing the metrics stays light.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from genevals.grounding.figure import TASK_NAMES, WEIGHTS_PATH

#: the word the cascade's ``domain`` setting takes for the packaged detector's training data (a test checks it is
#: the one :func:`from_records` derives from ``detector.json``; a constant, so that declaring the setting reads no
#: file when genevals starts)
DOMAIN = "ragtruth"
#: the shipped detector measured out of its domain (written by benchmarks/bench_cascade_domain.py)
OUT_OF_DOMAIN_PATH = Path(__file__).with_name("cascade_domain.json")


@dataclass(frozen=True)
class Calibrated:
    """The calibrated domain of the detector, and its calibration error in it and out of it."""

    #: the word the cascade's ``domain`` setting takes for it (the training file's name before ``_``/``.``)
    domain: str
    #: the training file, its rows and the task types they hold
    data: str
    rows: int
    task_types: tuple[str, ...]
    #: ECE of the out-of-fold probability on the training data
    ece_in_domain: float
    #: what was measured out of the domain: ``{data, n, ece, settle_confidence, settled_share,
    #: settled_accuracy, majority_accuracy}`` per data set (the shipped detector as the cascade uses it)
    out_of_domain: tuple[Mapping[str, Any], ...]

    def describe(self) -> str:
        """One sentence: where the calibration holds and what it is worth elsewhere."""
        tasks = ", ".join(TASK_NAMES.get(t, t) for t in self.task_types)
        said = (f"the local detector's confidence was calibrated on {self.data} ({self.rows} answers: {tasks}; "
                f"expected calibration error {self.ece_in_domain:.2f} out of fold)")
        for o in self.out_of_domain:
            said += (f"; on {o['data']} (n={o['n']}, a seeded sample of {o['file']}) its calibration error is "
                     f"{o['ece']:.2f}, and the answers it "
                     f"would settle at confidence {o['settle_confidence']:g} are {o['settled_accuracy']:.0%} right "
                     f"against {o['majority_accuracy']:.0%} for always saying the majority label")
        return said

    def reason(self, declared: str | None) -> str:
        """Why answers of the run's declared ``domain`` are not settled locally on the detector's confidence."""
        what = "no domain is declared" if declared is None else f"the declared domain is {declared!r}"
        return (f"{what}, and {self.describe()}. Declare --set cascade.domain={self.domain} only for answers like "
                f"{self.data}'s")


def from_records(weights: Mapping[str, Any], measured: Mapping[str, Any] | None) -> Calibrated:
    """The calibrated domain from a detector.json document and a cascade_domain.json one (None: not measured)."""
    trained = weights["trained_on"]
    cv = weights["scores"]["cross_validated"]
    data = str(trained["data"])
    domain = data.split("_")[0].split(".")[0].lower()
    digest = model_digest(weights)
    # a figure measured with other weights says nothing about these: left out (and the test says to remeasure)
    found = [o for o in (measured or {}).get("out_of_domain", ()) if o.get("detector_sha256") == digest]
    return Calibrated(domain, data, int(trained["rows"]), tuple(cv["headline"].get("per_task", {})),
                      float(cv["judges"]["detector"]["ece"]), tuple(found))


def model_digest(weights: Mapping[str, Any]) -> str:
    """SHA-256 of the detector's fitted model (its weights, thresholds and rules), as a measurement records it."""
    import hashlib

    return hashlib.sha256(json.dumps(weights["model"], sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=1)
def packaged() -> Calibrated:
    """The packaged detector's calibrated domain."""
    weights = json.loads(Path(WEIGHTS_PATH).read_text(encoding="utf-8"))
    measured = json.loads(OUT_OF_DOMAIN_PATH.read_text(encoding="utf-8")) if OUT_OF_DOMAIN_PATH.exists() else None
    return from_records(weights, measured)
