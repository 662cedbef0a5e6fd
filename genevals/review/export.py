"""Reviewed answers as labelled rows for ``genevals validate`` (the schema of
:mod:`genevals.validation.labels`: ``context``, ``response``, ``question``, ``hallucinated``, ``spans``).

Only fresh decisions count (:func:`genevals.review.tally.stale_reason`). An answer is written when the reviewers
settled it:

* **hallucinated** when a claim's reviewers confirmed it (:func:`~genevals.review.tally.consensus`) or someone
  marked answer text as a missed hallucination; ``spans`` are those claims' spans and the marked spans;
* **not hallucinated** when every claim the judge flagged was called a false alarm or *not in the answer* (the
  judge invented it: never the answer's hallucination, as faithfulness leaves out a claim it finds ``invented``,
  so ``genevals validate`` and the agreement gate count both sides alike), and nothing was marked.

An answer with flagged claims still undecided (or only unsure, or tied) is left out and counted, and so is an
answer with a flagged claim that no reviewer has decided on at all.

A conversation's turn keeps ``conversation_id``, ``turn`` and the ``history`` it was judged with (and
``history_dropped``), so ``genevals validate`` judges it as the run did.

Every row says whether it was labelled ``blind``: every current decision on the answer was made in ``genevals
review --blind`` before the judge's verdicts were shown. An answer the review queue drew (``--queue N``:
:mod:`genevals.review.queue`) also carries its ``stratum``, ``inclusion_probability``, ``stratum_size``,
``stratum_drawn``, ``queue_position`` and ``queue_strata`` (every stratum's size, so ``genevals validate`` sees
strata no label comes from), from which :mod:`genevals.validation.weighted` estimates the judge's agreement on
the whole run; the rows of other answers carry ``inclusion_probability: null``. A drawn answer is settled only
when every claim has a verdict (a confirmed one settles it as hallucinated): the reviewer judged each claim
without knowing which ones the judge flagged, and a clean answer has none flagged.

The decisions on citation verdicts go to a second file, in the schema ``genevals validate --judge citations``
reads (:func:`genevals.review.citations.label_rows`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from genevals.review import citations
from genevals.review.claims import ReviewSample, load_samples
from genevals.review.items import stale_count
from genevals.review.store import NOT_HALLUCINATED, Queue, current, read_store
from genevals.review.tally import Samples, consensus, fresh_by_claim, stale_reason


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans joined, sorted (as ``genevals validate`` merges them; not imported from
    there, so the review never loads scoring code)."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


@dataclass(frozen=True)
class ExportCounts:
    written: int
    hallucinated: int
    #: answers with decisions, left out because some flagged claim has no reviewers' verdict
    unsettled: int
    #: rows of review.sqlite that cannot be decisions (a damaged or hand-edited store), left out
    skipped: int = 0
    #: answers with a claim the judge flagged and no fresh decision at all, left out
    unreviewed: int = 0
    #: answers the review queue drew, and those of them written
    queued: int = 0
    queued_written: int = 0
    #: answers the queue drew that the run no longer has (scored again without them): they cannot be labelled
    queued_stale: int = 0


def labelled_rows(decisions: list, samples: Samples, queue: Queue | None = None
                  ) -> tuple[list[dict[str, Any]], ExportCounts]:
    by_claim = fresh_by_claim(decisions, samples)
    blind: dict[tuple[str, str], bool] = {}
    for d in current(decisions):
        if not stale_reason(d, samples):
            blind[(d.system, d.sample_id)] = blind.get((d.system, d.sample_id), True) and d.blind
    design = _design(queue)
    missed: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for d in current(decisions):
        if d.decision == "missed" and not stale_reason(d, samples):
            missed.setdefault((d.system, d.sample_id), []).append(d.span)
    touched = {(s, i) for s, i, _ in by_claim} | set(missed)
    rows, unsettled, unreviewed = [], 0, 0
    for key, sample in samples.items():
        if key not in touched:
            unreviewed += any(c.flagged for c in sample.claims)
            continue
        verdicts = {c.index: consensus(by_claim.get((*key, c.index), [])) for c in sample.claims}
        confirmed = [c for c in sample.claims if verdicts[c.index] == "confirmed"]
        if confirmed or missed.get(key):
            spans = [s for c in confirmed for s in c.spans] + missed.get(key, [])
            label = True
        elif all(verdicts[c.index] in NOT_HALLUCINATED for c in sample.claims if c.flagged or key in design):
            spans, label = [], False
        else:
            unsettled += 1
            continue
        rows.append({"id": sample.id, "model": sample.system, "question": sample.question,
                     "context": list(sample.contexts), "response": sample.answer, "hallucinated": label,
                     "spans": [{"start": s, "end": e} for s, e in merge_spans(spans)],
                     "source": _source(sample), "blind": blind.get(key, False),
                     "inclusion_probability": None, **design.get(key, {}), **_turn(sample)})
    queued_written = sum(1 for r in rows if r["inclusion_probability"] is not None)
    return rows, ExportCounts(len(rows), sum(r["hallucinated"] for r in rows), unsettled, unreviewed=unreviewed,
                              queued=len(design), queued_written=queued_written)


def _turn(sample: ReviewSample) -> dict[str, Any]:
    """A conversation turn's fields, for ``genevals validate`` to judge the turn with its history as the run
    did; {} for a single answer."""
    if sample.conversation_id is None and not sample.history:
        return {}
    out: dict[str, Any] = {"conversation_id": sample.conversation_id, "turn": sample.turn,
                           "history": [{"role": r, "content": c} for r, c in sample.history]}
    if sample.history_dropped:
        out["history_dropped"] = sample.history_dropped
    return out


def _design(queue: Queue | None) -> dict[tuple[str, str], dict[str, Any]]:
    """The sampling-design fields of each answer the queue drew."""
    if queue is None:
        return {}
    strata = dict(sorted(queue.sizes.items()))
    return {(system, sample_id): {"stratum": stratum, "inclusion_probability": p,
                                  "stratum_size": queue.sizes.get(stratum, 0),
                                  "stratum_drawn": queue.drawn.get(stratum, 0), "queue_position": n,
                                  "queue_strata": strata}
            for n, (system, sample_id, stratum, p) in enumerate(queue.entries)}


def export_labels(run_dir: str | Path, out_path: str | Path,
                  citations_path: str | Path | None = None) -> tuple[ExportCounts, int]:
    """Write the run's reviewed answers to ``out_path`` (JSONL) and, when ``citations_path`` is given and some
    citation verdict is settled, the citation labels there; (what was written, the answers with citation
    labels)."""
    samples = load_samples(run_dir)
    stored = read_store(run_dir)  # StoreError, naming the file, before anything is written
    rows, counts = labelled_rows(stored.decisions, samples, stored.queue)
    counts = replace(counts, skipped=stored.skipped, queued_stale=stale_count(samples, stored.queue))
    _write(out_path, rows)
    cited = citations.label_rows(stored.citations, samples) if citations_path else []
    if cited:
        _write(citations_path, cited)  # type: ignore[arg-type]
    return counts, len(cited)


def _write(path: str | Path, rows: list[dict[str, Any]]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)


def _source(sample: Any) -> str:
    """Where the reviewed answer is in results.jsonl: a conversation's turns share one line, found by their
    conversation and number."""
    if sample.conversation_id is not None:
        return f"review of results.jsonl conversation {sample.conversation_id}, turn {sample.turn}"
    return f"review of results.jsonl line {sample.line}"
