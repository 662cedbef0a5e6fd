"""The offline detector's out-of-sample figure as genevals shows it: read from ``detector.json`` (where
``tools/train_grounding.py`` wrote it, see :mod:`genevals.grounding.accuracy`), worded in one place.

Reading and wording the figure needs no numpy, so that importing the metrics (``genevals --help``) stays light.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

TASK_NAMES = {"QA": "question answering", "Summary": "summaries", "Data2txt": "data-to-text"}
JUDGE, BASELINE = "detector", "word_overlap"  # the judge shown and its baseline, as stored
#: the packaged weights file, detector.WEIGHTS_PATH (not imported from there: detector.py loads numpy)
WEIGHTS_PATH = Path(__file__).with_name("detector.json")


@dataclass(frozen=True)
class Figure:
    """The stored headline: data, n, sources, folds and the two judges' F1 with CIs and their difference."""

    data: str
    folds: int
    grouped_by: str
    headline: Mapping[str, Any]

    @property
    def tie(self) -> bool:
        return bool(self.headline["tie"])

    def sentence(self) -> str:
        """One plain sentence: the figure as genevals shows it in full (:meth:`brief` is its terminal clause)."""
        h = self.headline
        j, b, d = h[JUDGE], h[BASELINE], h["difference"]
        ties = [TASK_NAMES[t] for t, r in h.get("per_task", {}).items() if r["tie"]]
        where = ("a tie overall" + (f" and on {_join(ties)}" if ties else "")) if self.tie else \
            ("better than word overlap" if d["ci95"][0] > 0 else "worse than word overlap")  # the CI's side of 0
        return (f"Out of sample (grouped {self.folds}-fold cross-validation by {self.grouped_by.replace('_', ' ')}) "
                f"on {h['n']} RAGTruth answers from {h['sources']} sources, it scores answer-level F1 "
                f"{_f(j['f1'])} [95% CI {_f(j['ci95'][0])}, {_f(j['ci95'][1])}], against {_f(b['f1'])} "
                f"[{_f(b['ci95'][0])}, {_f(b['ci95'][1])}] for the word-overlap baseline on the same folds: "
                f"{where} (difference {d['diff']:+.3f}, 95% CI [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}])")


    def brief(self) -> str:
        """The figure as a terminal note gives it: "out of sample: F1 0.727, no better than word overlap's 0.729"
        (the difference's CI says which of no better, better or worse); :meth:`sentence` says how it was measured."""
        h = self.headline
        d = h["difference"]["ci95"]
        how = "no better than" if self.tie else "better than" if d[0] > 0 else "worse than"
        return f"out of sample: F1 {_f(h[JUDGE]['f1'])}, {how} word overlap's {_f(h[BASELINE]['f1'])}"


def _f(x: float) -> str:
    return f"{x:.3f}"


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def from_record(data: Mapping[str, Any]) -> Figure:
    """The figure from a detector.json document (ValueError when it has none)."""
    try:
        cv = data["scores"]["cross_validated"]
        return Figure(str(data["scores"]["data"]), int(cv["folds"]), str(cv["grouped_by"]), cv["headline"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"detector weights hold no out-of-fold headline ({exc})") from None


@lru_cache(maxsize=1)
def in_sample_note(path: str | Path) -> str | None:
    """A sentence when ``path`` is the very file the packaged detector was trained on (its SHA-256 matches the
    one ``detector.json`` records): its agreement there is in-sample and overstates the detector."""
    import hashlib

    trained = json.loads(Path(WEIGHTS_PATH).read_text(encoding="utf-8")).get("trained_on") or {}
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    if digest.hexdigest() != trained.get("sha256"):
        return None
    return (f"{Path(path).name} is the data the local detector was trained on ({trained.get('data')}, "
            f"{trained.get('rows')} rows): its agreement here is in-sample and overstates it. "
            + packaged().sentence() + ".")


def packaged() -> Figure:
    """The packaged detector's figure (from ``genevals/grounding/detector.json``)."""
    return from_record(json.loads(Path(WEIGHTS_PATH).read_text(encoding="utf-8")))
