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
from typing import Any, Callable, Mapping, Sequence

from genevals import registry, types
from genevals.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from genevals.stats.agreement import agreement_cis, binary_metrics, confusion
from genevals.types import Claim, MetricResult, Verdict
from genevals.validation.labels import gold_label, gold_spans, row_to_sample, scored
from genevals.validation.spans import merge_spans, span_length, span_scores

#: judge name -> the metric family that judges
JUDGES = {"local": "grounding", "llm": "faithfulness", "cascade": "cascade"}


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
        return label not in (types.SUPPORTED, types.FROM_HISTORY)  # repeating the user is no hallucination

    def predict(self, result: Mapping[str, MetricResult]) -> bool:
        faith = result["faithfulness"]
        if self.kind == "any":
            return faith.value < 1.0  # type: ignore[operator]
        if self.kind == "contradicted":
            return (result["contradiction_rate"].value or 0.0) > 0.0
        return faith.value < self.threshold  # type: ignore[operator]


def _claims_and_verdicts(details: Mapping[str, Any]) -> tuple[dict[int, Claim], list[Verdict]]:
    claims = {c.index: c for c in map(Claim.from_dict, details.get("claims", []))}
    return claims, [Verdict.from_dict(v) for v in details.get("verdicts", [])]


def predicted_spans(details: Mapping[str, Any], rule: Rule) -> list[tuple[int, int]]:
    claims, verdicts = _claims_and_verdicts(details)
    spans = []
    for v in verdicts:
        claim = claims.get(v.claim_index)
        if claim is None or not claim.located or not rule.flags(v.label):
            continue
        spans += [v.answer_span] if v.answer_span is not None else list(claim.spans)
    return merge_spans(spans)


# -- judges --------------------------------------------------------------------------------------------------
def build_metric(judge: str, options: Mapping[str, Any] | None = None, config: Any = None):
    """The metric behind a judge name (local -> grounding, llm -> faithfulness, cascade -> cascade), with
    ``options`` as its settings and ``config`` (a JudgeConfig) for the LLM."""
    if judge not in JUDGES:
        raise ValueError(f"unknown judge '{judge}'; expected one of {', '.join(JUDGES)}")
    family = JUDGES[judge]
    return registry.select([family], {family: dict(options or {})}, config)[0].metric


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
    for row, result in scored(rows, metric, row_to_sample, batch_size, progress):
        faith = result["faithfulness"]
        details = dict(faith.details or {})
        out = RowOutcome(row=row, gold=gold_label(row), status=faith.status, reason=faith.reason or "",
                         gold_spans=gold_spans(row), details=details)
        if faith.status == types.OK:
            out.pred = rule.predict(result)
            out.faithfulness = faith.value
            out.pred_spans = predicted_spans(details, rule)
        outcomes.append(out)
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
           "confusion": cm, **binary_metrics(cm), "ci95": agreement_cis(pred, gold, seed, resamples),
           "baseline_all_hallucinated": {**binary_metrics(baseline_cm), "confusion": baseline_cm}}
    return out


def validate(rows: Sequence[dict[str, Any]], judge: str = "local", options: Mapping[str, Any] | None = None,
             rule: Rule | str = "any", seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
             metric=None, progress: Callable[[int, int], None] | None = None, worst: int = 15,
             meta: Mapping[str, Any] | None = None, config: Any = None) -> tuple[dict[str, Any], list[RowOutcome]]:
    """Score ``rows`` with the judge and compare with the human labels; returns (report, per-row outcomes)."""
    rule = Rule.parse(rule) if isinstance(rule, str) else rule
    metric = metric if metric is not None else build_metric(judge, options, config)
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
    from genevals.validation.weighted import from_rows

    weighted = from_rows([o.row for o in outcomes], [o.pred for o in outcomes], [o.gold for o in outcomes],
                         seed, resamples)
    if weighted is not None:  # rows a review queue drew: the judge on the whole run, not just these rows
        report["response_level_weighted"] = weighted
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
                                        "answer spans of the claims the rule flags (the flagged phrase when the "
                                        "verdict names one)")
    record = getattr(metric, "training_record", None)
    if callable(record) and record():
        report["judge_training_record"] = record()  # the judge's own cross-validated figures, for comparison
    calibration = calibration_report(outcomes)
    if calibration:
        report["calibration"] = calibration
    cascades = [o.details.get("cascade") for o in outcomes if o.details.get("cascade")]
    if cascades:
        sent = sum(1 for c in cascades if c.get("sent_to_llm", c.get("settled_by") == "llm"))
        report["cascade"] = {"settled_local": len(cascades) - sent, "sent_to_llm": sent,
                             "llm_fallbacks_to_local": sum(1 for c in cascades if c.get("fallback")),
                             "llm_calls_saved_share": (len(cascades) - sent) / len(cascades),
                             "settle_confidence": cascades[0].get("settle_confidence"),
                             "llm_requests": sum(int((o.details.get("usage") or {}).get("requests") or 0)
                                                 for o in outcomes)}
    from genevals.validation.repeats import repeats_agreement

    repeated = repeats_agreement(outcomes, rule, seed, resamples)
    if repeated is not None:  # --judge-repeats: one verdict against the majority of N, on the same rows
        report["judge_repeats"] = repeated
    usage: Counter = Counter()
    for o in outcomes:
        for k, v in (o.details.get("usage") or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                usage[k] += v
    report["usage"] = dict(usage)
    report["disagreements"] = worst_disagreements(outcomes, worst)
    return report, outcomes


def calibration_report(outcomes: Sequence[RowOutcome], bins: int = 10) -> dict[str, Any] | None:
    r"""How well the judge's per-answer probability of hallucination (``details.probability``, the local
    detector's) matches the labels: :math:`ECE = \sum_b (n_b / n) |\bar p_b - \bar y_b|` over ``bins``
    equal-width bins, and the share of answers at each confidence max(p, 1 - p) a cascade could settle
    locally with its accuracy there. None when no scored answer carries a probability."""
    rows = [(float(o.details["probability"]), o.gold, o.pred) for o in outcomes
            if o.pred is not None and isinstance(o.details.get("probability"), (int, float))]
    if not rows:
        return None
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(p, g) for p, g, _ in rows if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        if inside:
            total += len(inside) / len(rows) * abs(sum(p for p, _ in inside) / len(inside)
                                                   - sum(g for _, g in inside) / len(inside))
    settle = []
    for level in (0.6, 0.7, 0.8, 0.9):
        kept = [(g, pred) for p, g, pred in rows if max(p, 1 - p) >= level]
        settle.append({"settle_confidence": level, "settled_local_share": len(kept) / len(rows),
                       "accuracy_settled": (sum(g == pred for g, pred in kept) / len(kept)) if kept else None})
    return {"ece": total, "bins": bins, "n": len(rows), "cascade_settle": settle}


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
    claims, found = _claims_and_verdicts(o.details)
    verdicts = []
    for v in found:
        c = claims.get(v.claim_index)
        verdicts.append({"claim": c.text if c else "", "spans": [list(s) for s in c.spans] if c else [],
                         "label": v.label, "reason": v.reason, "quote": v.quote,
                         "context_index": v.context_index, "confidence": v.scores.get("confidence")})
    labelled = [{"start": s.get("start"), "end": s.get("end"), "label_type": s.get("label_type"),
                 "note": s.get("meta") or s.get("note")} for s in (o.row.get("spans") or []) if isinstance(s, dict)]
    return {"id": o.row.get("id"), "task_type": o.row.get("task_type"), "model": o.row.get("model"),
            "question": o.row.get("question") or "", "response": o.row["response"], "gold": o.gold,
            "predicted": o.pred, "faithfulness": o.faithfulness, "confidence": o.details.get("confidence"),
            "gold_spans": [list(s) for s in o.gold_spans], "predicted_spans": [list(s) for s in o.pred_spans],
            "labelled_spans": labelled, "verdicts": verdicts,
            "settled_by": (o.details.get("cascade") or {}).get("settled_by")}


def write_outputs(report: Mapping[str, Any], outcomes: Sequence[RowOutcome], out_dir: str | Path) -> dict[str, Path]:
    from genevals.validation.page import render

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "validation.json", "html": out / "validation.html", "rows": out / "predictions.jsonl"}
    paths["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with paths["rows"].open("w", encoding="utf-8") as fh:
        for o in outcomes:
            fh.write(json.dumps(o.to_dict(), ensure_ascii=False) + "\n")
    paths["html"].write_text(render(report), encoding="utf-8")
    return paths
