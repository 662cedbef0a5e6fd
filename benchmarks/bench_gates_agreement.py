"""The gates' agreement rule (a solver's answer agrees with the reference when token F1 >= 0.5;
:mod:`genevals.generate.gates.agreement`) against people's judgements: NQ301's dev half
(``../shared/datasets/triad/nq301_answer_correctness_dev.jsonl``: 715 system answers to 143 Natural Questions
questions, each labelled acceptable or not by people, with the gold answers as references; an answer's F1 is its
best over the references).

Out of sample: 5 folds grouped by question (scikit-learn's GroupKFold). On each fold the threshold chosen on the
other four (the best accuracy on a grid of 0.05 steps) and the fixed 0.5 are scored, beside trivial rules on the
same folds: always agree (the majority label), exact match (F1 = 1), and the reference contained in the answer
(normalised). Accuracy, precision and recall of "agrees" for "acceptable", with Wilson 95% intervals over the
pooled out-of-fold decisions.

    python benchmarks/bench_gates_agreement.py
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "datasets" / "triad" / "nq301_answer_correctness_dev.jsonl"
Z = 1.959964
GRID = [round(0.05 * i, 2) for i in range(1, 20)]


def wilson(k: int, n: int) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    p, z2 = k / n, Z * Z
    centre, half = (p + z2 / (2 * n)) / (1 + z2 / n), Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def figures(decisions: list[bool], labels: list[bool]) -> dict:
    tp = sum(d and y for d, y in zip(decisions, labels))
    fp = sum(d and not y for d, y in zip(decisions, labels))
    fn = sum(y and not d for d, y in zip(decisions, labels))
    right = sum(d == y for d, y in zip(decisions, labels))
    n = len(labels)
    return {"accuracy": round(right / n, 4), "accuracy_ci": wilson(right, n),
            "precision": round(tp / (tp + fp), 4) if tp + fp else None, "precision_ci": wilson(tp, tp + fp),
            "recall": round(tp / (tp + fn), 4) if tp + fn else None, "recall_ci": wilson(tp, tp + fn), "n": n}


def measure(path: Path = DATA) -> dict:
    sys.path.insert(0, str(REPO))
    from sklearn.model_selection import GroupKFold

    from genevals.generate.gates.agreement import f1
    from genevals.language.tokens import normalize

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    scores = [max(f1(r["answer"], ref, "en") for ref in r["references"]) for r in rows]
    contains = [any(normalize(ref, "en", "mlqa") in normalize(r["answer"], "en", "mlqa") for ref in r["references"])
                for r in rows]
    labels = [bool(r["acceptable"]) for r in rows]
    groups = [r["qid"] for r in rows]
    chosen: list[bool] = [False] * len(rows)
    thresholds = []
    for train, test in GroupKFold(n_splits=5).split(rows, labels, groups):
        best = max(GRID, key=lambda t: (sum((scores[i] >= t) == labels[i] for i in train), -abs(t - 0.5)))
        thresholds.append(best)
        for i in test:
            chosen[i] = scores[i] >= best
    return {"n": len(rows), "questions": len(set(groups)), "acceptable": sum(labels),
            "thresholds_chosen_per_fold": thresholds,
            "token_f1_at_0.5": figures([s >= 0.5 for s in scores], labels),
            "token_f1_threshold_chosen_in_fold": figures(chosen, labels),
            "baseline_always_agree": figures([True] * len(rows), labels),
            "baseline_exact_match": figures([s >= 1.0 for s in scores], labels),
            "baseline_reference_in_answer": figures(contains, labels)}


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1))
