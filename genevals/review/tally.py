r"""What the stored decisions say about a run: which are fresh and which stale, progress, agreement between
reviewers and the judge's precision on the claims reviewed.

* A decision is **stale** when its sample or claim is gone from the run, or its digest no longer matches the
  claim's (or the marked span's) current text: it was made on an earlier version of the run.
* **Progress**: flagged claims (the judge said contradicted or unverifiable) with at least one fresh decision,
  of all flagged claims in the run.
* **Agreement**: for each pair of reviewers, the claims both decided: *confirmed* against *false alarm* or *not
  in the answer* (both say the claim is no hallucination of the answer's; ``unsure`` is left out and counted),
  and Cohen's :math:`\kappa = (p_o - p_e) / (1 - p_e)` of those two binary decisions
  (:func:`genevals.stats.agreement.binary_metrics`); None when :math:`p_e = 1`.
* **Blind review** (:func:`blind_tally`): progress over every claim, no judge precision and no citation
  figures: nothing derived from a verdict before it is revealed.
* **Judge precision**: of the flagged claims whose reviewers reached a verdict (a strict majority of their
  confirmed / false alarm / not in the answer decisions; ties and unsure-only left out), the share confirmed as
  hallucinations, with a percentile-bootstrap 95% interval (:func:`genevals.stats.bootstrap_ci`). A claim the
  reviewers say is *not in the answer* is one the judge invented: never a hallucination of the answer's (as
  faithfulness leaves out a claim it finds ``invented``), so it counts against the judge's precision, and
  ``not_in_answer`` says how many.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Any

from genevals.report.clean import utf16_offsets
from genevals.review import citations
from genevals.review.claims import ReviewSample, digest
from genevals.review.store import NOT_HALLUCINATED, Decision, current
from genevals.stats import bootstrap_ci

from genevals.stats.agreement import binary_metrics, confusion
Samples = Mapping[tuple[str, str], ReviewSample]


def stale_reason(d: Decision, samples: Samples) -> str:
    """Why ``d`` no longer applies to the run ("" when it does)."""
    sample = samples.get((d.system, d.sample_id))
    if sample is None:
        return "the sample is no longer in the run"
    if d.claim_index is not None:
        claim = sample.claim(d.claim_index)
        if claim is None:
            return "the claim is no longer in the run"
        return "" if digest(claim.text) == d.digest else "the claim's text changed since the decision"
    start, end = d.span
    if end > len(sample.answer) or digest(sample.answer[start:end]) != d.digest:
        return "the answer changed since the text was marked"
    return ""


def consensus(decisions: Iterable[Decision]) -> str | None:
    """``confirmed`` when a strict majority of the decisive decisions says the claim is a hallucination of the
    answer's; when a strict majority says it is not, ``not_in_answer`` if a strict majority of all decisive
    decisions says the answer does not make the claim, else ``false_alarm``; None for a tie or none."""
    votes = [d.decision for d in decisions if d.decision in ("confirmed", *NOT_HALLUCINATED)]
    confirmed = votes.count("confirmed")
    if not votes or confirmed * 2 == len(votes):
        return None
    if confirmed * 2 > len(votes):
        return "confirmed"
    return "not_in_answer" if votes.count("not_in_answer") * 2 > len(votes) else "false_alarm"


def fresh_by_claim(decisions: Iterable[Decision], samples: Samples) -> dict[tuple[str, str, int], list[Decision]]:
    """The current, fresh claim decisions grouped by (system, sample id, claim index)."""
    out: dict[tuple[str, str, int], list[Decision]] = {}
    for d in current(decisions):
        if d.claim_index is not None and not stale_reason(d, samples):
            out.setdefault((d.system, d.sample_id, d.claim_index), []).append(d)
    return out


def agreement(by_claim: Mapping[Any, list[Decision]]) -> list[dict[str, Any]]:
    """Cohen's kappa for each pair of reviewers over the claims both decided (confirmed vs false alarm)."""
    reviewers = sorted({d.reviewer for ds in by_claim.values() for d in ds})
    out = []
    for a, b in combinations(reviewers, 2):
        pairs, unsure = [], 0
        for ds in by_claim.values():
            mine = {d.reviewer: d.decision for d in ds}
            if a in mine and b in mine:
                if "unsure" in (mine[a], mine[b]):
                    unsure += 1
                else:
                    pairs.append((mine[a] == "confirmed", mine[b] == "confirmed"))
        if not pairs and not unsure:
            continue
        kappa = binary_metrics(confusion([p[0] for p in pairs], [p[1] for p in pairs]))["kappa"] if pairs else None
        out.append({"a": a, "b": b, "n": len(pairs), "agree": sum(x == y for x, y in pairs), "unsure": unsure,
                    "kappa": kappa})
    return out


def judge_precision(by_claim: Mapping[tuple[str, str, int], list[Decision]], samples: Samples) -> dict[str, Any]:
    """The judge's precision on the flagged claims with a reviewers' verdict, with its n and 95% interval."""
    hits, invented = [], 0
    for (system, sample_id, index), ds in by_claim.items():
        claim = samples[(system, sample_id)].claim(index)
        verdict = consensus(ds)
        if claim is not None and claim.flagged and verdict is not None:
            hits.append(1.0 if verdict == "confirmed" else 0.0)
            invented += verdict == "not_in_answer"
    if not hits:
        return {"precision": None, "ci95": None, "n": 0, "confirmed": 0, "not_in_answer": 0}
    low, high = bootstrap_ci(hits)
    return {"precision": sum(hits) / len(hits), "ci95": [low, high], "n": len(hits), "confirmed": int(sum(hits)),
            "not_in_answer": invented}


def page_decision(d: Decision, samples: Samples) -> dict[str, Any]:
    """One decision for the page: marked spans in UTF-16 offsets (as JavaScript slices), and why it is stale."""
    out: dict[str, Any] = {"id": d.id, "reviewer": d.reviewer, "time": d.time, "system": d.system,
                           "sample_id": d.sample_id, "claim": d.claim_index, "decision": d.decision, "note": d.note,
                           "span": None, "text": "", "stale": stale_reason(d, samples)}
    sample = samples.get((d.system, d.sample_id))
    if d.span is not None and sample is not None and not out["stale"]:
        to16 = utf16_offsets(sample.answer)
        out["span"] = [to16(d.span[0]), to16(d.span[1])]
        out["text"] = sample.answer[d.span[0]:d.span[1]]
    return out


def tally(decisions: list[Decision], samples: Samples, citation_decisions: list | None = None) -> dict[str, Any]:
    """Everything the review page shows about the stored decisions (JSON-ready); ``citations``: the tally of the
    decisions on citation verdicts (:func:`genevals.review.citations.tally`)."""
    now = current(decisions)
    by_claim = fresh_by_claim(decisions, samples)
    flagged = [(s.system, s.id, c.index) for s in samples.values() for c in s.claims if c.flagged]
    reviewed = sum(1 for key in flagged if key in by_claim)
    missed = [d for d in now if d.decision == "missed" and not stale_reason(d, samples)]
    return {
        "decisions": [page_decision(d, samples) for d in now],
        "progress": {"reviewed": reviewed, "flagged": len(flagged)},
        "reviewers": sorted({d.reviewer for d in now}),
        "stale": sum(1 for d in now if stale_reason(d, samples)),
        "missed": len(missed),
        "agreement": agreement(by_claim),
        "precision": judge_precision(by_claim, samples),
        "stored": len(decisions) + len(citation_decisions or []),
        "citations": citations.tally(list(citation_decisions or []), samples),
    }


def blind_tally(decisions: list[Decision], samples: Samples, citation_decisions: list | None = None) -> dict[str, Any]:
    """What a blind review's answers (``GET /api/state``, each ``POST /api/decisions``) say about the stored
    decisions: nothing computed from the judge's verdicts, so that no count, field or time taken differs between a
    flagged claim and a supported one (:func:`tally`'s progress counts flagged claims only, and its precision is the
    judge's). Progress is over every claim; agreement is between reviewers."""
    now = current(decisions)
    by_claim = fresh_by_claim(decisions, samples)
    return {
        "blind": True,
        "decisions": [page_decision(d, samples) for d in now],
        "progress": {"reviewed": len(by_claim), "claims": sum(len(s.claims) for s in samples.values())},
        "reviewers": sorted({d.reviewer for d in now}),
        "stale": sum(1 for d in now if stale_reason(d, samples)),
        "missed": sum(1 for d in now if d.decision == "missed" and not stale_reason(d, samples)),
        "agreement": agreement(by_claim),
        "stored": len(decisions) + len(citation_decisions or []),
    }


def report_state(run_dir: Any) -> dict[str, Any]:
    """The decisions stored in a run folder, as the static report embeds them (read-only). A store that cannot
    be read leaves the report without decisions, saying why (``unreadable``); rows skipped are counted."""
    from genevals.review.claims import load_samples
    from genevals.review.store import Stored, StoreError, read_store, store_path

    samples = load_samples(run_dir)
    try:
        stored, unreadable = read_store(run_dir, queue=False), ""
    except StoreError as exc:
        stored, unreadable = Stored([], []), str(exc)
    state = tally(stored.decisions, samples, stored.citations)
    return {"mode": "static", "run": str(run_dir), "store": os.path.lexists(store_path(run_dir)), **state,
            "skipped": stored.skipped, "unreadable": unreadable}
