"""Validate a hallucination judge against human labels (``genevals validate LABELLED.jsonl``).

Rows carry ``context`` (a string, or a list of strings), ``response``, optional ``question``, the human
label ``hallucinated`` (bool) and optional ``spans: [{start, end}, ...]`` (character offsets into the response;
the RAGTruth schema). ``hallucinated`` may be left out when ``spans`` is given (any span = hallucinated).

Each row becomes a Sample (contexts = [context], answer = response) and is scored by the chosen judge:
``local`` (the grounding checker), ``llm`` (the faithfulness metric) or ``cascade`` (local first, uncertain
answers to the LLM). Then:

- **Response level**: predicted hallucinated by ``rule``: ``any`` (any claim not supported, i.e.
  faithfulness < 1), ``contradicted`` (any claim contradicted) or ``threshold:X`` (faithfulness < X).
  Precision, recall, F1, accuracy, balanced accuracy, Cohen's kappa, the confusion matrix, seeded percentile
  bootstrap 95% CIs, the same per ``task_type``, and the trivial baseline that calls every answer
  hallucinated. Unscored answers (judge or parse errors, refusals, ...) are counted by status and left out
  of every figure; they are never counted as "not hallucinated".
- **Span level**: the character spans of the claims the rule flags, against the union of the labelled spans,
  micro-averaged over characters of the scored rows.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from genevals import types
from genevals.types import Context, MetricResult, Sample

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000
JUDGES = ("local", "llm", "cascade")


class LabelledInputError(ValueError):
    pass


# -- input ---------------------------------------------------------------------------------------------------
def load_labelled(path: str | Path, limit: int | None = None, task_type: str | None = None) -> list[dict[str, Any]]:
    """Read and check a labelled JSONL file; every bad row is named with its line number."""
    rows, errors = [], []
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelledInputError(f"{path}: cannot read: {exc}") from None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            errors.append(f"{where}: malformed JSON: {exc}")
            continue
        problem = check_row(row)
        if problem:
            errors.append(f"{where}: {problem}")
            continue
        row = dict(row)
        row.setdefault("id", str(lineno))
        row["_origin"] = where
        rows.append(row)
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise LabelledInputError(f"{len(errors)} bad row(s) in {path}:\n  {shown}")
    if task_type:
        rows = [r for r in rows if str(r.get("task_type")) == task_type]
    if limit is not None:
        rows = rows[:max(0, limit)]
    return rows


def check_row(row: Any) -> str | None:
    if not isinstance(row, dict):
        return "expected a JSON object"
    if not isinstance(row.get("response"), str):
        return "field 'response': missing or not a string"
    ctx = row.get("context")
    if not (isinstance(ctx, str) or (isinstance(ctx, list) and all(isinstance(c, str) for c in ctx))):
        return "field 'context': missing, or not a string / list of strings"
    if row.get("question") is not None and not isinstance(row["question"], str):
        return "field 'question': not a string"
    spans = row.get("spans")
    if spans is not None:
        if not isinstance(spans, list):
            return "field 'spans': expected a list of {start, end}"
        for s in spans:
            if not (isinstance(s, dict) and isinstance(s.get("start"), int) and isinstance(s.get("end"), int)
                    and not isinstance(s.get("start"), bool) and 0 <= s["start"] <= s["end"] <= len(row["response"])):
                return f"field 'spans': bad span {json.dumps(s)[:80]} (need 0 <= start <= end <= len(response))"
    label = row.get("hallucinated")
    if label is None and spans is None:
        return "no label: give 'hallucinated' (true/false) or 'spans'"
    if label is not None and not isinstance(label, bool):
        return "field 'hallucinated': expected true or false"
    return None


def gold_label(row: Mapping[str, Any]) -> bool:
    if row.get("hallucinated") is not None:
        return bool(row["hallucinated"])
    return bool(row.get("spans"))


def gold_spans(row: Mapping[str, Any]) -> list[tuple[int, int]]:
    return merge_spans((int(s["start"]), int(s["end"])) for s in row.get("spans") or [])


def row_to_sample(row: Mapping[str, Any]) -> Sample:
    ctx = row["context"]
    texts = [ctx] if isinstance(ctx, str) else list(ctx)
    return Sample(id=str(row["id"]), answer=row["response"], question=row.get("question") or "",
                  contexts=tuple(Context(text=t, rank=i + 1) for i, t in enumerate(texts)),
                  system=str(row.get("model") or "default"), origin=row.get("_origin", ""))


# -- metric arithmetic ---------------------------------------------------------------------------------------
def confusion(pred: Sequence[bool], gold: Sequence[bool]) -> dict[str, int]:
    p, g = np.asarray(pred, bool), np.asarray(gold, bool)
    return {"tp": int(np.sum(p & g)), "fp": int(np.sum(p & ~g)), "fn": int(np.sum(~p & g)),
            "tn": int(np.sum(~p & ~g))}


def binary_metrics(cm: Mapping[str, int]) -> dict[str, float | None]:
    """Precision, recall, F1, accuracy, balanced accuracy and Cohen's kappa from a confusion matrix.

    Conventions (as scikit-learn with ``zero_division=0``): precision is 0 with no predicted positives, recall 0
    with no gold positives, F1 = 2tp / (2tp + fp + fn) (0 when that is 0/0); balanced accuracy is the mean
    recall over the classes present in the gold labels; kappa = (p_o - p_e) / (1 - p_e), None when p_e = 1.
    """
    tp, fp, fn, tn = cm["tp"], cm["fp"], cm["fn"], cm["tn"]
    n = tp + fp + fn + tn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0
    accuracy = (tp + tn) / n if n else None
    class_recalls = []
    if tp + fn:
        class_recalls.append(tp / (tp + fn))
    if tn + fp:
        class_recalls.append(tn / (tn + fp))
    balanced = sum(class_recalls) / len(class_recalls) if class_recalls else None
    kappa = None
    if n:
        po = (tp + tn) / n
        pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
        kappa = (po - pe) / (1 - pe) if pe < 1 else None
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": accuracy,
            "balanced_accuracy": balanced, "kappa": kappa}


STAT_NAMES = ("precision", "recall", "f1", "accuracy", "balanced_accuracy", "kappa")


def bootstrap_cis(pred: Sequence[bool], gold: Sequence[bool], seed: int = DEFAULT_SEED,
                  resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> dict[str, list[float] | None]:
    """Percentile bootstrap CIs of every binary metric, resampling rows with ``default_rng(seed)``."""
    p, g = np.asarray(pred, bool), np.asarray(gold, bool)
    n = len(p)
    if n < 2:
        return {k: None for k in STAT_NAMES}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    pp, gg = p[idx], g[idx]
    tp = (pp & gg).sum(1); fp = (pp & ~gg).sum(1); fn = (~pp & gg).sum(1); tn = (~pp & ~gg).sum(1)
    values: dict[str, list[float]] = {k: [] for k in STAT_NAMES}
    for i in range(resamples):
        stats = binary_metrics({"tp": int(tp[i]), "fp": int(fp[i]), "fn": int(fn[i]), "tn": int(tn[i])})
        for k in STAT_NAMES:
            if stats[k] is not None:
                values[k].append(stats[k])
    alpha = (1 - confidence) / 2
    return {k: [float(x) for x in np.quantile(v, [alpha, 1 - alpha])] if v else None for k, v in values.items()}


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted((int(a), int(b)) for a, b in spans if b > a):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def span_length(spans: Iterable[tuple[int, int]]) -> int:
    return sum(e - s for s, e in merge_spans(spans))


def span_intersection(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> int:
    a, b = merge_spans(a), merge_spans(b)
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_scores(pairs: Iterable[tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]]]]) -> dict[str, Any]:
    """Character-level micro precision/recall/F1 over (predicted spans, gold spans) pairs."""
    inter = pred_chars = gold_chars = 0
    for pred, gold in pairs:
        inter += span_intersection(pred, gold)
        pred_chars += span_length(pred)
        gold_chars += span_length(gold)
    precision = inter / pred_chars if pred_chars else 0.0
    recall = inter / gold_chars if gold_chars else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "overlap_chars": inter,
            "predicted_chars": pred_chars, "gold_chars": gold_chars}


# -- prediction rules ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    kind: str  # "any", "contradicted" or "threshold"
    threshold: float = 1.0

    @classmethod
    def parse(cls, text: str) -> "Rule":
        text = (text or "any").strip()
        if text in ("any", "contradicted"):
            return cls(text)
        if text.startswith("threshold:"):
            try:
                value = float(text.split(":", 1)[1])
            except ValueError:
                raise ValueError(f"--rule {text}: the threshold is not a number") from None
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"--rule {text}: the threshold must lie in [0, 1]")
            return cls("threshold", value)
        raise ValueError(f"--rule {text}: expected any, contradicted or threshold:X")

    def __str__(self) -> str:
        return f"threshold:{self.threshold:g}" if self.kind == "threshold" else self.kind

    def flags(self, label: str) -> bool:
        """Whether a claim with this verdict label marks its spans as predicted hallucination."""
        if self.kind == "contradicted":
            return label == types.CONTRADICTED
        return label != types.SUPPORTED

    def predict(self, result: Mapping[str, MetricResult]) -> bool:
        faith = result["faithfulness"]
        if self.kind == "any":
            return faith.value < 1.0  # type: ignore[operator]
        if self.kind == "contradicted":
            return (result["contradiction_rate"].value or 0.0) > 0.0
        return faith.value < self.threshold  # type: ignore[operator]


def predicted_spans(details: Mapping[str, Any], rule: Rule) -> list[tuple[int, int]]:
    claims = {c["index"]: c for c in details.get("claims", [])}
    spans = []
    for v in details.get("verdicts", []):
        claim = claims.get(v.get("claim_index"))
        if claim is None or not claim.get("located", True) or not rule.flags(v.get("label", "")):
            continue
        spans += [(int(s), int(e)) for s, e in claim.get("spans", [])]
    return merge_spans(spans)


# -- judges --------------------------------------------------------------------------------------------------
def build_metric(judge: str, options: Mapping[str, Any] | None = None):
    """The metric behind a judge name: local -> Grounding, llm -> Faithfulness, cascade -> Cascade."""
    options = dict(options or {})
    if judge == "local":
        try:
            from genevals.registry import select

            return select(["grounding"], {"grounding": options})[0].metric
        except Exception:  # not registered yet: build it directly
            from genevals.metrics.grounding import Grounding

            return Grounding(**options)
    if judge == "llm":
        from genevals.registry import select

        return select(["faithfulness"], {"faithfulness": options})[0].metric
    if judge == "cascade":
        try:
            from genevals.registry import select

            return select(["cascade"], {"cascade": options})[0].metric
        except Exception:
            from genevals.metrics.cascade import Cascade

            return Cascade(**options)
    raise ValueError(f"unknown judge '{judge}'; expected one of {', '.join(JUDGES)}")


# -- the validation ------------------------------------------------------------------------------------------
@dataclass
class RowOutcome:
    row: dict[str, Any]
    gold: bool
    status: str
    reason: str = ""
    pred: bool | None = None
    faithfulness: float | None = None
    pred_spans: list[tuple[int, int]] = field(default_factory=list)
    gold_spans: list[tuple[int, int]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def disagreement(self) -> str | None:
        if self.pred is None or self.pred == self.gold:
            return None
        return "false_alarm" if self.pred else "miss"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.row.get("id"), "task_type": self.row.get("task_type"), "gold": self.gold,
                "predicted": self.pred, "status": self.status, "reason": self.reason or None,
                "faithfulness": self.faithfulness, "predicted_spans": [list(s) for s in self.pred_spans],
                "gold_spans": [list(s) for s in self.gold_spans],
                "settled_by": (self.details.get("cascade") or {}).get("settled_by"),
                "confidence": self.details.get("confidence")}


def score_rows(rows: Sequence[dict[str, Any]], metric, rule: Rule, batch_size: int = 64,
               progress: Callable[[int, int], None] | None = None) -> list[RowOutcome]:
    outcomes = []
    for start in range(0, len(rows), batch_size):
        chunk = rows[start:start + batch_size]
        results = metric.score([row_to_sample(r) for r in chunk])
        for row, result in zip(chunk, results):
            faith = result["faithfulness"]
            details = dict(faith.details or {})
            out = RowOutcome(row=row, gold=gold_label(row), status=faith.status, reason=faith.reason or "",
                             gold_spans=gold_spans(row), details=details)
            if faith.status == types.OK:
                out.pred = rule.predict(result)
                out.faithfulness = faith.value
                out.pred_spans = predicted_spans(details, rule)
            outcomes.append(out)
        if progress:
            progress(len(chunk), len(rows))
    return outcomes


def response_level(outcomes: Sequence[RowOutcome], seed: int, resamples: int) -> dict[str, Any]:
    scored = [o for o in outcomes if o.pred is not None]
    pred = [bool(o.pred) for o in scored]
    gold = [o.gold for o in scored]
    cm = confusion(pred, gold)
    baseline_cm = confusion([True] * len(gold), gold)
    out = {"n": len(outcomes), "scored": len(scored), "unscored": len(outcomes) - len(scored),
           "unscored_by_status": dict(Counter(o.status for o in outcomes if o.pred is None)),
           "positive_rate": (sum(gold) / len(gold)) if gold else None,
           "predicted_positive_rate": (sum(pred) / len(pred)) if pred else None,
           "confusion": cm, **binary_metrics(cm), "ci95": bootstrap_cis(pred, gold, seed, resamples),
           "baseline_all_hallucinated": {**binary_metrics(baseline_cm), "confusion": baseline_cm}}
    return out


def validate(rows: Sequence[dict[str, Any]], judge: str = "local", options: Mapping[str, Any] | None = None,
             rule: Rule | str = "any", seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
             metric=None, progress: Callable[[int, int], None] | None = None, worst: int = 15,
             meta: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[RowOutcome]]:
    """Score ``rows`` with the judge and compare with the human labels; returns (report, per-row outcomes)."""
    rule = Rule.parse(rule) if isinstance(rule, str) else rule
    metric = metric if metric is not None else build_metric(judge, options)
    started = time.perf_counter()
    outcomes = score_rows(rows, metric, rule, progress=progress)
    seconds = time.perf_counter() - started
    report: dict[str, Any] = {
        "judge": judge, "rule": str(rule), "seed": seed, "resamples": resamples,
        "metric_signature": metric.signature(), "seconds": round(seconds, 2),
        "seconds_per_answer": round(seconds / len(rows), 3) if rows else None,
        "judge_info": next((o.details.get("judge") for o in outcomes if o.details.get("judge")), None),
        **dict(meta or {}),
        "response_level": response_level(outcomes, seed, resamples),
    }
    task_types = sorted({str(o.row["task_type"]) for o in outcomes if o.row.get("task_type") is not None})
    if task_types:
        report["per_task_type"] = {}
        for tt in task_types:
            sub = [o for o in outcomes if str(o.row.get("task_type")) == tt]
            scored = [o for o in sub if o.pred is not None]
            report["per_task_type"][tt] = {
                "response_level": response_level(sub, seed, resamples),
                "span_level": span_scores((o.pred_spans, o.gold_spans) for o in scored)}
    scored = [o for o in outcomes if o.pred is not None]
    has_spans = any("spans" in o.row for o in outcomes)
    report["span_level"] = span_scores((o.pred_spans, o.gold_spans) for o in scored) if has_spans else None
    if has_spans:
        report["span_level"]["note"] = ("character overlap, micro over the scored rows; predicted spans are the "
                                        "answer spans of the claims the rule flags")
    cascades = [o.details.get("cascade") for o in outcomes if o.details.get("cascade")]
    if cascades:
        sent = sum(1 for c in cascades if c.get("sent_to_llm", c.get("settled_by") == "llm"))
        report["cascade"] = {"settled_local": len(cascades) - sent, "sent_to_llm": sent,
                             "llm_fallbacks_to_local": sum(1 for c in cascades if c.get("fallback")),
                             "llm_calls_saved_share": (len(cascades) - sent) / len(cascades),
                             "settle_confidence": cascades[0].get("settle_confidence"),
                             "llm_requests": sum(int((o.details.get("usage") or {}).get("requests") or 0)
                                                 for o in outcomes)}
    usage: Counter = Counter()
    for o in outcomes:
        for k, v in (o.details.get("usage") or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                usage[k] += v
    report["usage"] = dict(usage)
    report["disagreements"] = worst_disagreements(outcomes, worst)
    return report, outcomes


def _severity(o: RowOutcome) -> float:
    """How badly the judge and the humans disagree: for a false alarm the share of the answer flagged and the
    checker's confidence; for a miss the share of the answer the humans marked."""
    length = max(1, len(o.row["response"]))
    conf = float(o.details.get("confidence") or 0.0)
    if o.disagreement == "false_alarm":
        return span_length(o.pred_spans) / length + conf + (1 - (o.faithfulness or 0.0))
    return span_length(o.gold_spans) / length + conf


def worst_disagreements(outcomes: Sequence[RowOutcome], n: int) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, key in (("false_alarm", "false_alarms"), ("miss", "misses")):
        rows = sorted((o for o in outcomes if o.disagreement == kind), key=_severity, reverse=True)[:n]
        out[key] = [disagreement_dict(o) for o in rows]
    return out


def disagreement_dict(o: RowOutcome) -> dict[str, Any]:
    claims = {c["index"]: c for c in o.details.get("claims", [])}
    verdicts = []
    for v in o.details.get("verdicts", []):
        c = claims.get(v.get("claim_index"), {})
        verdicts.append({"claim": c.get("text", ""), "spans": c.get("spans", []), "label": v.get("label"),
                         "reason": v.get("reason", ""), "quote": v.get("quote", ""),
                         "context_index": v.get("context_index"), "confidence": v.get("confidence")})
    labelled = [{"start": s.get("start"), "end": s.get("end"), "label_type": s.get("label_type"),
                 "note": s.get("meta") or s.get("note")} for s in (o.row.get("spans") or []) if isinstance(s, dict)]
    return {"id": o.row.get("id"), "task_type": o.row.get("task_type"), "model": o.row.get("model"),
            "question": o.row.get("question") or "", "response": o.row["response"], "gold": o.gold,
            "predicted": o.pred, "faithfulness": o.faithfulness, "confidence": o.details.get("confidence"),
            "gold_spans": [list(s) for s in o.gold_spans], "predicted_spans": [list(s) for s in o.pred_spans],
            "labelled_spans": labelled, "verdicts": verdicts,
            "settled_by": (o.details.get("cascade") or {}).get("settled_by")}


def write_outputs(report: Mapping[str, Any], outcomes: Sequence[RowOutcome], out_dir: str | Path) -> dict[str, Path]:
    from genevals.validate_report import render

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "validation.json", "html": out / "validation.html", "rows": out / "predictions.jsonl"}
    paths["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with paths["rows"].open("w", encoding="utf-8") as fh:
        for o in outcomes:
            fh.write(json.dumps(o.to_dict(), ensure_ascii=False) + "\n")
    paths["html"].write_text(render(report), encoding="utf-8")
    return paths
