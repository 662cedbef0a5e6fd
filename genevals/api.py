"""The Python API's entry point: :func:`evaluate`, the same run as ``genevals run`` (one
:class:`~genevals.engine.spec.RunSpec`, one engine, one :mod:`lifecycle <genevals.lifecycle>` after it), with its
caveats raised as Python warnings (:class:`GenevalsWarning`) rather than left in ``Results.meta``: notebooks and
test runners show warnings; nobody reads ``meta["judge_warnings"]``.

Filter them as usual: ``warnings.simplefilter("error", genevals.GenevalsWarning)`` makes them errors.
"""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from genevals import types
from genevals.conversations.history import HISTORY_TOKENS
from genevals.output.results import Results
from genevals.stats import DEFAULT_SEED


class GenevalsWarning(UserWarning):
    """A caveat about a result: an offline stand-in for the judge asked for, a smoke-test judge model, samples
    the judge failed on."""


def evaluate(
    data: Any,
    metrics: Sequence[str] | None = None,
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    judge: Any = None,
    column_map: Mapping[str, str] | None = None,
    on_error: str = "raise",
    strict: bool = False,
    out_dir: str | Path | None = None,
    resume: bool = False,
    workers: int | None = None,
    chunk_size: int | None = None,
    seed: int = DEFAULT_SEED,
    keep_samples: bool = True,
    progress: Callable[[int, int], None] | None = None,
    meta: Mapping[str, Any] | None = None,
    language: str | None = None,
    ignore_fields: Sequence[str] = (),
    history_tokens: int = HISTORY_TOKENS.default,
    report: bool = False,
    history: str | Path | bool | None = None,
    baseline: str | int | None = None,
    otel_endpoint: str | None = None,
    fail_under: Mapping[str, float] | None = None,
    fail_over: Mapping[str, float] | None = None,
    min_coverage: float | None = None,
    max_judge_errors: float | None = None,
    require_agreement: str | Path | None = None,
    min_kappa: float | None = None,
) -> Results:
    """Score ``data`` (a path, a DataFrame, or any iterable of row dicts: a list, a generator) and return
    ``Results``, whose ``verdict`` (:class:`genevals.lifecycle.Verdict`) says what the gates found and the exit code
    ``genevals run`` would exit with. A mistake in any argument is an
    :class:`~genevals.input.readers.InputError` (or another ValueError, TypeError) before any work.

    ``metrics``: names as on the command line (default: the "default" preset); ``options[family]``: that
    family's settings; ``judge``: the :class:`~genevals.judge.config.JudgeConfig` of every judge-backed metric (or
    a mapping of its fields).

    ``language``: ``"auto"`` (the default: each sample's language is detected), ``"auto:CODE"`` (detected, and
    CODE where detection is unsure) or an ISO 639-1 code for every sample; a row's ``language`` field overrides
    it (:mod:`genevals.language`). ``history_tokens``: the tokens of earlier turns each conversation turn carries
    as its history, the oldest turns left out first (:mod:`genevals.conversations`).

    ``on_error="raise"`` stops before scoring if any row is bad; ``"skip"`` records bad rows with their
    reason and scores the rest. An unknown field is a warning (``Results.meta["unknown_fields"]``), with
    ``strict`` an error; ``ignore_fields`` names columns to skip without a word (``--ignore-fields``).

    With ``out_dir``, results.jsonl grows as samples finish and summary.json is written at the end, also when the
    run is interrupted; then, as ``genevals run`` does: ``report=True`` writes report.html; ``history`` records
    the run in that SQLite file (True: the default history, ``$GENEVALS_HISTORY`` or
    ~/.local/share/genevals/history.sqlite); ``baseline`` compares it with a run of the history (an id,
    ``"latest"`` or ``"latest~N"``; a gated metric that regressed significantly fails the verdict);
    ``otel_endpoint`` sends its results as OpenTelemetry events. The gates, with or without a folder:
    ``fail_under={"token_f1": 0.5}`` / ``fail_over={...}`` on each system's mean; ``max_judge_errors`` (default
    0.05) the share of judge failures that fails the run; ``require_agreement`` a labels export the judge must
    agree with (``min_kappa``, default 0.6). A missed gate is not an exception: ``results.verdict.exit_code``.
    """
    from genevals import engine
    from genevals.engine.arguments import check_out_dir, check_progress
    from genevals.engine.spec import LocalSettings, RunSpec
    from genevals.input.readers import InputError
    from genevals.lifecycle import Lifecycle

    check_progress(progress)
    if out_dir is not None:
        check_out_dir(out_dir)  # before the lifecycle takes it as a folder
    if isinstance(metrics, Iterator):
        metrics = list(metrics)  # a generator: read once here, as the lifecycle and the registry both read it
    settings = lifecycle_settings(data, metrics, out_dir=out_dir, report=report, history=history,
                                  baseline=baseline, otel_endpoint=otel_endpoint, fail_under=fail_under,
                                  fail_over=fail_over, min_coverage=min_coverage, max_judge_errors=max_judge_errors,
                                  require_agreement=require_agreement, min_kappa=min_kappa, seed=seed)
    course = Lifecycle(settings)
    problem = course.check()
    if problem is not None:  # "--baseline: ..." names the option; here it is an argument
        option, _, message = problem.partition(": ")
        if option.startswith("--") and message:
            raise InputError(option[2:].replace("-", "_"), None, None, message)
        raise InputError("evaluate", None, None, problem)
    if meta is None or isinstance(meta, Mapping):  # the summary names its input and gates, as the CLI's does
        meta = {**settings.meta(), **(meta or {})}
    spec = RunSpec.build(data, metrics, options=options, judge=judge, column_map=column_map, on_error=on_error,
                         strict=strict, out_dir=out_dir, resume=resume, seed=seed, keep_samples=keep_samples,
                         meta=meta, engine=LocalSettings(workers, chunk_size), language=language,
                         ignore_fields=ignore_fields, history_tokens=history_tokens,
                         before_writing=course.before_writing if settings.baseline is not None else None)
    course.check_selected(spec.selected, computed_gates=False)  # a gate on a metric not computed is missed
    results = engine.run(spec, progress)
    course.finish(results, spec.judge)
    for message in caveats(results.status_counts()):
        warnings.warn(message, GenevalsWarning, stacklevel=2)
    return results


def lifecycle_settings(data: Any, metrics: Any, *, out_dir: Any, report: Any, history: Any, baseline: Any,
                       otel_endpoint: Any, fail_under: Any, fail_over: Any, min_coverage: Any,
                       max_judge_errors: Any, require_agreement: Any, min_kappa: Any, seed: Any) -> Any:
    """The lifecycle's :class:`~genevals.lifecycle.Settings` from :func:`evaluate`'s arguments, each checked and
    refused naming the argument: what needs a run folder (a report, the history, OTel) refused without one."""
    from genevals.input.readers import InputError
    from genevals.lifecycle import Settings
    from genevals.lifecycle.arguments import share, thresholds
    from genevals.lifecycle.settings import MAX_JUDGE_ERRORS

    for name, value in (("report", report), ("history", history), ("baseline", baseline),
                        ("otel_endpoint", otel_endpoint)):
        if value not in (None, False) and out_dir is None:
            raise InputError(name, None, None, "needs out_dir: it reads the run folder the run writes")
    if not isinstance(report, bool):
        raise InputError("report", None, None, f"expected True or False, got {type(report).__name__}")
    if history is not None and not isinstance(history, (str, Path, bool)):
        raise TypeError(f"history: expected the history's file path, True or False, got {type(history).__name__}")
    if require_agreement is not None and (isinstance(require_agreement, bool)
                                          or not isinstance(require_agreement, (str, Path))):
        raise TypeError(f"require_agreement: expected the path of a labels export (genevals review export), "
                        f"got {type(require_agreement).__name__}")
    given = data if isinstance(data, (str, Path)) else None
    return Settings(
        out_dir=Path(out_dir) if out_dir is not None else None,
        metrics=tuple([metrics] if isinstance(metrics, str) else metrics) if isinstance(metrics, (str, list, tuple))
        else None,  # anything else RunSpec refuses, naming metrics
        thresholds=tuple(thresholds(fail_under, fail_over)),
        min_coverage=None if min_coverage is None else share(min_coverage, "min_coverage"),
        max_judge_errors=MAX_JUDGE_ERRORS if max_judge_errors is None else share(max_judge_errors,
                                                                                 "max_judge_errors"),
        require_agreement=None if require_agreement is None else str(require_agreement),
        min_kappa=min_kappa, seed=seed,
        history=None if history in (None, True, False) else str(history), record=history not in (None, False),
        baseline=None if baseline is None else str(baseline), otel_endpoint=otel_endpoint, report=report,
        input_name=str(given) if given is not None else getattr(data, "name", None),
        input_given=str(given) if given is not None else None)


def caveats(summary: Mapping[str, Any]) -> list[str]:
    """The run's caveats: each unknown input field (with its did-you-mean), each metric a preset left out (an
    extra not installed), each judge warning, and how many
    samples the judge failed on (the metric most affected), as sentences."""
    meta = summary.get("meta", {})
    out = [str(line) for line in meta.get("unknown_fields") or ()]
    out += [f"{family} left out: {why}" for family, why in (meta.get("left_out") or {}).items()]
    out += [f"{family}: {note}" for family, note in (meta.get("judge_warnings") or {}).items()]
    if isinstance(meta.get("qrels_judged_by"), Mapping) and meta["qrels_judged_by"].get("note"):
        out.append(f"qrels: {meta['qrels_judged_by']['note']}")
    if isinstance(meta.get("corpus_warnings"), Mapping):
        out += [f"{family}: {line}" for family, line in meta["corpus_warnings"].items()]
    failed: dict[str, list[int]] = {}
    for metrics in (summary.get("systems") or {}).values():
        for name, m in metrics.items():
            statuses = m.get("statuses") or {}
            counts = failed.setdefault(name, [0, 0, 0])
            counts[0] += int(statuses.get(types.JUDGE_ERROR, 0))
            counts[1] += int(statuses.get(types.PARSE_ERROR, 0))
            counts[2] += int(m.get("scored") or 0) + int(m.get("unscored") or 0)
    worst = max(failed.items(), key=lambda item: item[1][0] + item[1][1], default=None)
    if worst is not None and worst[1][0] + worst[1][1]:
        name, (errors, unparsed, n) = worst
        out.append(f"{name}: the judge failed on {errors + unparsed} of {n} samples ({errors} judge_error, "
                   f"{unparsed} parse_error); they are unscored, and each result's reason says why")
    return out
