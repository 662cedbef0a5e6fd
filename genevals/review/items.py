"""The answers of the item-by-item review page (``genevals review --blind`` / ``--queue N``), and what of the
judge's verdicts each reviewer may see.

Blind review keeps the judge's verdicts off the page, not just out of sight: the page is served without them
(no label, highlight, reason or score in its HTML), and ``GET /api/item`` adds them for one answer only once the
reviewer has stored a decision on each of its claims (:func:`revealed`). A decision stored before that is
recorded ``blind``; one changed after the reveal is not (:func:`blind_now`). Nor does anything else derived from a
verdict leave the server first: the answers' order and fields (:func:`order`, :func:`listing`) and the state
every reply carries (:func:`genevals.review.tally.blind_tally`). The reviewer's name is what they
typed (the server has no login), so blindness is a matter of the page's design, not of proof.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from genevals.report.clean import utf16_offsets
from genevals.review.claims import ReviewSample
from genevals.review.store import Decision, Queue, current
from genevals.review.tally import Samples, consensus, stale_reason


def reviewable(samples: Samples, key: tuple[str, str]) -> bool:
    """Whether the run (as results.jsonl holds it now) has answer ``key`` with a claim to decide."""
    sample = samples.get(key)
    return sample is not None and bool(sample.claims)


def stale_count(samples: Samples, queue: Queue | None) -> int:
    """How many of the queue's answers the run no longer has to review (scored again without them, or without
    their claims): they are left out of the review, not served as answers that cannot be opened."""
    return 0 if queue is None else sum(1 for s, i, _, _ in queue.entries if not reviewable(samples, (s, i)))


def order(samples: Samples, queue: Queue | None, blind: bool = False) -> list[tuple[str, str]]:
    """The answers to review, in order: the queue's that the run still has (:func:`stale_count`), else every answer
    with a claim as results.jsonl lists them (never the judge's verdict order: that would tell a blind reviewer
    which are flagged). A blind review of a queue shuffles it (:func:`blind_key`): the queue's own order, its
    strata one after another (flagged before clean), would tell the verdicts too."""
    if queue is not None:
        keys = [(s, i) for s, i, _, _ in queue.entries if reviewable(samples, (s, i))]
        return sorted(keys, key=lambda key: blind_key(queue.seed, key)) if blind else keys
    return [key for key, sample in sorted(samples.items(), key=lambda kv: kv[1].line) if sample.claims]


def blind_key(seed: int, key: tuple[str, str]) -> str:
    """Where answer ``key`` goes in a blind review of a queue drawn with ``seed``: a hash of the two alone, so the
    order is the same at every request and says nothing of the answer's stratum."""
    return hashlib.sha256(json.dumps([seed, *key]).encode("utf-8")).hexdigest()


def revealed(decisions: Iterable[Decision], reviewer: str, sample: ReviewSample, samples: Samples) -> bool:
    """Whether ``reviewer`` has stored a decision (any, withdrawn included) on every claim of ``sample`` that
    still applies: then its verdicts may be shown to them."""
    if not sample.claims:
        return True
    decided = {d.claim_index for d in decisions
               if d.reviewer == reviewer and d.system == sample.system and d.sample_id == sample.id
               and d.claim_index is not None and not stale_reason(d, samples)}
    return all(c.index in decided for c in sample.claims)


def blind_now(decisions: Iterable[Decision], decision: Decision, samples: Samples) -> bool:
    """Whether ``decision``, about to be stored in a blind review, is made before its answer was revealed."""
    sample = samples.get((decision.system, decision.sample_id))
    return sample is not None and not revealed(decisions, decision.reviewer, sample, samples)


def listing(samples: Samples, queue: Queue | None, decisions: list[Decision], reviewer: str,
            blind: bool) -> dict[str, Any]:
    """``GET /api/items``: the answers in review order, each with whether ``reviewer`` has finished it; in a
    blind review nothing that depends on the verdicts (not the stratum: it names the judge's verdict; not the
    queue's position or order: they follow the strata)."""
    positions = queue.position() if queue is not None else {}
    items = []
    for key in order(samples, queue, blind):
        sample = samples[key]
        item: dict[str, Any] = {"system": key[0], "sample_id": key[1], "claims": len(sample.claims),
                                "done": bool(reviewer) and revealed(decisions, reviewer, sample, samples)}
        if queue is not None and not blind:  # blind: the queue's position follows the strata, as they do
            item["position"] = positions[key]
            item["stratum"] = queue.entries[positions[key]][2]
        items.append(item)
    return {"blind": blind, "queue": queue is not None, "items": items,
            "missing": (len(queue.entries) - len(items)) if queue is not None else 0}


def item(sample: ReviewSample, raw_verdicts: Mapping[int, Mapping[str, Any]], faithfulness: float | None,
         decisions: list[Decision], reviewer: str, blind: bool, samples: Samples) -> dict[str, Any]:
    """``GET /api/item``: one answer to review (texts, claims with UTF-16 spans, this reviewer's current
    decisions) and, unless the review is blind and the reviewer has not finished it, the judge's verdicts."""
    to16 = utf16_offsets(sample.answer)
    now = current(decisions)
    mine = {d.claim_index: d for d in now if d.reviewer == reviewer and d.system == sample.system
            and d.sample_id == sample.id and d.claim_index is not None and not stale_reason(d, samples)}
    shown = not blind or (bool(reviewer) and revealed(decisions, reviewer, sample, samples))
    out: dict[str, Any] = {
        "system": sample.system, "sample_id": sample.id, "question": sample.question, "answer": sample.answer,
        "contexts": list(sample.contexts), "revealed": shown,
        "missed": sum(1 for d in now if d.reviewer == reviewer and d.decision == "missed" and d.claim_index is None
                      and (d.system, d.sample_id) == (sample.system, sample.id) and not stale_reason(d, samples)),
        "claims": [{"index": c.index, "text": c.text, "spans": [[to16(s), to16(e)] for s, e in c.spans],
                    "mine": _mine(mine.get(c.index))} for c in sample.claims]}
    if sample.conversation_id is not None or sample.history:  # a turn is reviewed with what was said before it
        out["conversation"] = {"id": sample.conversation_id, "turn": sample.turn, "dropped": sample.history_dropped,
                               "history": [{"role": r, "content": c} for r, c in sample.history]}
    if shown:
        for claim, entry in zip(sample.claims, out["claims"]):
            raw = raw_verdicts.get(claim.index) or {}
            entry["verdict"] = {"label": claim.label, "reason": str(raw.get("reason") or ""),
                                "jury": _labels(raw.get("jury")), "repeats": _list(raw.get("repeats"))}
            entry["reviewers"] = consensus([d for d in now if d.claim_index == claim.index
                                            and (d.system, d.sample_id) == (sample.system, sample.id)
                                            and not stale_reason(d, samples)])
        out["faithfulness"] = faithfulness
    return out


def _mine(d: Decision | None) -> dict[str, Any] | None:
    if d is None or d.decision == "withdrawn":
        return None
    return {"decision": d.decision, "note": d.note, "blind": d.blind}


def _labels(value: Any) -> dict[str, str | None] | None:
    if not isinstance(value, Mapping):
        return None
    return {str(k): (v if isinstance(v, str) else None) for k, v in value.items()}


def _list(value: Any) -> list[str | None] | None:
    return [v if isinstance(v, str) else None for v in value] if isinstance(value, list) else None


def verdicts_by_answer(run_dir: Any, samples: Samples) -> dict[tuple[str, str], tuple[dict[int, Mapping], Any]]:
    """(system, sample id) -> (the raw verdict dicts by claim index, the faithfulness value) for every answer
    with a claim: what a reveal shows beyond the label (the reason, each jury judge's and repeat's label)."""
    from genevals.output import runfolder
    from genevals.report.clean import CLAIMS_METRIC, text

    out: dict[tuple[str, str], tuple[dict[int, Mapping], Any]] = {}
    for _, row in runfolder.iter_rows(run_dir):
        key = (text(row.get("system", "default")), text(row.get("id")))
        if key in out or key not in samples or not samples[key].claims:
            continue
        metrics = row.get("metrics")
        metric = metrics.get(CLAIMS_METRIC) if isinstance(metrics, Mapping) else None
        details = metric.get("details") if isinstance(metric, Mapping) else None
        raw = details.get("verdicts") if isinstance(details, Mapping) else None
        by_index: dict[int, Mapping] = {}
        for v in raw if isinstance(raw, list) else []:
            if isinstance(v, Mapping) and isinstance(v.get("claim_index"), int):
                by_index.setdefault(v["claim_index"], v)
        value = metric.get("value") if isinstance(metric, Mapping) else None
        out[key] = (by_index, value if isinstance(value, (int, float)) and not isinstance(value, bool) else None)
    return out
