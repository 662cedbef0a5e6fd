"""``genevals run`` as a driver of the run's lifecycle (:mod:`genevals.lifecycle`): its options become the
lifecycle's :class:`~genevals.lifecycle.Settings` and a :class:`~genevals.engine.spec.RunSpec`, the lifecycle's
lines are printed as they come (``-q`` leaves errors and gate results only), and the terminal shows the table
once the report is written."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

from genevals.cli import jury, runfile_merge, sources
from genevals.output.terminal import say as to_terminal, visible_message
from genevals.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, judge_config, judge_option_split, judge_unavailable

#: skipped rows named on the terminal without -v (skipped.jsonl has them all)
SHOWN_SKIPPED = 5


def settings(args: argparse.Namespace) -> Any:
    """The lifecycle's settings from the options."""
    from genevals.lifecycle import Settings

    data = sources.data(args)
    return Settings(out_dir=Path(args.out), metrics=tuple(args.metrics) if args.metrics is not None else None,
                    thresholds=tuple(args.thresholds), min_coverage=args.min_coverage,
                    max_judge_errors=args.max_judge_errors, require_agreement=args.require_agreement,
                    min_kappa=args.min_kappa, seed=args.seed, history=args.history, record=not args.no_history,
                    baseline=args.baseline, otel_endpoint=args.otel_endpoint, report=True,
                    input_name=str(getattr(data, "name", args.input)), input_given=args.input,
                    from_traces=bool(args.from_format), dry_run=bool(getattr(args, "dry_run", False)))


def printer(quiet: bool) -> Callable[[Any], None]:
    """Print a lifecycle line where it goes; with -q, errors and gate results only."""
    def emit(message: Any) -> None:
        if not (quiet and message.quiet_hides):
            print(message.text, file=sys.stdout if message.stream == "stdout" else sys.stderr)

    return emit


def say(args: argparse.Namespace, line: str) -> None:
    """A warning or a note, on stderr unless -q."""
    if not args.quiet:
        to_terminal(line)


def show(args: argparse.Namespace, ignore: tuple[str, ...]) -> Callable[[Any, Any, Path | None], None]:
    """What the terminal shows once the report is written: the table, the leaderboard, the skipped rows and the
    files written."""
    def table(results: Any, _data: Any, report_path: Path | None) -> None:
        from genevals.output.comparing import directions_of
        from genevals.output.runfolder import read_outputs
        from genevals.output.terminal import leaderboard_lines
        from genevals.registry import preset

        if args.verbose and ignore:
            say(args, f"genevals: note: ignored fields (no warning names them): {', '.join(ignore)}")
        directions = directions_of(read_outputs(args.out))
        if args.quiet:  # the answer, even so: with two systems, the sentence that says which is better
            for line in leaderboard_lines(results.summary(), directions, quiet=True):
                print(line)
            return
        named = [name for name in args.metrics or () if not preset(name)]
        print(results.to_table(verbose=args.verbose, all_outputs=args.all_outputs, requested=named))
        for line in leaderboard_lines(results.summary(), directions):
            print(line)
        shown = results.skipped if args.verbose else results.skipped[:SHOWN_SKIPPED]
        for row in shown:
            to_terminal(f"skipped {row.origin}: {row.field or '-'}: {row.reason}")
        if len(shown) < len(results.skipped):
            to_terminal(f"skipped ... and {len(results.skipped) - len(shown)} more rows (-v, or {Path(args.out)}/"
                        "skipped.jsonl)")
        to_terminal(f"wrote {Path(args.out) / 'results.jsonl'}, {Path(args.out) / 'summary.json'} and {report_path}",
                    sys.stdout)

    return table


def seed(args: argparse.Namespace) -> int:
    """The bootstrap seed the run uses: ``--seed`` (or the run file's), else the default one."""
    from genevals.stats import DEFAULT_SEED

    return args.seed if args.seed is not None else DEFAULT_SEED


def judge_seed(args: argparse.Namespace) -> int | None:
    """The judge's sampling seed when neither ``--judge-seed`` nor the run file's ``[judge]`` gives one (the
    default the judge sends), else None: the line that gives it says it."""
    from genevals.judge.config import JudgeConfig

    loaded = getattr(args, "runfile", None)
    if args.judge_seed is not None or (loaded is not None and "seed" in loaded.judge):
        return None
    return JudgeConfig().seed


def build(args: argparse.Namespace, course: Any, column_map: dict[str, str], ignore: tuple[str, ...],
          metric_options: Callable[[argparse.Namespace], dict[str, Any]]) -> Any:
    """The run's RunSpec, its judge settled; the lifecycle's gates checked against its metrics."""
    from genevals.cli import failures
    from genevals.engine.spec import LocalSettings, RaySettings, RunSpec
    from genevals.input.readers import InputError
    from genevals.labels.provenance import run_meta as judged_qrels

    try:  # the run file's [judge] fields, under --judge-option and the judge flags
        judge = judge_config(args, **{**runfile_merge.judge_fields(args), **judge_option_split(args)[0]})
    except ValueError as exc:
        raise InputError("judge options", None, None, str(exc)) from None
    judge, bad_jury = jury.apply(args, judge)
    if bad_jury:
        raise failures.JudgeProblem(bad_jury)
    if getattr(args, "judge_batch", False) or getattr(judge, "batch", False):
        judge = _batched(args, judge)
    if args.engine == "ray":
        engine: LocalSettings | RaySettings = RaySettings(
            address=args.ray_address, judge_concurrency=args.ray_judge_actors or RaySettings.judge_concurrency)
    else:
        engine = LocalSettings(workers=args.workers)
    settle = failures.judge_settler(check=not args.no_preflight,
                                    eager=args.engine == "ray" or (args.no_judge_cache and not args.resume))
    meta = {**course.settings.meta(), **({"ignored_fields": list(ignore)} if ignore else {}),
            **judged_qrels(args.qrels)}
    options = runfile_merge.metric_options(args, metric_options)
    depth = pool_depth(meta)
    if depth is not None:  # qrels genevals label pooled: the cutoffs past its depth count what nobody judged
        options.setdefault("retrieval", {}).setdefault("pool_depth", depth)
    spec = RunSpec.build(sources.data(args), sources.metrics(args), options=options, judge=judge,
                         column_map=column_map, on_error="skip" if args.on_error == "skip" else "raise",
                         strict=args.strict, out_dir=args.out, resume=args.resume,
                         seed=seed(args), keep_samples=False, meta=meta,
                         engine=engine, language=args.language, settle_judge=settle,
                         before_writing=course.before_writing, ignore_fields=ignore,
                         history_tokens=args.history_tokens)
    for family, why in (spec.output.meta.get("left_out") or {}).items():  # said before the wait, not after
        say(args, f"genevals: note: {family} left out: {why}")
    course.check_selected(spec.selected)  # before anything is scored
    return spec


def _batched(args: argparse.Namespace, judge: Any) -> Any:
    """``--judge-batch``: the judge keeping its batch ids in --out; refused where there is no batch API."""
    from genevals.cli import failures
    from genevals.judge.batch.pricing import discount

    if args.engine == "ray":
        raise failures.JudgeProblem("--judge-batch runs on the local engine: a batch gathers the whole run's "
                                    "requests in one process (leave out --engine ray)")
    if getattr(judge, "jurors", None) is not None:
        raise failures.JudgeProblem("--judge-batch needs one judge, not a --jury")
    if judge.resolved_backend != "openai":
        raise failures.JudgeProblem(f"--judge-batch needs an OpenAI-compatible judge (--judge-base-url, or OpenAI "
                                    f"itself); this judge is {judge.resolved_backend}")
    if args.dry_run or judge.prices:
        say(args, f"genevals: note: --judge-batch: costs priced with {discount(judge.model or '', judge.prices, judge.base_url)[1]}")
    return judge.with_options(batch_dir=judge.batch_dir or str(args.out))


def score(args: argparse.Namespace, course: Any,
          metric_options: Callable[[argparse.Namespace], dict[str, Any]]) -> tuple[Any, Any, Any] | int:
    """(results, spec, ignored fields) of the scored run, or the exit code of a run that could not be scored, said."""
    from genevals import engine
    from genevals.cli import failures, mapping
    from genevals.cli.progress import Progress
    from genevals.input.readers import InputError
    from genevals.output.thresholds import ThresholdError
    from genevals.registry import UnknownMetric

    bar, column_map = None, {}
    try:
        column_map, ignore = mapping.read(args)
        spec = build(args, course, column_map, ignore, metric_options)
        bar = None if args.quiet else Progress("sample")
        return engine.run(spec, bar), spec, ignore
    except (InputError, UnknownMetric, ThresholdError) as exc:
        return _error(mapping.from_file(str(exc), args, column_map))
    except (failures.JudgeProblem, ConnectionError) as exc:  # ConnectionError: a --ray-address that refuses us
        return _error(str(exc))
    except PermissionError as exc:  # an --out folder (or a file in it) this user may not write
        return _error(f"{exc.filename or args.out}: {exc.strerror or exc}")
    except judge_unavailable() as exc:  # found at the first call the cache could not answer; the rest is written
        return _error(str(exc))
    except KeyboardInterrupt:
        to_terminal(f"\ngenevals: interrupted; partial results and summary are in {args.out}")
        return EXIT_INTERRUPTED
    finally:
        if bar is not None:
            bar.close()


def _error(message: str) -> int:
    print(f"genevals: error: {visible_message(message)}", file=sys.stderr)
    return EXIT_BAD_INPUT


def pool_depth(meta: dict[str, Any]) -> int | None:
    """The pool depth of the run's qrels when ``genevals label`` made them (its provenance), else None."""
    depth = str((meta.get("qrels_judged_by") or {}).get("depth") or "")
    return int(depth) if depth.isascii() and depth.isdigit() and 0 < len(depth) < 7 and int(depth) > 0 else None
