"""Calibrate the grounding checker's thresholds on RAGTruth dev (response-level F1) and report honest figures.

    python tools/calibrate_grounding.py ../shared/datasets/ragtruth_dev.jsonl \
        [--out genevals/grounding/thresholds.json] [--folds 5] [--cache /tmp/grounding_features.pkl]

For each context kind ("record" = JSON contexts, "text" = everything else) it grid-searches the support-score
weights (w_sim, w_top, w_all), the threshold, and which rules are on (numbers, names, record fields; minimum
missing names), by coordinate ascent on the pooled response-level F1 (a response is predicted hallucinated
when any of its claims is not supported).

Honesty: the in-sample optimum is optimistic. The script also runs grouped k-fold cross-validation (folds by
``source_id``, so the ~6 responses written from one source never straddle train and test): thresholds are
fitted on k-1 folds and applied to the held-out fold, and the pooled out-of-fold F1 is what to quote. The
trivial baselines (everything hallucinated; hallucinated iff the context is a JSON record) are printed and
saved next to it. Only the dev file is ever read.
"""
from __future__ import annotations

import argparse
import itertools
import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from genevals.grounding import checker
from genevals.stats.agreement import agreement_cis, binary_metrics, confusion

WEIGHTS = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.5, 0.0), (0.5, 0.0, 0.5), (0.0, 0.5, 0.5),
           (0.5, 0.25, 0.25), (0.25, 0.5, 0.25), (0.25, 0.25, 0.5), (0.34, 0.33, 0.33), (0.75, 0.25, 0.0),
           (0.75, 0.0, 0.25)]
THRESHOLDS = np.round(np.arange(0.20, 1.001, 0.01), 2)
RULES = [dict(zip(("numbers", "entities", "fields"), flags)) for flags in itertools.product((True, False), repeat=3)]
MIN_ENTITIES = (1, 2)


class Table:
    """Per-claim feature arrays of a set of responses, so a configuration is scored with numpy."""

    def __init__(self, feats: Sequence[checker.SampleFeatures]):
        self.kind = np.array([f.kind for f in feats])
        self.ok = np.array([f.status == "ok" for f in feats])
        rows, sim, top, all_, field_c, num_c, num_m, field_n, n_ent = [], [], [], [], [], [], [], [], []
        for i, f in enumerate(feats):
            for c in f.claims:
                rows.append(i)
                sim.append(c.sim)
                top.append(c.recall_top)
                all_.append(c.recall_all)
                field_c.append(bool(c.field_conflicts))
                num_c.append(bool(c.conflict_numbers))
                num_m.append(bool(c.missing_numbers))
                field_n.append(bool(c.field_nulls))
                n_ent.append(len(c.missing_entities))
        self.n = len(feats)
        self.row = np.array(rows, dtype=int)
        self.sim, self.top, self.all = np.array(sim), np.array(top), np.array(all_)
        self.field_c, self.num_c, self.num_m = np.array(field_c, bool), np.array(num_c, bool), np.array(num_m, bool)
        self.field_n, self.n_ent = np.array(field_n, bool), np.array(n_ent)

    def rule_flags(self, cfg: dict[str, Any]) -> np.ndarray:
        flag = np.zeros(len(self.row), dtype=bool)
        if cfg["fields"]:
            flag |= self.field_c | self.field_n
        if cfg["numbers"]:
            flag |= self.num_m
        if cfg["entities"]:
            flag |= self.n_ent >= cfg["min_entities"]
        return flag

    def min_score(self, w: tuple[float, float, float]) -> np.ndarray:
        score = w[0] * self.sim + w[1] * self.top + w[2] * self.all
        out = np.full(self.n, np.inf)
        np.minimum.at(out, self.row, score)
        return out

    def any_flag(self, cfg: dict[str, Any]) -> np.ndarray:
        out = np.zeros(self.n, dtype=bool)
        np.logical_or.at(out, self.row, self.rule_flags(cfg))
        return out

    def predict(self, cfgs: dict[str, dict[str, Any]]) -> np.ndarray:
        pred = np.zeros(self.n, dtype=bool)
        for kind, cfg in cfgs.items():
            mask = self.kind == kind
            w = (cfg["w_sim"], cfg["w_top"], cfg["w_all"])
            p = self.any_flag(cfg) | (self.min_score(w) < cfg["threshold"])
            pred[mask] = p[mask]
        return pred & self.ok


def f1(pred: np.ndarray, gold: np.ndarray) -> float:
    tp = int(np.sum(pred & gold))
    fp = int(np.sum(pred & ~gold))
    fn = int(np.sum(~pred & gold))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def fit(table: Table, gold: np.ndarray, idx: np.ndarray, rounds: int = 3) -> tuple[dict, float]:
    """Coordinate ascent over the two kinds' configurations, maximising F1 on responses ``idx``."""
    cfgs = {k: dict(v) for k, v in checker.DEFAULT_THRESHOLDS.items()}
    sub_mask = np.zeros(table.n, dtype=bool)
    sub_mask[idx] = True
    best = -1.0
    for _ in range(rounds):
        improved = False
        for kind in cfgs:
            mask = table.kind == kind
            others = table.predict({k: v for k, v in cfgs.items() if k != kind})
            other_part = others & ~mask & sub_mask
            for rule in RULES:
                for min_e in (MIN_ENTITIES if rule["entities"] else (1,)):
                    cfg = {**rule, "min_entities": min_e}
                    flags = table.any_flag(cfg)
                    for w in WEIGHTS:
                        ms = table.min_score(w)
                        # predictions for every threshold at once: responses x thresholds
                        p = (flags[:, None] | (ms[:, None] < THRESHOLDS[None, :])) & table.ok[:, None]
                        p = np.where((mask & sub_mask)[:, None], p, other_part[:, None])
                        g = gold[:, None] & sub_mask[:, None]
                        tp = (p & g).sum(0)
                        fp = (p & ~g & sub_mask[:, None]).sum(0)
                        fn = (~p & g).sum(0)
                        scores = np.where(tp > 0, 2 * tp / np.maximum(1, 2 * tp + fp + fn), 0.0)
                        j = int(np.argmax(scores))
                        if scores[j] > best + 1e-12:
                            best = float(scores[j])
                            cfgs[kind] = {"w_sim": w[0], "w_top": w[1], "w_all": w[2],
                                          "threshold": float(THRESHOLDS[j]), **cfg}
                            improved = True
        if not improved:
            break
    return cfgs, best


def group_folds(groups: Sequence[str], k: int, seed: int = 0) -> list[np.ndarray]:
    unique = sorted(set(groups))
    rng = np.random.default_rng(seed)
    rng.shuffle(unique)
    fold_of = {g: i % k for i, g in enumerate(unique)}
    assign = np.array([fold_of[g] for g in groups])
    return [np.where(assign == i)[0] for i in range(k)]


def stats(pred: np.ndarray, gold: np.ndarray, seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """F1, precision and recall with genevals' own agreement statistics and bootstrap."""
    found = binary_metrics(confusion(pred, gold))
    ci = agreement_cis(pred, gold, seed=seed, resamples=resamples)["f1"]
    return {"f1": found["f1"], "precision": found["precision"], "recall": found["recall"], "f1_ci95": ci,
            "n": int(len(pred)), "predicted_positive": int(pred.sum())}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="RAGTruth-style dev JSONL (context, response, question, hallucinated, source_id)")
    parser.add_argument("--out", default=str(checker.THRESHOLDS_PATH))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default=None, help="pickle of computed features (reused when present)")
    args = parser.parse_args(argv)

    rows = [json.loads(line) for line in Path(args.data).read_text(encoding="utf-8").splitlines() if line.strip()]
    start = time.perf_counter()
    if args.cache and Path(args.cache).exists():
        feats = pickle.loads(Path(args.cache).read_bytes())
    else:
        feats = checker.featurize([(r["response"], [r["context"]], r.get("question") or "") for r in rows])
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(feats))
    feature_seconds = time.perf_counter() - start
    gold = np.array([bool(r["hallucinated"]) for r in rows])
    table = Table(feats)
    all_idx = np.arange(len(rows))

    cfgs, in_sample = fit(table, gold, all_idx)
    oof = np.zeros(len(rows), dtype=bool)
    fold_cfgs = []
    for test in group_folds([str(r.get("source_id", i)) for i, r in enumerate(rows)], args.folds, args.seed):
        train = np.setdiff1d(all_idx, test)
        fold_cfg, _ = fit(table, gold, train)
        fold_cfgs.append(fold_cfg)
        oof[test] = table.predict(fold_cfg)[test]
    record = table.kind == "record"
    report = {
        "data": Path(args.data).name, "rows": len(rows), "positive_rate": float(gold.mean()),
        "feature_seconds": round(feature_seconds, 1),
        "in_sample": stats(table.predict(cfgs), gold, args.seed),
        "cross_validated": {**stats(oof, gold, args.seed), "folds": args.folds, "grouped_by": "source_id"},
        "baseline_all_hallucinated": stats(np.ones(len(rows), bool), gold, args.seed),
        "baseline_record_context_only": stats(record, gold, args.seed),
        "per_kind_cross_validated": {k: stats(oof[table.kind == k], gold[table.kind == k], args.seed)
                                     for k in ("text", "record") if np.any(table.kind == k)},
        "fold_thresholds": fold_cfgs,
    }
    out = {"model": checker.MODEL_NAME, "calibrated_on": Path(args.data).name,
           "objective": "response-level F1 (any claim not supported => hallucinated)",
           "thresholds": cfgs, "report": report}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "fold_thresholds"}, indent=2))
    print(json.dumps(cfgs, indent=2))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
