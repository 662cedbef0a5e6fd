"""``assert_scores``: score data in a test and fail it, with a message worth reading, when a gate is missed.

    from genevals.testing import assert_scores

    def test_answers_stay_grounded():
        assert_scores("tests/data/golden.jsonl", metrics=["faithfulness", "token_f1"],
                      fail_under={"faithfulness": 0.8, "token_f1": 0.5}, fail_over={"contradiction_rate": 0.05})

A gate is checked as ``genevals run --fail-under/--fail-over`` checks it (:mod:`genevals.output.thresholds`): per
system, on the mean; a metric that scored nothing misses its gate. A gate that cannot be checked (unknown metric,
a flag against the metric's direction, a limit outside its range) is a ``ThresholdError`` before anything is
scored, not a failed test. The judge's replies are cached (the judge's own cache; under pytest the plugin puts
it in pytest's cache folder), so a second run of an unchanged test asks the judge nothing.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genevals import registry
from genevals.output import thresholds as th
from genevals.output.results import Results
from genevals.types import CONTRADICTED, UNVERIFIABLE

#: samples listed per missed gate in a failure message, by default
WORST = 5
_CUT = 160


class ScoresFailed(AssertionError):
    """Gates were missed; ``results`` holds every sample's scores and ``missed`` each failure line."""

    def __init__(self, message: str, results: Results, missed: Sequence[str]) -> None:
        super().__init__(message)
        self.results, self.missed = results, list(missed)


def gates(fail_under: Mapping[str, float] | None, fail_over: Mapping[str, float] | None) -> list[th.Threshold]:
    """The thresholds, each checked against what its metric declares (direction, range) now, before scoring."""
    given = [th.Threshold(str(name), th.limit_value(str(name), limit), kind)
             for kind, limits in ((th.FAIL_UNDER, fail_under), (th.FAIL_OVER, fail_over))
             for name, limit in (limits or {}).items()]
    declared = {t.metric: registry.declaration_of(t.metric) for t in given}
    th.validate(given, {name: d for name, d in declared.items() if d is not None}, registry.declaration_of,
                registry.known_names())
    return given


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _CUT else text[:_CUT - 3] + "..."


def unsupported_claims(result: Any) -> list[str]:
    """The sample's claims judged contradicted or unverifiable, each with its label and the judge's reason."""
    lines = []
    for metric in result.metrics.values():
        details = metric.details or {}
        found, verdicts = details.get("claims"), details.get("verdicts")
        if not isinstance(found, list) or not isinstance(verdicts, list):  # contradiction_rate's claims: a count
            continue
        claims = {c.get("index"): c.get("text") for c in found if isinstance(c, Mapping)}
        for verdict in verdicts:
            if isinstance(verdict, Mapping) and verdict.get("label") in (CONTRADICTED, UNVERIFIABLE):
                reason = f" ({_short(verdict['reason'])})" if verdict.get("reason") else ""
                lines.append(f"{verdict['label']}: \"{_short(claims.get(verdict.get('claim_index'), '?'))}\"{reason}")
    return list(dict.fromkeys(lines))


def worst_samples(results: Results, gate: th.Threshold, n: int = WORST) -> list[str]:
    """The ``n`` samples that pull ``gate``'s mean the wrong way (an unscored one first, with its reason), each
    with its answer and its unsupported claims."""
    scored, unscored = [], []
    for result in results.samples:
        metric = result.metrics.get(gate.metric)
        if metric is None:
            continue
        (unscored if metric.value is None else scored).append(result)
    scored.sort(key=lambda r: r.metrics[gate.metric].value, reverse=gate.kind == th.FAIL_OVER)
    lines = []
    for result in (unscored + scored)[:n]:
        metric = result.metrics[gate.metric]
        value = f"{metric.value:.4f}" if metric.value is not None else f"unscored, {metric.status}: {metric.reason}"
        lines.append(f"  {result.sample.id} [{result.sample.system}] {gate.metric} = {value}")
        lines.append(f"      answer: \"{_short(result.sample.answer)}\"")
        lines += [f"      {claim}" for claim in unsupported_claims(result)]
    return lines


def failure_message(results: Results, missed: Mapping[th.Threshold, Sequence[str]], worst: int) -> str:
    """What a failed test says: the gates missed, then per missed gate its worst samples."""
    n = sum(len(lines) for lines in missed.values())
    lines = [f"genevals: {n} gate{'s' if n != 1 else ''} missed on {len(results.samples)} samples:"]
    lines += [f"  {line}" for failures in missed.values() for line in failures]
    for gate in missed:
        lines.append(f"worst samples for {gate.metric} ({gate.symbol} {gate.limit:g}):")
        lines += worst_samples(results, gate, worst) or ["  (no sample has this metric)"]
    return "\n".join(lines)


def assert_scores(data: Any, metrics: Sequence[str] | None = None, *, fail_under: Mapping[str, float] | None = None,
                  fail_over: Mapping[str, float] | None = None, worst: int = WORST, **evaluate: Any) -> Results:
    """Score ``data`` (a JSONL/CSV/Parquet path, a DataFrame or a list of row dicts) with ``metrics`` through
    :func:`genevals.evaluate` (``evaluate``: its other arguments: ``judge``, ``options``, ``column_map``,
    ``out_dir``, ...) and return the :class:`~genevals.output.results.Results`; raise :class:`ScoresFailed` (an
    AssertionError) naming every gate missed and the ``worst`` samples of each, with their unsupported claims."""
    from genevals.api import evaluate as score

    given = gates(fail_under, fail_over)
    evaluate["keep_samples"] = True  # the worst samples are listed from them
    results = score(data, metrics, **evaluate)
    systems = results.summary().get("systems") or {}
    missed = {gate: found for gate in given if (found := th.failures([gate], systems))}
    if missed:
        raise ScoresFailed(failure_message(results, missed, worst), results,
                           [line for lines in missed.values() for line in lines])
    return results
