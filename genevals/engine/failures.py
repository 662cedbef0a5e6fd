"""Judge failures, counted as results are recorded (:class:`~genevals.engine.recorder.RunRecorder`), so that the
exit code and the reasons printed after a run never need results.jsonl read again.

A sample counts once per judge family (its outputs share one status and reason). The share of a family is
(``judge_error`` + ``parse_error`` samples) / samples it judged (dry runs left out); the run's share is the
largest over its families. A reply that cannot be read is as unusable as no reply: a judge that answers 20 of
20 samples with garbage has scored nothing, and the run must not pass at 0/20 coverage.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping

from genevals import types

#: statuses whose reasons are listed on stderr after a run, and that count toward --max-judge-errors
LISTED = (types.JUDGE_ERROR, types.PARSE_ERROR)
SHOWN_REASONS = 10


@dataclass
class JudgeFailures:
    judged: Counter = field(default_factory=Counter)  # family -> samples judged
    errors: Counter = field(default_factory=Counter)  # family -> samples ended in judge_error or parse_error
    reasons: Counter = field(default_factory=Counter)  # (status, reason) -> samples

    def add(self, family: str, status: str, reason: str | None) -> None:
        if status == types.DRY_RUN or status in types.NOT_COUNTED:  # a conversation metric's other turns: no call
            return
        self.judged[family] += 1
        if status in LISTED:
            self.errors[family] += 1
            self.reasons[(status, reason or "(no reason given)")] += 1

    @property
    def share(self) -> float:
        """The largest share of judge failures (judge_error or parse_error) over the judge families (0 when
        nothing was judged)."""
        return max((self.errors[f] / n for f, n in self.judged.items() if n), default=0.0)

    def worst(self) -> tuple[str, int, int] | None:
        """(family, judge errors, samples judged) of the family with the largest share."""
        if not self.judged:
            return None
        family = max(self.judged, key=lambda f: (self.errors[f] / self.judged[f], f))
        return family, self.errors[family], self.judged[family]

    def lines(self) -> list[str]:
        """stderr lines: per status its total, then each reason with its count, most frequent first."""
        if not self.reasons:
            return []
        totals = Counter()
        for (status, _), n in self.reasons.items():
            totals[status] += n
        head = ", ".join(f"{n} {status}" for status, n in sorted(totals.items()))
        out = [f"genevals: judge failures: {head}; reasons:"]
        ranked = sorted(self.reasons.items(), key=lambda item: (-item[1], item[0]))
        for (status, reason), n in ranked[:SHOWN_REASONS]:
            out.append(f"  {n:>5} x {status}: {reason}")
        if len(ranked) > SHOWN_REASONS:
            out.append(f"  ... and {len(ranked) - SHOWN_REASONS} other reason(s) (see results.jsonl)")
        return out

    def add_result(self, metrics: Mapping[str, types.MetricResult], judged: Mapping[str, str]) -> None:
        """Count one sample's result: ``judged`` maps each output of a judge family to its family."""
        seen: set[str] = set()
        for name, value in metrics.items():
            family = judged.get(name)
            if family is None or family in seen:
                continue
            seen.add(family)
            self.add(family, value.status, value.reason)
