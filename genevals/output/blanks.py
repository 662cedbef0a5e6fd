"""What a run scored that had nothing in it: per system, the samples whose answer is blank (the lexical metrics
score it 0, as their reference scripts do) and those whose ranking was empty while relevance labels were given
(the retrieval metrics score it as trec_eval scores an empty ranking, 0). Either is a fair score for a system
that answered or retrieved nothing, and no score at all for a test set whose answers or contexts were never
filled in (one from ``genevals generate`` or ``curate``): :func:`genevals.lifecycle.gates.blanks` tells the two
apart by whether every sample is blank.

Counted as the summary counts, from the metrics' details (the lexical metrics' ``empty_answer``; retrieval's
``n_retrieved`` and ``n_relevant``: a columnar batch's samples hold neither answers nor contexts): per sample in
one process, from a batch's columns, merged from worker processes.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from genevals.types import OK


def _blank(text: str | None) -> bool:
    return not text or text.isspace()


def _empty_ranking(details: Mapping[str, Any] | None) -> bool:
    """A sample the retrieval metrics scored on an empty ranking: labels with a relevant id, nothing retrieved."""
    return bool(details) and details.get("n_retrieved") == 0 and (details.get("n_relevant") or 0) > 0


class BlankTally:
    """Per system: samples whose blank answer a metric scored (``answers``: the answer blank and a result with
    ``empty_answer`` in its details, so a file read for retrieval alone, whose samples hold no answer, counts
    none on either path) and samples scored on an empty ranking (``rankings``)."""

    def __init__(self) -> None:
        self.answers: Counter[str] = Counter()
        self.rankings: Counter[str] = Counter()

    def _sample(self, sample: Any, details: Iterable[Mapping[str, Any] | None]) -> None:
        """Count ``sample`` from the details of its ok results."""
        blank = ranking = False
        for found in details:
            if found:
                blank = blank or bool(found.get("empty_answer"))
                ranking = ranking or _empty_ranking(found)
        if blank and _blank(sample.answer):
            self.answers[sample.system] += 1
        if ranking:
            self.rankings[sample.system] += 1

    def add_result(self, result: Any) -> None:
        self._sample(result.sample, (m.details for m in result.metrics.values() if m.status == OK))

    def add_scored(self, batch: Any) -> None:
        """A :class:`~genevals.scored.ScoredBatch`, read from its families' details (a family in columns shares
        one details mapping among its outputs; an empty ranking or answer is scored, so its status is ok)."""
        per_family = []
        for got, _keep in batch.families():
            details = getattr(got, "details", None)
            if details is None:  # one dict of results per sample
                details = [next((m.details for m in row.values() if m.status == OK), None) for row in got]
            per_family.append(details)
        for i, sample in enumerate(batch.samples):
            self._sample(sample, (details[i] for details in per_family))

    def merge(self, other: BlankTally) -> None:
        self.answers.update(other.answers)
        self.rankings.update(other.rankings)

    def to_dict(self, counts: Mapping[str, int]) -> dict[str, Any]:
        """``{"empty_answers": {system: {"empty": n, "of": samples}}, "empty_rankings": {...}}``, each only for
        the systems with some; {} when none has any."""
        out = {}
        for key, found in (("empty_answers", self.answers), ("empty_rankings", self.rankings)):
            systems = {system: {"empty": n, "of": counts.get(system, 0)} for system, n in found.items() if n}
            if systems:
                out[key] = systems
        return out
