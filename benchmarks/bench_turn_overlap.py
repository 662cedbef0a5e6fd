"""Fit and card ``turn_overlap`` (a conversation turn's word overlap with its contexts) on BEGIN's people's labels,
beside the local grounding detector on the same rows (issue 52, point 17).

    genevals validate ../shared/datasets/conversations/ --judge local -o /tmp/begin-detector
    python benchmarks/bench_turn_overlap.py --detector /tmp/begin-detector/predictions.jsonl [--write]

Data: BEGIN's development split (``DATA/conversations/begin_dev_*.tsv``; its README), each row read as
``genevals validate`` reads it (:func:`genevals.validation.begin.to_sample`); Generic responses left out, the
positive class *not attributable*. The detector's verdicts come from the ``validate`` run above (the detector as
``grounding`` ships; ``--write`` stores its per-row status, score and verdict in
``tests/metrics/faithfulness/testdata/begin_detector.json`` so a test recomputes the card without the encoder).

On the rows the detector scored (the comparison is paired): the rule's out-of-fold verdict (its cut chosen for
balanced accuracy inside each of 5 training folds grouped by knowledge snippet,
:func:`genevals.validation.begin_card.overlap_predictions`), its AUC and balanced accuracy with 95% cluster
bootstrap intervals over snippets, beside always-the-majority and beside the detector, with the paired interval
of the difference. The shipped threshold is the cut chosen the same way on all rows. ``--write`` writes
``genevals/metrics/faithfulness/turn_overlap.json``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from genevals.metrics.faithfulness import turn_overlap as rule  # noqa: E402
from genevals.stats import DEFAULT_RESAMPLES, DEFAULT_SEED  # noqa: E402
from genevals.validation import begin_card as bc  # noqa: E402
from genevals.validation.begin import files, load_begin, to_sample  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FOLDER = "conversations"
DETECTOR_PATH = REPO / "tests" / "metrics" / "faithfulness" / "testdata" / "begin_detector.json"
DATA_NAME = "BEGIN dev (Generic left out)"
MODEL = "the local grounding detector (grounding)"


def begin_rows(data: Path) -> tuple[list[dict], dict[str, str]]:
    """BEGIN's rows, and each file's SHA-256 by name."""
    paths = files(data / FOLDER)
    return ([r for p in paths for r in load_begin(p)],
            {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths})


def overlaps(rows: list[dict]) -> np.ndarray:
    """The rule's statistic of each row, computed on the sample ``validate`` and a run make of it."""
    out = []
    for row in rows:
        sample = to_sample(row)
        out.append(rule.turn_overlap(sample.answer, [c.text for c in sample.contexts]))
    return np.array(out)


def detector_document(predictions: Path, signature: str | None = None) -> dict:
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {"source": "genevals validate ../shared/datasets/conversations/ --judge local (predictions.jsonl)",
            "signature": signature, "columns": ["id", "status", "score", "predicted_not_attributable"],
            "rows": [[r["id"], r["status"], r["score"], r["predicted_not_attributable"]] for r in rows]}


def _ci(values: list[float]) -> list[float]:
    return [round(float(np.percentile(values, 2.5)), 4), round(float(np.percentile(values, 97.5)), 4)]


def _verdict(ci: list[float]) -> str:
    return "beats" if ci[0] > 0 else "worse than" if ci[1] < 0 else "level with"


def card(rows: list[dict], digests: dict[str, str], detector: dict, seed: int = DEFAULT_SEED,
         resamples: int = DEFAULT_RESAMPLES) -> dict:
    """The shipped threshold and the card, from BEGIN's rows and the detector's per-row verdicts."""
    found = {r[0]: r for r in detector["rows"]}
    labelled = [r for r in rows if r["attributable"] is not None]
    values_all = overlaps(labelled)
    gold_all = np.array([not r["attributable"] for r in labelled])
    threshold = bc._best_cut(values_all, gold_all)  # shipped: the cut chosen on all labelled rows
    keep = [i for i, r in enumerate(labelled) if found[r["id"]][1] == "ok"]  # the rows the detector scored
    values, gold = values_all[keep], gold_all[keep]
    groups = [labelled[i]["group"] for i in keep]
    det_pred = np.array([bool(found[labelled[i]["id"]][3]) for i in keep])
    det_score = np.array([float(found[labelled[i]["id"]][2]) for i in keep])
    pred = bc.overlap_predictions(values, gold, groups)
    score = 1.0 - values
    draws = {"auc": [], "ba": [], "det_ba": [], "diff": []}
    for idx in bc._cluster_draws(groups, seed, resamples):
        a, b, d = bc.auc(score[idx], gold[idx]), bc.balanced_accuracy(pred[idx], gold[idx]), \
            bc.balanced_accuracy(det_pred[idx], gold[idx])
        if a is None or b is None or d is None:
            continue
        draws["auc"].append(a)
        draws["ba"].append(b)
        draws["det_ba"].append(d)
        draws["diff"].append(b - d)
    auc, ba = bc.auc(score, gold), bc.balanced_accuracy(pred, gold)
    det_ba = bc.balanced_accuracy(det_pred, gold)
    auc_ci, ba_ci = _ci(draws["auc"]), _ci(draws["ba"])
    auc_diff = [round(x - 0.5, 4) for x in auc_ci]
    ba_diff = [round(x - 0.5, 4) for x in ba_ci]
    diff_ci = _ci(draws["diff"])
    evaluation = {
        "data": DATA_NAME, "target": "turn not attributable", "n": int(len(gold)), "groups": len(set(groups)),
        "positives": int(gold.sum()), "coverage": 1.0, "sha256": digests,
        "auc": {"value": round(auc, 4), "ci": auc_ci}, "baselines": {"always the majority": 0.5},
        "best_baseline": {"name": "always the majority", "auc": 0.5,
                          "difference": {"value": round(auc - 0.5, 4), "ci": auc_diff}},
        "beats_baseline": auc_diff[0] > 0, "versus_baseline": _verdict(auc_diff),
        "balanced_accuracy": {"value": round(ba, 4), "ci": ba_ci},
        "balanced_accuracy_baseline": {"name": "always the majority", "value": 0.5, "difference_ci": ba_diff},
        "balanced_accuracy_versus_baseline": _verdict(ba_diff),
        "versus_model": {"name": MODEL, "figure": "balanced accuracy",
                         "value": round(det_ba, 4), "ci": _ci(draws["det_ba"]),
                         "difference": {"value": round(ba - det_ba, 4), "ci": diff_ci},
                         "verdict": _verdict(diff_ci)},
        "fold_thresholds": _fold_cuts(values, gold, groups),
    }
    method = ("the turn's content-word overlap with its contexts, not attributable below a cut chosen for balanced "
              f"accuracy inside each of {bc.FOLDS} training folds grouped by knowledge snippet; out-of-fold "
              "figures on the rows the detector scored; 95% CI: cluster bootstrap over knowledge snippets "
              f"({resamples} resamples, seed {seed}), paired for the difference to the detector; positive: not "
              "attributable")
    return {"threshold": round(float(threshold), 4),
            "card": {"judge": "turn_overlap", "method": method, "evaluations": [evaluation]}}


def _fold_cuts(values: np.ndarray, gold: np.ndarray, groups: list[str]) -> list[float]:
    folds = bc._fold_of(groups)
    cuts = [bc._best_cut(values[folds != k], gold[folds != k]) for k in range(bc.FOLDS)]
    return [round(float(min(cuts)), 4), round(float(max(cuts)), 4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--detector", type=Path, default=None,
                        help="predictions.jsonl of `genevals validate BEGIN --judge local` (default: the stored rows)")
    parser.add_argument("--write", action="store_true", help=f"write {rule.PATH.relative_to(REPO)}")
    args = parser.parse_args()
    start, load = time.perf_counter(), os.getloadavg()
    rows, digests = begin_rows(args.data)
    if args.detector:
        report = json.loads(args.detector.with_name("validation.json").read_text(encoding="utf-8"))
        detector = detector_document(args.detector, report.get("metric_signature"))
    else:
        detector = json.loads(DETECTOR_PATH.read_text(encoding="utf-8"))
    doc = {"generated_by": "benchmarks/bench_turn_overlap.py", **card(rows, digests, detector)}
    if args.write:
        DETECTOR_PATH.parent.mkdir(parents=True, exist_ok=True)
        DETECTOR_PATH.write_text(json.dumps(detector, separators=(",", ":")) + "\n", encoding="utf-8")
        rule.PATH.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(doc, indent=1))
    print(f"Machine: {os.cpu_count()} CPUs; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{time.perf_counter() - start:.0f} s wall.")


if __name__ == "__main__":
    main()
