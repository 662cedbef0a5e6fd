"""Validate a citation checker against human labels (``genevals validate LABELS.jsonl --judge citations`` or
``citations-local``).

Rows (as ``genevals review export`` writes them, :mod:`genevals.review.citations`): ``context`` (a string or a
list of strings), ``response``, optional ``question``, ``citations`` (the answer's sentences in order, each
``{"text": ..., "contexts": [...]}`` with 1-based positions: the ``citations`` input field, so the checker sees
the sentences and citations the reviewers saw) and ``citation_labels``: ``[{"sentence": i, "context": k,
"supported": bool}]`` (0-based sentence and context; does the cited chunk support the sentence?).

Each row is scored by the citation family (``citations``: the LLM judge; ``citations-local``: the offline
check), and each labelled citation's prediction is the check's verdict on it (ALCE relevant = supported). The
positive class is **not supported** (the error a checker should catch), as hallucinated is for claims:
precision, recall, F1, accuracy, balanced accuracy and Cohen's kappa over the labelled citations, with seeded
percentile-bootstrap 95% intervals resampling citations (:func:`genevals.stats.agreement.agreement_cis`). A citation
whose answer ends unscored (a judge error, ``citation_out_of_range``, ...), or that the checker did not check,
is counted by status and left out of every figure, never counted either way.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from genevals import types
from genevals.stats.agreement import agreement_cis, binary_metrics, confusion
from genevals.types import Sample
from genevals.validation.labels import row_to_sample, scored

#: judge name -> the metric family that checks citations
JUDGES = {"citations": "citations", "citations-local": "citations_local"}
NOT_CHECKED = "not_checked"


def check_row(row: Any) -> str | None:
    """What is wrong with a citation label row (None: nothing)."""
    if not isinstance(row, dict):
        return "expected a JSON object"
    labels = row.get("citation_labels")
    if not isinstance(labels, list) or not labels:
        return ("field 'citation_labels': missing or empty (not a citation label file: `genevals review export` "
                "writes one as NAME.citations.jsonl; claim labels are validated with --judge local, llm or cascade)")
    if not isinstance(row.get("response"), str):
        return "field 'response': missing or not a string"
    ctx = row.get("context")
    if not (isinstance(ctx, str) or (isinstance(ctx, list) and all(isinstance(c, str) for c in ctx))):
        return "field 'context': missing, or not a string / list of strings"
    n_contexts = 1 if isinstance(ctx, str) else len(ctx)
    cites = row.get("citations")
    if not isinstance(cites, list) or not all(
            isinstance(c, dict) and isinstance(c.get("text"), str) and isinstance(c.get("contexts"), list)
            and all(isinstance(r, str) for r in c["contexts"]) for c in cites):
        return "field 'citations': expected the answer's sentences as [{\"text\": ..., \"contexts\": [\"1\", ...]}]"
    for label in labels:
        ok = isinstance(label, dict) and isinstance(label.get("supported"), bool) and all(
            type(label.get(k)) is int for k in ("sentence", "context"))
        if not ok or not (0 <= label["sentence"] < len(cites) and 0 <= label["context"] < n_contexts):
            return (f"field 'citation_labels': bad label {json.dumps(label)[:80]} (need sentence and context, "
                    f"0-based indices into citations and context, and supported true/false)")
    return None


def to_sample(row: Mapping[str, Any]) -> Sample:
    """The row as a sample whose ``citations`` field gives its sentences and what each cites."""
    return replace(row_to_sample(row), citations=tuple((c["text"], tuple(c["contexts"])) for c in row["citations"]))


def build_metric(judge: str, options: Mapping[str, Any] | None = None, config: Any = None):
    from genevals import registry

    family = JUDGES[judge]
    return registry.select([family], {family: dict(options or {})}, config)[0].metric


def predictions(details: Mapping[str, Any]) -> dict[tuple[int, int], bool]:
    """(sentence, context) -> the checker says the citation does not support the sentence."""
    out = {}
    for s in details.get("sentences") or []:
        for c in s.get("citations") or []:
            out[(int(s["index"]), int(c["context"]))] = not c.get("relevant")
    return out


def score(rows: Sequence[dict[str, Any]], metric, batch_size: int = 32, progress=None) -> list[dict[str, Any]]:
    """One outcome per labelled citation: gold and predicted (True: not supported), status and reason."""
    out = []
    for row, result in scored(rows, metric, to_sample, batch_size, progress):
        recall = result["citation_recall"]
        found = predictions(recall.details or {}) if recall.status == types.OK else {}
        for label in row["citation_labels"]:
            key = (label["sentence"], label["context"])
            status = recall.status if recall.status != types.OK else types.OK if key in found else NOT_CHECKED
            out.append({"id": row.get("id"), "model": row.get("model"), "sentence": key[0],
                        "context": key[1], "sentence_text": row["citations"][key[0]]["text"],
                        "gold_not_supported": not label["supported"],
                        "predicted_not_supported": found.get(key) if status == types.OK else None,
                        "status": status, "reason": recall.reason or None})
    return out


def validate(rows: Sequence[dict[str, Any]], judge: str, metric, seed: int, resamples: int, progress=None,
             meta: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Score the rows and compare the checker's citation verdicts with the labels: (report, per-citation rows)."""
    started = time.perf_counter()
    outcomes = score(rows, metric, progress=progress)
    scored = [o for o in outcomes if o["predicted_not_supported"] is not None]
    pred = [bool(o["predicted_not_supported"]) for o in scored]
    gold = [o["gold_not_supported"] for o in scored]
    cm = confusion(pred, gold)
    report = {
        "judge": judge, "family": JUDGES[judge], "unit": "citation", "positive": "not supported",
        "seed": seed, "resamples": resamples, "metric_signature": metric.signature(),
        "seconds": round(time.perf_counter() - started, 2), **dict(meta or {}),
        "citation_level": {
            "answers": len(rows), "n": len(outcomes), "scored": len(scored), "unscored": len(outcomes) - len(scored),
            "unscored_by_status": dict(Counter(o["status"] for o in outcomes if o["predicted_not_supported"] is None)),
            "positive_rate": sum(gold) / len(gold) if gold else None, "confusion": cm, **binary_metrics(cm),
            "ci95": agreement_cis(pred, gold, seed, resamples)},
    }
    return report, outcomes


def write_outputs(report: Mapping[str, Any], outcomes: Sequence[Mapping[str, Any]], out_dir: str | Path) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "validation.json", "rows": out / "predictions.jsonl"}
    paths["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    paths["rows"].write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outcomes), encoding="utf-8")
    return paths


def summary_text(report: Mapping[str, Any]) -> str:
    r = report["citation_level"]

    def fmt(x: Any) -> str:
        return "-" if x is None else f"{x:.3f}"

    def ci(name: str) -> str:
        c = (r.get("ci95") or {}).get(name)
        return f" [{c[0]:.3f}, {c[1]:.3f}]" if c else ""

    return (f"judge {report['judge']} on citations (positive: not supported): {report['seconds']:.1f} s\n"
            f"  n={r['scored']} citations of {r['answers']} answers  F1={fmt(r['f1'])}{ci('f1')}  "
            f"kappa={fmt(r['kappa'])}{ci('kappa')}  P={fmt(r['precision'])} R={fmt(r['recall'])} "
            f"bal.acc={fmt(r['balanced_accuracy'])} (unscored {r['unscored']})")
