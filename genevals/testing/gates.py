"""``assert_scores``: score data in a test and fail it, with a message worth reading, when a gate is missed.

    from genevals.testing import assert_scores

    def test_answers_stay_grounded():
        assert_scores("tests/data/golden.jsonl", metrics=["faithfulness", "token_f1"],
                      fail_under={"faithfulness": 0.8, "token_f1": 0.5}, fail_over={"contradiction_rate": 0.05})

A test fails where ``genevals run`` would not exit 0 (:mod:`genevals.cli.common`): a judge that cannot answer
(exit 2) or that failed on more than ``max_judge_errors`` of its samples (exit 3) is a :class:`JudgeFailed`; a
metric asked for that scored nothing, or a missed gate (exit 1), a :class:`ScoresFailed`. Both are
AssertionErrors: a failed test. A gate is checked as ``--fail-under/--fail-over`` checks it
(:mod:`genevals.output.thresholds`): per system, on the mean; a metric that scored nothing misses its gate.
An argument that cannot be used (a gate on an unknown metric, against the metric's direction or outside its
range, a list where a mapping belongs, a NaN) is a ValueError or TypeError naming it, before anything is scored
(:mod:`genevals.testing.arguments`), not a failed test. The judge's replies are cached (the judge's own cache;
under pytest the plugin puts it in pytest's cache folder), so a second run of an unchanged test asks the judge
nothing.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from genevals.output import thresholds as th
from genevals.output.results import Results
from genevals.testing import agreement, arguments
from genevals.types import CONTRADICTED, UNVERIFIABLE

#: samples listed per missed gate in a failure message, by default
WORST = 5
#: the share of judged samples that may end in judge_error or parse_error, by default (``--max-judge-errors``)
MAX_JUDGE_ERRORS = 0.05
#: missed gates listed in a failure message, at most
LISTED = 20
_CUT = 160


class ScoresFailed(AssertionError):
    """The run missed what the test asks of it (a gate, a metric that scored nothing); ``results`` holds every
    sample's scores (None when the run stopped before scoring) and ``missed`` each failure line."""

    def __init__(self, message: str, results: Results | None, missed: Sequence[str]) -> None:
        super().__init__(message)
        self.results, self.missed = results, list(missed)


class JudgeFailed(ScoresFailed):
    """The judge could not answer, or failed on more than ``max_judge_errors`` of its samples: the scores mean
    nothing yet, whatever the gates say (``genevals run`` exits 2 or 3)."""


class AgreementFailed(JudgeFailed):
    """``require_agreement``: the judge's kappa with the labels is below ``min_kappa``, too few labels tell, or
    no labelled sample is in the run; its gates are not checked (``genevals run`` exits 3). ``agreement`` holds
    the figure (:class:`genevals.validation.gate.Agreement`)."""

    def __init__(self, message: str, results: Results | None, missed: Sequence[str], found: Any = None) -> None:
        super().__init__(message, results, missed)
        self.agreement = found


def gates(fail_under: Any, fail_over: Any) -> list[th.Threshold]:
    """The thresholds, each checked against what its metric declares (direction, range) now, before scoring."""
    return arguments.thresholds(fail_under, fail_over)


def _short(text: Any, cut: int = _CUT) -> str:
    """One line of at most ``cut`` characters, control characters escaped (they would drive the terminal)."""
    text = " ".join(str(text).split())
    if len(text) > cut:
        text = text[:cut - 3] + "..."
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


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
        value = (f"{metric.value:.4f}" if metric.value is not None
                 else f"unscored, {metric.status}: {_short(metric.reason)}")
        lines.append(f"  {_short(result.sample.id)} [{_short(result.sample.system)}] {gate.metric} = {value}")
        lines.append(f"      answer: \"{_short(result.sample.answer)}\"")
        lines += [f"      {claim}" for claim in unsupported_claims(result)]
    return lines


def failure_message(results: Results, missed: Mapping[th.Threshold, Sequence[str]], worst: int) -> str:
    """What a failed test says: the gates missed, then per missed gate its worst samples."""
    every = [line for failures in missed.values() for line in failures]
    n = len(every)
    lines = [f"genevals: {n} gate{'s' if n != 1 else ''} missed on {len(results.samples)} samples:"]
    lines += [f"  {_short(line)}" for line in every[:LISTED]]
    if n > LISTED:  # one per system: a test over thousands of systems would print thousands of lines
        lines.append(f"  ... and {n - LISTED} more (the exception's .missed lists them all)")
    for gate in missed if worst else ():
        lines.append(f"worst samples for {gate.metric} ({gate.symbol} {gate.limit:g}):")
        lines += worst_samples(results, gate, worst) or ["  (no sample has this metric)"]
    return "\n".join(lines)


def judge_failure(results: Results, limit: float) -> list[str]:
    """The lines that say the judge failed on more than ``limit`` of its samples, with the reasons and their
    counts (as ``genevals run`` prints them before exiting 3); [] when it did not."""
    found = getattr(results, "judge_failures", None)
    worst = found.worst() if found is not None else None
    if worst is None or found.share <= limit:
        return []
    family, errors, judged = worst
    return [f"genevals: the judge failed on {errors} of {judged} {family} samples ({errors / judged:.0%}: "
            f"judge_error or parse_error), more than max_judge_errors={limit:g}; the scores mean nothing until "
            "the judge is fixed", *(_short(line, 3 * _CUT) for line in found.lines())]


def assert_scores(data: Any, metrics: Sequence[str] | None = None, *, fail_under: Mapping[str, float] | None = None,
                  fail_over: Mapping[str, float] | None = None, worst: int = WORST,
                  max_judge_errors: float = MAX_JUDGE_ERRORS, require_agreement: Any = None,
                  min_kappa: float | None = None, **evaluate: Any) -> Results:
    """Score ``data`` (a JSONL/CSV/Parquet path, a DataFrame or a list of row dicts) with ``metrics`` through
    :func:`genevals.evaluate` (``evaluate``: its other arguments: ``judge``, ``options``, ``column_map``,
    ``out_dir``, ...) and return the :class:`~genevals.output.results.Results`.

    Raise :class:`JudgeFailed` when the judge cannot answer (it is checked before its first call the cache cannot
    answer) or failed on more than ``max_judge_errors`` (a share, 0 to 1) of its samples, and
    :class:`ScoresFailed` naming every metric asked for that scored nothing and every gate missed, with the
    ``worst`` samples of each and their unsupported claims (both AssertionErrors). With ``require_agreement``
    (a labels export) the judge must first agree with the labels, kappa of at least ``min_kappa`` (default 0.6)
    on the run's labelled samples, else :class:`AgreementFailed` (:mod:`genevals.testing.agreement`). A mistake
    in an argument is a ValueError or TypeError naming it, before anything is scored."""
    from genevals.api import evaluate as score
    from genevals.judge.preflight import JudgeUnavailable

    __tracebackhide__ = True  # a failed test shows the test's own line and the message

    arguments.check_names(evaluate)
    gates(fail_under, fail_over)  # refused here, naming the gate, before anything is read
    worst = arguments.count(worst, "worst")
    max_judge_errors = arguments.fraction(max_judge_errors, "max_judge_errors")
    asked = agreement.required(require_agreement, min_kappa)
    if isinstance(metrics, Iterable) and not isinstance(metrics, (str, Sequence)):
        metrics = list(metrics)  # a generator: read once here, as evaluate and the unscored check both read it
    evaluate["keep_samples"] = True  # the worst samples are listed from them
    evaluate["judge"] = checked(evaluate.get("judge"))
    if asked is not None:
        agreement.check_metrics(metrics, evaluate)
    try:
        results = score(data, metrics, fail_under=fail_under, fail_over=fail_over, max_judge_errors=max_judge_errors,
                        require_agreement=require_agreement, min_kappa=None if asked is None else asked.min_kappa,
                        **evaluate)
    except JudgeUnavailable as exc:  # a BaseException (no sample's failure): the run stopped, nothing scored
        raise JudgeFailed(f"genevals: the judge cannot answer, nothing was scored: {_short(exc, 3 * _CUT)}", None,
                          [str(exc)]) from None
    raise_failed(results, worst, max_judge_errors)
    return results


def raise_failed(results: Results, worst: int, max_judge_errors: float) -> None:
    """Raise what the run's verdict (:class:`genevals.lifecycle.Verdict`, the exit code ``genevals run`` would
    exit with) says failed, with a message worth reading; nothing when it passed."""
    __tracebackhide__ = True
    verdict = results.verdict
    judged = judge_failure(results, max_judge_errors) if verdict.judge_failed else []
    agreed = verdict.agreement
    set_aside = [f"gate not checked: {g.kind}[{g.metric!r}] = {g.limit:g}: the judge did not pass "
                 "require_agreement" for g in verdict.set_aside]
    failed = [f"genevals: {_short(error, 3 * _CUT)}" for error in verdict.unscored]
    systems = results.summary().get("systems") or {}
    missed = {gate: found for gate in verdict.thresholds if (found := th.failures([gate], systems))}
    lines = [line for found in missed.values() for line in found]
    disagreed = [] if agreed is None or agreed.passed else [f"genevals: {agreed.line()}",
                                                            *(f"genevals: {line}" for line in set_aside)]
    message = "\n".join([*judged, *disagreed, *failed,
                         *([failure_message(results, missed, worst)] if missed else [])])
    if judged:
        raise JudgeFailed(message, results, judged[:1] + failed + lines)
    if disagreed:
        raise AgreementFailed(message, results, disagreed[:1] + failed + lines, agreed)
    if failed or missed:
        raise ScoresFailed(message, results, failed + lines)


def checked(judge: Any) -> Any:
    """``judge`` with its preflight on (as ``genevals run`` has it) unless it says otherwise: a mapping without
    ``preflight``, or None (the default judge). A JudgeConfig is taken as given."""
    if judge is None:
        return {"preflight": True}
    if isinstance(judge, Mapping) and "preflight" not in judge:
        return {**judge, "preflight": True}
    return judge
