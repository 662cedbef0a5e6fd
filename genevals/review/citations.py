r"""Reviewers' decisions on the citation check's verdicts: what a run's answers cite, which decisions still apply,
the tally the review page shows, and the labelled rows ``genevals review export`` writes for ``genevals validate
--judge citations``.

A **citation** is sentence *i* of an answer citing context *k* (0-based, as in ``citation_recall``'s details,
which both citation families write). The check's verdict on it is ``supported`` when the citation is relevant
(ALCE: the sentence is supported by its citations and this one is needed or enough), else ``not_supported``;
the report's chip shows the same. A reviewer confirms the verdict or rejects it (the other verdict); the
reviewer's **label** is the verdict confirmed, or the corrected one.

* A decision is **stale** when the sample, the sentence or the citation is gone, or the digest of the sentence's
  text and the cited chunk's text changed (the run was scored again on other text).
* **Consensus**: the strict majority of the reviewers' current fresh labels on a citation (ties left out).
* **Judge agreement**: over the checked citations with a consensus, the share whose current verdict equals it,
  with a percentile-bootstrap 95% interval, and Cohen's :math:`\kappa` of verdict against consensus.

Label rows (JSONL, one per answer with a settled citation): ``id``, ``model``, ``question``, ``context`` (the
list of chunk texts), ``response`` (the answer), ``citations`` (every sentence in order: ``{"text", "contexts"}``
with 1-based positions, the ``citations`` input field, so the judge re-checks the same sentences and citations),
``citation_labels`` (``[{"sentence": i, "context": k, "supported": bool}]``, both 0-based) and ``source``.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from genevals.report.clean import text, whole
from genevals.review.store import CITATION_VERDICTS, CitationDecision, StoreError, current
from genevals.stats import bootstrap_ci

#: a :class:`genevals.review.claims.ReviewSample` (which holds this module's sentences: not imported back)
from genevals.stats.agreement import binary_metrics, confusion
ReviewSample = Any

#: the results' metric whose details carry the sentences and their checked citations
CITATION_METRIC = "citation_recall"


def citation_digest(sentence: str, chunk: str) -> str:
    """The SHA-256 (hex) of a sentence's text and the cited chunk's text (UTF-8, a NUL between)."""
    return hashlib.sha256(f"{sentence}\x00{chunk}".encode()).hexdigest()


@dataclass(frozen=True)
class ReviewSentence:
    index: int
    text: str
    #: the contexts it cites (0-based, in order)
    cited: tuple[int, ...]
    #: context -> the check's verdict on that citation (only the checked ones)
    verdicts: Mapping[int, str] = field(default_factory=dict)


def sentences_of(metrics: Any, n_contexts: int) -> tuple[ReviewSentence, ...]:
    """The answer's sentences with their checked citations, from a results row's ``metrics`` (() without)."""
    result = metrics.get(CITATION_METRIC) if isinstance(metrics, Mapping) else None
    details = result.get("details") if isinstance(result, Mapping) else None
    raw = details.get("sentences") if isinstance(details, Mapping) else None
    out = []
    for position, item in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(item, Mapping):
            continue
        index = whole(item.get("index"))
        cited = tuple(k for k in (whole(c) for c in item.get("cited") or []) if k is not None and 0 <= k < n_contexts)
        verdicts = {}
        for check in item.get("citations") or []:
            k = whole(check.get("context")) if isinstance(check, Mapping) else None
            if k in cited:
                verdicts[k] = "supported" if check.get("relevant") is True else "not_supported"
        out.append(ReviewSentence(position if index is None else index, text(item.get("text")), cited, verdicts))
    return tuple(out)


def _sentence(sample: ReviewSample, index: Any) -> ReviewSentence | None:
    if isinstance(index, bool) or not isinstance(index, int):
        return None
    return next((s for s in sample.sentences if s.index == index), None)


def decision_from_request(body: Mapping[str, Any], sample: ReviewSample) -> CitationDecision:
    """A decision on one citation of ``sample`` from a request (``citation: {sentence, context}``, ``decision``
    confirmed / rejected / withdrawn, ``reviewer``, ``note``); LookupError when the citation is not in the run,
    StoreError when the request is bad."""
    where = body.get("citation")
    if not isinstance(where, Mapping):
        raise StoreError("citation: expected {sentence, context} (0-based)")
    for name in ("sentence", "context"):  # a list would be unhashable below, 0.0 would pass `in` and fail [ ]
        value = where.get(name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise StoreError(f"citation.{name}: a 0-based index (an integer), not {type(value).__name__}")
    sentence, context = _sentence(sample, where.get("sentence")), where["context"]
    if sentence is None or context not in sentence.verdicts:
        raise LookupError("citation: no such checked citation in this sample (sentence, context)")
    shown = sentence.verdicts[context]
    decision, reviewer, note = body.get("decision"), body.get("reviewer"), body.get("note", "")
    if not isinstance(reviewer, str):
        raise StoreError("reviewer: a name is needed")
    corrected = next(v for v in CITATION_VERDICTS if v != shown) if decision == "rejected" else None
    return CitationDecision(reviewer=reviewer.strip(), system=sample.system, sample_id=sample.id,
                            sentence=sentence.index, context=context, shown=shown, decision=str(decision),
                            digest=citation_digest(sentence.text, sample.contexts[context]), corrected=corrected,
                            note=note if isinstance(note, str) else None)  # type: ignore[arg-type]


def stale_reason(d: CitationDecision, samples: Mapping[tuple[str, str], ReviewSample]) -> str:
    """Why ``d`` no longer applies to the run ("" when it does)."""
    sample = samples.get((d.system, d.sample_id))
    if sample is None:
        return "the sample is no longer in the run"
    sentence = _sentence(sample, d.sentence)
    if sentence is None or d.context not in sentence.cited:
        return "the citation is no longer in the run"
    if citation_digest(sentence.text, sample.contexts[d.context]) != d.digest:
        return "the sentence or the cited chunk changed since the decision"
    return ""


def consensus_labels(decisions: Iterable[CitationDecision], samples) -> dict[tuple[str, str, int, int], str]:
    """(system, sample id, sentence, context) -> the reviewers' strict-majority label, for the fresh decisions."""
    votes: dict[tuple[str, str, int, int], list[str]] = {}
    for d in current(decisions):
        if d.label is not None and not stale_reason(d, samples):
            votes.setdefault((d.system, d.sample_id, d.sentence, d.context), []).append(d.label)
    out = {}
    for key, labels in votes.items():
        supported = labels.count("supported")
        if supported * 2 != len(labels):
            out[key] = "supported" if supported * 2 > len(labels) else "not_supported"
    return out


def tally(decisions: list[CitationDecision], samples) -> dict[str, Any]:
    """What the review page shows about the citation decisions (JSON-ready)."""
    now = current(decisions)
    checked = {(s.system, s.id, c.index, k): v for s in samples.values() for c in s.sentences
               for k, v in c.verdicts.items()}
    fresh = [d for d in now if not stale_reason(d, samples)]
    settled = [(checked[key], label) for key, label in consensus_labels(decisions, samples).items() if key in checked]
    agreement: dict[str, Any] = {"n": len(settled), "agree": sum(v == g for v, g in settled), "accuracy": None,
                                 "ci95": None, "kappa": None}
    if settled:
        hits = [1.0 if v == g else 0.0 for v, g in settled]
        agreement.update(accuracy=sum(hits) / len(hits), ci95=list(bootstrap_ci(hits)), kappa=binary_metrics(
            confusion([v == "not_supported" for v, _ in settled], [g == "not_supported" for _, g in settled]))["kappa"])
    return {
        "decisions": [{"id": d.id, "reviewer": d.reviewer, "time": d.time, "system": d.system,
                       "sample_id": d.sample_id, "sentence": d.sentence, "context": d.context, "shown": d.shown,
                       "decision": d.decision, "corrected": d.corrected, "note": d.note,
                       "stale": stale_reason(d, samples)} for d in now],
        "progress": {"reviewed": len({(d.system, d.sample_id, d.sentence, d.context) for d in fresh}),
                     "checked": len(checked)},
        "stale": len(now) - len(fresh),
        "agreement": agreement,
    }


def label_rows(decisions: list[CitationDecision], samples) -> list[dict[str, Any]]:
    """The labelled rows for ``genevals validate --judge citations``: one per answer with a settled citation."""
    by_sample: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for (system, sample_id, sentence, context), label in sorted(consensus_labels(decisions, samples).items()):
        by_sample.setdefault((system, sample_id), []).append(
            {"sentence": sentence, "context": context, "supported": label == "supported"})
    rows = []
    for key, sample in samples.items():
        if key not in by_sample:
            continue
        rows.append({"id": sample.id, "model": sample.system, "question": sample.question,
                     "context": list(sample.contexts), "response": sample.answer,
                     "citations": [{"text": s.text, "contexts": [str(k + 1) for k in s.cited]}
                                   for s in sample.sentences],
                     "citation_labels": by_sample[key], "source": f"review of results.jsonl line {sample.line}"})
    return rows
