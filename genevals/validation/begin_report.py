"""``genevals validate`` on BEGIN files: score each row's conversation with the judge, compare with the human
labels and the trivial baselines (:mod:`~genevals.validation.begin_card`), write validation.json and
predictions.jsonl, and print the card."""
from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from genevals import types
from genevals.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from genevals.validation import begin_card
from genevals.validation.begin import to_sample
from genevals.validation.labels import scored


def stratified(rows: Sequence[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """A fixed subsample of about ``n`` rows with each label in its share of the rows: within a label, the rows
    whose id hashes lowest (the same rows on every machine and run, whatever the file order)."""
    if n >= len(rows):
        return list(rows)
    by_label: dict[str, list] = {}
    for row in rows:
        by_label.setdefault(row["label"], []).append(row)
    keep: set[str] = set()
    for label, members in by_label.items():
        take = max(1, round(n * len(members) / len(rows)))
        members = sorted(members, key=lambda r: hashlib.blake2b(r["id"].encode(), digest_size=8).digest())
        keep.update(r["id"] for r in members[:take])
    return [r for r in rows if r["id"] in keep]


def score(rows: Sequence[dict[str, Any]], metric: Any, rule: Any, batch_size: int = 16,
          progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Each row's outcome: status, faithfulness, the rule's yes/no (not attributable) and the overlap baseline."""
    out = []
    for row, result in scored(rows, metric, to_sample, batch_size, progress):
        faith = result["faithfulness"]
        ok = faith.status == types.OK
        # the offline checker's p(hallucinated) ranks answers finer than faithfulness (0 or 1 for one sentence)
        chance = (faith.details or {}).get("probability")
        chance = float(chance) if isinstance(chance, (int, float)) and not isinstance(chance, bool) else None
        out.append({"id": row["id"], "source": row["source"], "model": row["model"], "group": row["group"],
                    "label": row["label"], "status": faith.status, "reason": faith.reason or None,
                    "faithfulness": faith.value if ok else None,
                    "score": (chance if chance is not None else 1.0 - faith.value) if ok else None,
                    "score_of": "probability" if chance is not None else "1 - faithfulness",
                    "predicted_not_attributable": bool(rule.predict(result)) if ok else None,
                    "overlap": round(begin_card.overlap(row["response"], row["knowledge"]), 4)})
    return out


def _compare(outcomes: Sequence[dict[str, Any]], generic_as: bool | None, seed: int, resamples: int):
    """The comparison on the scored rows; Generic rows left out (None) or counted as not attributable (True)."""
    rows = [o for o in outcomes if o["faithfulness"] is not None
            and (o["label"] != "Generic" or generic_as is not None)]
    gold = np.array([o["label"] != "Fully attributable" for o in rows], dtype=bool)
    return begin_card.compare(np.array([o["score"] for o in rows]),
                              np.array([o["predicted_not_attributable"] for o in rows], dtype=bool), gold,
                              np.array([o["overlap"] for o in rows]), [o["group"] for o in rows], seed, resamples)


def validate(rows: Sequence[dict[str, Any]], metric: Any, rule: Any, judge: str, seed: int = DEFAULT_SEED,
             resamples: int = DEFAULT_RESAMPLES, progress: Callable[[int, int], None] | None = None,
             meta: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    started = time.perf_counter()
    outcomes = score(rows, metric, rule, progress=progress)
    seconds = time.perf_counter() - started
    generic = [o for o in outcomes if o["label"] == "Generic"]
    report: dict[str, Any] = {
        "dataset": "BEGIN", "judge": judge, "rule": str(rule), "seed": seed, "resamples": resamples,
        "metric_signature": metric.signature(), "seconds": round(seconds, 2),
        "seconds_per_answer": round(seconds / len(rows), 3) if rows else None, **dict(meta or {}),
        "rows": len(outcomes), "labels": dict(Counter(o["label"] for o in outcomes)),
        "unscored_by_status": dict(Counter(o["status"] for o in outcomes if o["faithfulness"] is None)),
        "positive_class": "not attributable",
        "auc_score": dict(Counter(o["score_of"] for o in outcomes if o["score"] is not None)),
        "attributable_vs_not": _compare(outcomes, None, seed, resamples),
        "generic_as_not_attributable": _compare(outcomes, True, seed, resamples),
        "generic": {"rows": len(generic), "scored": sum(o["faithfulness"] is not None for o in generic),
                    "called_not_attributable": sum(bool(o["predicted_not_attributable"]) for o in generic)},
        "per_source": {},
    }
    for source in sorted({o["source"] for o in outcomes}):
        part = [o for o in outcomes if o["source"] == source]
        report["per_source"][source] = _compare(part, None, seed, resamples)
    return report, outcomes


def write_outputs(report: Mapping[str, Any], outcomes: Sequence[Mapping[str, Any]], out_dir: str | Path):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "validation.json", "rows": out / "predictions.jsonl"}
    paths["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    with paths["rows"].open("w", encoding="utf-8") as fh:
        for o in outcomes:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")
    return paths


def _fmt(value: Any, ci: Any) -> str:
    if value is None:
        return "   -  "
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else f"{value:.3f}"


def _block(title: str, part: Mapping[str, Any]) -> list[str]:
    lines = [f"{title}: n={part['n']} responses in {part['groups']} knowledge groups, "
             f"{part['not_attributable_rate']:.0%} not attributable" if part["n"] else f"{title}: no scored rows",
             f"  {'':<18} {'AUC':<24} {'balanced acc.':<24} {'kappa':<24}"]
    if not part["n"]:
        return lines
    names = {"judge": "judge", "judge_cut_fitted": "judge, cut fitted", "word_overlap": "word overlap",
             "majority": "always majority"}
    for key, name in names.items():
        r = part[key]
        lines.append(f"  {name:<18} " + " ".join(f"{_fmt(r[m], r['ci95'][m]):<24}"
                                                   for m in ("auc", "balanced_accuracy", "kappa")))
    lines.append(f"  the judge is {part['verdict']}")
    auc = part["judge_minus_best_baseline"]["auc"]
    if auc["difference"] is not None and auc["ci95"]:
        lines.append(f"  its AUC minus the {part['best_baseline'].replace('_', ' ')} baseline's: {auc['difference']:+.3f} "
                     f"[{auc['ci95'][0]:+.3f}, {auc['ci95'][1]:+.3f}]")
    return lines


def card_text(report: Mapping[str, Any]) -> str:
    """The validation card as printed: the main figures, Generic counted as not attributable, per source."""
    unscored = ", ".join(f"{k} {v}" for k, v in report["unscored_by_status"].items()) or "none"
    lines = [f"BEGIN validation card: judge {report['judge']}, rule {report['rule']}, {report['rows']} rows "
             f"({', '.join(f'{k} {v}' for k, v in sorted(report['labels'].items()))}), "
             f"{report['seconds']:.1f} s; unscored: {unscored}",
             "95% intervals: cluster bootstrap by knowledge snippet; positive class: not attributable; judge AUC of "
             f"{' / '.join(report['auc_score']) or '-'}; "
             "baselines on the judge's scored rows, word overlap thresholded inside 5 folds by group"]
    if report.get("subsample"):
        lines.append(f"on a fixed stratified subsample: {report['subsample']}")
    lines += _block("Fully vs not fully attributable (Generic left out)", report["attributable_vs_not"])
    g = report["generic"]
    lines.append(f"Generic responses: {g['rows']}, {g['scored']} scored, {g['called_not_attributable']} called "
                 "not attributable by the judge")
    lines += _block("Generic counted as not attributable", report["generic_as_not_attributable"])
    for source, part in report["per_source"].items():
        r = part["judge"]
        if part["n"]:
            lines.append(f"  {source:<5} n={part['n']:<4} judge AUC {_fmt(r['auc'], None).strip()} bal.acc "
                         f"{_fmt(r['balanced_accuracy'], None).strip()}; {part['best_baseline'].replace('_', ' ')} "
                         f"bal.acc {_fmt(part[part['best_baseline']]['balanced_accuracy'], None).strip()}")
    return "\n".join(lines)
