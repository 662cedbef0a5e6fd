"""Calibrate and card the offline citation checker (``citations_local``) on expert attribution labels.

    python benchmarks/bench_citations.py [--data ../shared/datasets] [--embedding-cache /tmp/eqa.npz] [--write]

Data: ``DATA/attribution/expertqa_citations_dev.jsonl`` (ExpertQA, MIT; its README describes it): one claim, the
evidence it cites and the expert's verdict; the positive class is *not supported* (what the checker should flag).

1. **Features** (:mod:`genevals.metrics.citations.citation_features`) of each (claim, evidence) check, computed by
   the grounding checker as ``citations_local`` computes them, and the word overlap of claim and evidence.
   ``--write`` stores them, with the file's SHA-256, in ``tests/metrics/citations/testdata/expertqa_features.json``
   (ids and numbers only), so that a test recomputes the card without the encoder and re-derives a sample of
   the features through the real code.
2. **The card** (:func:`card`, from those features alone): a logistic regression on a feature set, with its
   feature set, coefficients and F1-optimal threshold chosen inside each training fold (:mod:`nested_cv`), 5
   folds grouped by question; out-of-fold ROC AUC, F1 at the fold's threshold and balanced accuracy, each with a
   95% CI over questions, beside the best trivial baseline on the same folds (word overlap, cut at a threshold
   chosen on the training folds; flagging every citation; claim or evidence length) and the paired CI of the
   difference. The checker as it shipped before (the rule verdict, RAGTruth thresholds) is measured too.
3. **The shipped calibration**: the same selection run on all rows, written with the card into
   ``genevals/metrics/citations/citations_calibration.json`` (``--write``).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import nested_cv as cv  # noqa: E402

from genevals.metrics.citations import calibration as cal  # noqa: E402
from genevals.metrics.citations.citation_features import FEATURES, features, word_overlap  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FILE = "attribution/expertqa_citations_dev.jsonl"
FEATURES_PATH = REPO / "tests" / "metrics" / "citations" / "testdata" / "expertqa_features.json"
#: the feature sets the nested selection chooses among (inside each training fold)
CANDIDATES = {"support score": ("support_score",),
              "alignment": ("similarity", "recall_top", "recall_all"),
              "alignment and rules": ("similarity", "recall_top", "recall_all", "missing_number", "number_conflict",
                                      "missing_names", "rule_supported"),
              "every feature": FEATURES}
DATA_NAME = "ExpertQA dev"
SOURCE = ("derived from ExpertQA (Malaviya et al., NAACL 2024), MIT License, Copyright (c) 2023 Chaitanya "
          "Malaviya; ids and numbers only (../shared/datasets/attribution/README.md)")
#: the default rule's support threshold for text contexts (genevals/grounding/thresholds.json), for the card
RULE_THRESHOLD = 0.44
TARGET = "citation not supported"


# -- features (needs the encoder) ---------------------------------------------------------------------------
def records(data: Path) -> list[dict]:
    return [json.loads(line) for line in (data / FILE).read_text(encoding="utf-8").splitlines() if line.strip()]


def checks(rows: list[dict]) -> list[tuple[str, list[str]]]:
    """(cited text, the contexts it cites) of each row: the file pins each claim as one citation of context 1."""
    out = []
    for r in rows:
        c = r["citations"][0]
        out.append((c["text"], [r["context"][int(k) - 1] for k in c["contexts"]]))
    return out


def feature_rows(rows: list[dict]) -> list[list[float] | None]:
    """Each row's :data:`FEATURES` through the checker (None: it could not check the row)."""
    from genevals.grounding import checker

    asked = checks(rows)
    found = checker.featurize([(claim, contexts, "") for claim, contexts in asked])
    thresholds = checker.load_thresholds()
    return [features(f, thresholds, claim, contexts) for f, (claim, contexts) in zip(found, asked)]


def feature_document(data: Path) -> dict:
    rows = records(data)
    feats = feature_rows(rows)
    overlap = [word_overlap(claim, contexts) for claim, contexts in checks(rows)]
    digest = hashlib.sha256((data / FILE).read_bytes()).hexdigest()
    return {"file": FILE, "sha256": digest, "source": SOURCE, "features": list(FEATURES),
            "columns": ["id", "question_id", "not_supported", "word_overlap", "features"],
            "rows": [[r["id"], r["question_id"], not r["citation_labels"][0]["supported"], round(o, 6),
                      None if f is None else [round(v, 6) for v in f]] for r, o, f in zip(rows, overlap, feats)]}


# -- the card (features only) -------------------------------------------------------------------------------
def _fmt(groups: np.ndarray, stat) -> dict:
    return {"value": round(float(stat(np.arange(len(groups)))), 4), "ci": cv.ci(cv.bootstrap(groups, stat))}


def _paired(groups: np.ndarray, a, b) -> list[float]:
    boot = cv.bootstrap(groups, lambda i: a(i) - b(i))
    return cv.ci(boot)


def evaluation(data: str, y: np.ndarray, groups: np.ndarray, p: np.ndarray, verdict: np.ndarray, threshold: float,
               trivial: dict, coverage: float, digest: str) -> dict:
    """One card entry: the judge's AUC (of ``p``), F1 and balanced accuracy (of ``verdict``), each beside the best
    trivial baseline on the same folds with the paired CI of the difference."""
    auc_table = {name: round(cv.auc(y, t["score"]), 4) for name, t in trivial.items()}
    best = max(auc_table, key=auc_table.get)
    auc_diff = _paired(groups, lambda i: cv.auc(y[i], p[i]), lambda i: cv.auc(y[i], trivial[best]["score"][i]))
    verdicts = {"word overlap below a threshold": trivial["word overlap"]["verdict"],
                "flag every citation": np.ones(len(y), dtype=bool)}
    f1_table = {name: cv.f1(v, y) for name, v in verdicts.items()}
    f1_best = max(f1_table, key=f1_table.get)
    ba_table = {name: cv.balanced_accuracy(v, y) for name, v in verdicts.items()}
    ba_best = max(ba_table, key=ba_table.get)

    def f1_of(v):
        return lambda i: cv.f1(v[i], y[i])

    def ba_of(v):
        return lambda i: cv.balanced_accuracy(v[i], y[i])

    f1_diff = _paired(groups, f1_of(verdict), f1_of(verdicts[f1_best]))
    ba_diff = _paired(groups, ba_of(verdict), ba_of(verdicts[ba_best]))
    # every trivial rule on its own, not only the best by its point value (issue 52: the checker may be level with
    # the best and yet worse than another, and the warning says "worse than" where an interval says so)
    f1_each = {name: _paired(groups, f1_of(verdict), f1_of(v)) for name, v in verdicts.items()}
    ba_each = {name: _paired(groups, ba_of(verdict), ba_of(v)) for name, v in verdicts.items()}
    return {
        "data": data, "target": TARGET, "n": int(len(y)), "groups": int(len(np.unique(groups))),
        "positives": int(y.sum()), "coverage": round(coverage, 4), "sha256": digest,
        "auc": _fmt(groups, lambda i: cv.auc(y[i], p[i])), "baselines": auc_table,
        "best_baseline": {"name": best, "auc": auc_table[best],
                          "difference": {"value": round(cv.auc(y, p) - auc_table[best], 4), "ci": auc_diff}},
        "beats_baseline": cv.verdict_of(auc_diff) == "beats", "versus_baseline": cv.verdict_of(auc_diff),
        "f1": {**_fmt(groups, f1_of(verdict)), "threshold": round(threshold, 4),
               "precision": round(float(y[verdict].mean()) if verdict.any() else 0.0, 4),
               "recall": round(float(verdict[y].mean()), 4), "share_flagged": round(float(verdict.mean()), 4)},
        "f1_baseline": {"name": f1_best, "value": round(f1_table[f1_best], 4), "difference_ci": f1_diff,
                        "all": {k: round(v, 4) for k, v in f1_table.items()}},
        "f1_beats_baseline": cv.verdict_of(f1_diff) == "beats", "f1_versus_baseline": cv.verdict_of(f1_diff),
        "balanced_accuracy": _fmt(groups, ba_of(verdict)),
        "balanced_accuracy_baseline": {"name": ba_best, "value": round(ba_table[ba_best], 4),
                                       "difference_ci": ba_diff},
        "balanced_accuracy_versus_baseline": cv.verdict_of(ba_diff),
        "versus_each_rule": {name: {"f1": round(f1_table[name], 4), "f1_difference_ci": f1_each[name],
                                    "f1_versus": cv.verdict_of(f1_each[name]),
                                    "balanced_accuracy": round(ba_table[name], 4),
                                    "balanced_accuracy_difference_ci": ba_each[name],
                                    "balanced_accuracy_versus": cv.verdict_of(ba_each[name])}
                             for name in verdicts},
    }


def card(doc: dict) -> dict:
    """The validation card and the shipped calibration, computed from :func:`feature_document`'s output."""
    rows = doc["rows"]
    scored = [r for r in rows if r[4] is not None]
    y = np.array([bool(r[2]) for r in scored])
    groups = np.array([r[1] for r in scored])
    x = np.array([r[4] for r in scored], dtype=float)
    overlap = np.array([r[3] for r in scored], dtype=float)
    col = {name: i for i, name in enumerate(doc["features"])}
    candidates = {name: [col[f] for f in feats] for name, feats in CANDIDATES.items()}
    coverage = len(scored) / len(rows)
    # trivial scores: a low word overlap, a short or long claim or evidence (each oriented on the training folds)
    trivial = {"word overlap": cv.baseline_oof(overlap, y, groups),
               "claim length": cv.baseline_oof(x[:, col["log_claim_words"]], y, groups),
               "evidence length": cv.baseline_oof(x[:, col["log_context_words"]], y, groups)}

    # the checker as it ships by default: nothing is fit here. It flags by its rule verdict; its ranking puts
    # every flagged citation first, then the least supported (so AUC and verdict tell the same story)
    flagged = x[:, col["rule_supported"]] == 0
    doubt = flagged + (1.0 - x[:, col["support_score"]])
    rule = evaluation(DATA_NAME + ": the default rule verdict (RAGTruth thresholds, not fit here)", y, groups,
                      doubt, flagged, RULE_THRESHOLD, trivial, coverage, doc["sha256"])
    rule["reference_auc"] = {"the support score alone": round(cv.auc(y, -x[:, col["support_score"]]), 4)}

    judge = cv.nested(x, y, groups, candidates, threshold="f1")
    ship = cv.select(x, y, groups, candidates, False, "f1", cv.SEED)
    fitted = evaluation(DATA_NAME + ": calibrated on these labels (calibration=expertqa)", y, groups,
                        judge["probability"], judge["verdict"], ship["threshold"], trivial, coverage, doc["sha256"])
    thresholds = [c["threshold"] for c in judge["chosen"]]
    fitted["f1"]["fold_thresholds"] = [round(min(thresholds), 4), round(max(thresholds), 4)]
    fitted["fold_choices"] = [{"features": c["features"], "threshold": round(c["threshold"], 4)}
                              for c in judge["chosen"]]
    method = (f"default: the checker's rule verdict, fixed before (nothing fit on these labels); calibration=expertqa: "
              f"logistic regression on the checker's features, the feature set (of {len(CANDIDATES)}), coefficients "
              f"and F1-best threshold chosen inside each training fold; out-of-fold figures from {cv.FOLDS}-fold "
              f"cross-validation grouped by question ({cv.INNER}-fold inner selection), baselines' orientation and "
              f"threshold chosen on the same training folds; 95% CI: bootstrap over questions, paired for "
              f"differences; positive: not supported")
    names = [doc["features"][i] for i in ship["columns"]]
    return {"features": names, "feature_set": ship["name"],
            "weights": [round(float(v), 6) for v in ship["weights"]], "intercept": round(ship["intercept"], 6),
            "threshold": round(ship["threshold"], 4),
            "card": {"judge": "citations_local", "method": method, "evaluations": [rule, fitted]}}


# -- report -------------------------------------------------------------------------------------------------
def fmt(d: dict) -> str:
    return f"{d['value']:.3f} [{d['ci'][0]:.3f}, {d['ci'][1]:.3f}]"


def markdown(entry: dict) -> list[str]:
    ci = lambda v: f"[{v[0]:+.3f}, {v[1]:+.3f}]"  # noqa: E731
    lines = [f"{entry['card']['method']}.", "",
             "| checker | figure | value [95% CI] | best trivial baseline | its value | difference [95% CI] | "
             "verdict |", "|---|---|---:|---|---:|---:|---|"]
    for e in entry["card"]["evaluations"]:
        who = e["data"].split(": ", 1)[1]
        b, fb, bb = e["best_baseline"], e["f1_baseline"], e["balanced_accuracy_baseline"]
        lines += [f"| {who} | AUC | {fmt(e['auc'])} | {b['name']} | {b['auc']:.3f} | {ci(b['difference']['ci'])} | "
                  f"{e['versus_baseline']} |",
                  f"| | F1 (not supported) | {fmt(e['f1'])} | {fb['name']} | {fb['value']:.3f} | "
                  f"{ci(fb['difference_ci'])} | {e['f1_versus_baseline']} |",
                  f"| | balanced accuracy | {fmt(e['balanced_accuracy'])} | {bb['name']} | {bb['value']:.3f} | "
                  f"{ci(bb['difference_ci'])} | {e['balanced_accuracy_versus_baseline']} |"]
    lines.append("")
    for e in entry["card"]["evaluations"]:
        lines.append(f"- {e['data']}: n = {e['n']} citations over {e['groups']} questions, {e['positives']} not "
                     f"supported, coverage {e['coverage']:.1%}; precision {e['f1']['precision']:.3f}, recall "
                     f"{e['f1']['recall']:.3f}, {e['f1']['share_flagged']:.1%} flagged; AUC baselines: "
                     + ", ".join(f"{k} {v:.3f}" for k, v in {**e['baselines'], **e.get('reference_auc', {})}.items())
                     + "; F1 baselines: " + ", ".join(f"{k} {v:.3f}" for k, v in e["f1_baseline"]["all"].items())
                     + ".")
    e = entry["card"]["evaluations"][1]
    lines += ["- Calibrated, per fold: " + "; ".join(f"{c['features']} @ {c['threshold']:.3f}"
                                                     for c in e["fold_choices"])
              + f". Shipped (the selection on all rows): '{entry['feature_set']}' ({', '.join(entry['features'])}), "
              f"threshold {entry['threshold']:.3f}.", ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--embedding-cache", type=Path, default=None)
    parser.add_argument("--features", type=Path, default=None, help="reuse a features file instead of the encoder")
    parser.add_argument("--write", action="store_true", help=f"write {cal.PATH.relative_to(REPO)} and the features")
    args = parser.parse_args()
    start, load = time.perf_counter(), os.getloadavg()
    if args.features:
        doc = json.loads(args.features.read_text(encoding="utf-8"))
    else:
        from bench_triad import load_cache, save_cache

        load_cache(args.embedding_cache)
        doc = feature_document(args.data)
        save_cache(args.embedding_cache)
    entry = card(doc)
    fitted = json.dumps([entry["features"], entry["weights"], entry["intercept"], entry["threshold"]])
    entry["tag"] = hashlib.sha256(fitted.encode()).hexdigest()[:8]
    if args.write:
        FEATURES_PATH.parent.mkdir(parents=True, exist_ok=True)
        FEATURES_PATH.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
        out = {"generated_by": "benchmarks/bench_citations.py", "judges": {"citations_local": entry}}
        cal.PATH.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print("\n".join(markdown(entry)))
    print(f"Machine: {os.cpu_count()} CPUs; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{time.perf_counter() - start:.0f} s wall.")


if __name__ == "__main__":
    main()
