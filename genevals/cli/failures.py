"""Judge failures, said out loud: the judge's model and preflight before scoring, the reasons with counts
after it, and the share of judge failures that decides exit code 3 (``--max-judge-errors``).

A sample counts once per judge family (its outputs share one status and reason). The share of a family is
(``judge_error`` + ``parse_error`` samples) / samples it judged (dry runs left out); the run's share is the
largest over its families. A reply that cannot be read is as unusable as no reply: a judge that answers 20 of
20 samples with garbage has scored nothing, and the run must not pass at 0/20 coverage.
"""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

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
        if status == types.DRY_RUN:
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


def from_run(out: Path) -> JudgeFailures:
    """The judge failures of a run folder's results.jsonl."""
    from genevals import runfolder

    declared_outputs = runfolder.read_outputs(out)  # what the run wrote: the family that ran, and its kind
    found = JudgeFailures()
    if not any(isinstance(d, dict) and d.get("kind") == "judge" for d in declared_outputs.values()):
        return found  # nothing judged: no need to read the results again
    for result in runfolder.read_results(out):
        seen: set[str] = set()
        for name, value in result.metrics.items():
            declared = declared_outputs.get(name)
            if not isinstance(declared, dict) or declared.get("kind") != "judge" or declared.get("family") in seen:
                continue
            seen.add(declared["family"])
            found.add(declared["family"], value.status, value.reason)
    return found


def from_statuses(family: str, outcomes: Iterable[tuple[str, str | None]]) -> JudgeFailures:
    """The judge failures of (status, reason) pairs, one per sample of one family (``genevals validate``)."""
    found = JudgeFailures()
    for status, reason in outcomes:
        found.add(family, status, reason)
    return found


def report(found: JudgeFailures, limit: float) -> bool:
    """Print the reasons to stderr; True when the share of judge failures is above ``limit`` (then say so)."""
    for line in found.lines():
        print(line, file=sys.stderr)
    worst = found.worst()
    if worst is None or found.share <= limit:
        return False
    family, errors, judged = worst
    print(f"genevals: error: {errors} of {judged} {family} samples ({errors / judged:.0%}) ended in judge_error "
          "or parse_error, "
          f"more than --max-judge-errors {limit:g}; everything scored is written, but the judge needs fixing "
          "(see the reasons above) before these numbers mean anything", file=sys.stderr)
    return True


def prepare_judge(metrics: Iterable[str] | None, options: Any, judge: Any, *, check: bool,
                  eager: bool) -> tuple[Any, str | None]:
    """The judge of a run about to start, and a problem that stops it (exit 2), when any metric is judged by
    an LLM (not when faithfulness falls back to the local checker).

    The model is named (:mod:`genevals.judge.models`: without --judge-model, the one the server lists). With
    ``check``, the preflight (:mod:`genevals.judge.preflight`) runs now when ``eager`` (every sample will call
    the judge: no cache, nothing resumed; or on Ray, whose actors cannot stop the run), else before the first
    call the cache cannot answer, so a re-run answered from the cache sends nothing."""
    from genevals import registry
    from genevals.judge.config import JudgeConfig
    from genevals.judge.models import JudgeModelError, with_model
    from genevals.judge.preflight import preflight
    from genevals.metrics.base import JUDGE

    judge = judge if judge is not None else JudgeConfig()
    if not any(s.metric.kind == JUDGE for s in registry.select(metrics, options, judge)):
        return judge, None
    try:
        judge = with_model(judge)
    except JudgeModelError as exc:
        return judge, str(exc)
    if check and eager:
        return judge, preflight(judge)
    return judge.with_options(preflight=check), None
