"""``genevals validate LABELLED.jsonl --judge local|llm|cascade --out DIR``: agreement of a judge with human labels.

Exit codes (:mod:`genevals.cli.common`): 0 written, 2 bad input or options or a judge that fails its preflight,
3 more than ``--max-judge-errors`` of the answers ended in ``judge_error`` (everything is written first),
130 interrupted.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from genevals.cli import failures, jury, run_help
from genevals.cli.set_option import add_set_option, set_settings
from genevals.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_JUDGE_ERRORS, EXIT_OK, add_judge_options,
                                 add_judge_option, faithfulness_options,
                                 declared, judge_config, option_type)
from genevals.settings import Setting
from genevals.output.terminal import say

#: validate's own settings, declared once (the judge's come from the judge options); the seed's limit is the
#: engine's (genevals.engine.arguments.MAX_SEED: a test keeps them equal; that module imports numpy, --help may not)
SETTINGS = (
    Setting("limit", int, None, "only the first N rows (after --task-type)", minimum=1),
    Setting("seed", int, 12345, "bootstrap seed", minimum=0, maximum=2**64 - 1),
    Setting("resamples", int, 1000, "bootstrap resamples", minimum=1, maximum=1_000_000),
    Setting("worst", int, 15, "disagreements of each kind shown in the HTML", minimum=0, maximum=100_000),
)
_LIMIT, _SEED, _RESAMPLES, _WORST = SETTINGS


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``validate`` subcommand to ``subparsers`` (from ``parser.add_subparsers``)."""
    p = subparsers.add_parser(
        "validate", help="measure a hallucination judge against human labels (RAGTruth-style JSONL)",
        description="Score labelled answers with a judge and report its agreement with the human labels: "
                    "response-level precision/recall/F1/balanced accuracy/kappa with bootstrap CIs, per task type, "
                    "span-level character overlap, and the worst disagreements side by side (validation.html).")
    p.add_argument("input", help="JSONL rows with context, response, optional question, hallucinated, optional "
                                 "spans [{start, end}] and task_type; or a BEGIN .tsv file (or a folder of them): attribution labels "
                                 "of dialogue responses, the card compared with the word-overlap baseline")
    p.add_argument("--judge", choices=("local", "llm", "cascade", "citations", "citations-local"), default="local",
                   help="local grounding checker (default), the LLM faithfulness judge, or the cascade; "
                        "citations / citations-local: the LLM or offline citation check against citation labels "
                        "(as `genevals review export` writes them)")
    p.add_argument("-o", "--out", required=True, help="output folder for validation.json, validation.html, predictions.jsonl")
    p.add_argument("--rule", default="any",
                   help="response-level rule: any (any claim not supported; default), contradicted, or threshold:X "
                        "(faithfulness < X)")
    p.add_argument("--limit", type=option_type(_LIMIT), default=None, help="only the first N rows (after --task-type)")
    p.add_argument("--task-type", default=None, help="only rows with this task_type")
    p.add_argument("--seed", type=option_type(_SEED), default=None, help="bootstrap seed (default 12345)")
    p.add_argument("--resamples", type=option_type(_RESAMPLES), default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--worst", type=option_type(_WORST), default=15, help="disagreements of each kind shown in the HTML (default 15)")
    p.add_argument("--quiet", "-q", action="store_true")
    local = p.add_argument_group("local grounding checker")
    local.add_argument("--grounding-method", choices=("learned", "rules"), default=None,
                       help="learned: the trained detector (default); rules: the hand-set thresholds")
    local.add_argument("--grounding-thresholds", default=None, metavar="JSON",
                       help="thresholds file for --grounding-method rules (implies it; default: the packaged "
                            "genevals/grounding/thresholds.json)")
    local.add_argument("--settle-confidence", type=option_type(declared("cascade", "settle_confidence")), default=None,
                       help="cascade: answers the local checker is at least this sure of are settled locally "
                            "(0.5-1; default 0.9)")
    add_judge_options(p)
    jury.add_option(p, "--judge llm: several judges (as on genevals run); their majority verdict is validated")
    add_judge_option(p)
    add_set_option(p)
    run_help.shorten_validate(p)
    p.set_defaults(handler=cmd_validate)
    return p


def judge_settings(args: argparse.Namespace):
    """(the JudgeConfig, the judge metric's own settings) from the options; ValueError for a bad one."""
    from genevals.judge.config import is_judge_setting

    extra = dict(args.judge_option or [])
    config_fields = {k: v for k, v in extra.items() if is_judge_setting(k)}
    llm = {**faithfulness_options(args), **{k: v for k, v in extra.items() if k not in config_fields}}
    local: dict[str, Any] = {}
    if args.grounding_method:
        local["method"] = args.grounding_method
    if args.grounding_thresholds:
        from genevals.input.paths import check_readable

        check_readable(args.grounding_thresholds, "--grounding-thresholds")  # a FIFO would hang the reader
        local["thresholds"] = args.grounding_thresholds
        local.setdefault("method", "rules")
    config = judge_config(args, **config_fields)
    used = ("grounding", "faithfulness", "cascade") if args.judge == "cascade" else (_FAMILY[args.judge],)
    sets = _set_for(args, used)
    if args.judge == "local":
        return config, {**local, **sets.get("grounding", {})}
    if args.judge == "llm":
        return config, {**llm, **sets.get("faithfulness", {})}
    grounding = {**local, **sets.get("grounding", {})}
    options: dict[str, Any] = {**llm, **sets.get("faithfulness", {}), "grounding": grounding}
    if args.settle_confidence is not None:
        options["settle_confidence"] = args.settle_confidence
    return config, {**options, **sets.get("cascade", {})}


#: the metric family behind each --judge
_FAMILY = {"local": "grounding", "llm": "faithfulness", "cascade": "cascade", "citations": "citations",
           "citations-local": "citations_local"}


def _set_for(args: argparse.Namespace, used: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The ``--set`` values by family; ValueError for a family this --judge does not score (it would be unused)."""
    sets = set_settings(args, {})
    for family in sets:
        if family not in used:
            raise ValueError(f"--set {family}.{next(iter(sets[family]))}: --judge {args.judge} scores with "
                             f"{', '.join(used)}, not {family}")
    return sets


def cmd_validate(args: argparse.Namespace) -> int:
    from genevals.stats import DEFAULT_SEED
    from genevals.validation import LabelledInputError, Rule, build_metric, load_labelled, validate, write_outputs

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        say(f"genevals: error: --out {out}: exists and is not a folder")
        return EXIT_BAD_INPUT
    from genevals.files import clobber_refusal

    for name in ("validation.json", "validation.html", "predictions.jsonl"):
        problem = clobber_refusal(out / name, [("the labelled input", args.input),
                                               ("--judge-prices", getattr(args, "judge_prices", None))])
        if problem is not None:
            say(f"genevals: error: --out {out}: its {name} {problem}")
            return EXIT_BAD_INPUT
    from genevals.validation.begin import files as begin_files

    if begin := begin_files(args.input):  # BEGIN's attribution labels (a .tsv file, or a folder of them)
        from genevals.cli import validate_begin

        return validate_begin.cmd(args, out, begin, judge_settings)
    if args.judge.startswith("citations"):
        return _validate_citations(args, out)
    try:
        rule = Rule.parse(args.rule)
        rows = load_labelled(args.input, limit=args.limit, task_type=args.task_type)
        from genevals.validation.weighted import check_design

        check_design(rows)  # a review queue's design fields, before any judge is called
        if not rows:
            raise ValueError("no rows to validate" + (f" with task_type {args.task_type!r}" if args.task_type else ""))
        config, options = judge_settings(args)
        if args.jury is not None:  # every judge verifies; the jury's majority is what is validated
            from genevals.judge.jury import load_jury

            if args.judge != "llm":
                raise ValueError(f"--jury: takes --judge llm, not --judge {args.judge}")
            config = load_jury(args.jury, base=config)
        metric = build_metric(args.judge, options, config)
    except (LabelledInputError, ValueError, TypeError) as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    if args.judge != "local" and not args.no_preflight:
        from genevals.judge.preflight import preflight

        judges = [j.config for j in config.jurors] if hasattr(config, "jurors") else [config]  # a jury: each
        problem = next((p for p in map(preflight, judges) if p is not None), None)
        if problem is not None:
            say(f"genevals: error: {problem}")
            return EXIT_BAD_INPUT
    from genevals.cli.progress import interruptible

    scored = interruptible(args.quiet, "answer", lambda bar: validate(
        rows, args.judge, rule=rule, seed=args.seed if args.seed is not None else DEFAULT_SEED,
        resamples=args.resamples, metric=metric, progress=bar, worst=args.worst,
        meta={"input": str(args.input), "task_type_filter": args.task_type, "limit": args.limit}))
    if scored is None:
        return EXIT_INTERRUPTED
    report, outcomes = scored
    if args.judge in ("local", "cascade"):  # both decide with the packaged detector
        from genevals.grounding.figure import in_sample_note

        note = in_sample_note(args.input)
        if note is not None:
            report["in_sample"] = note
            say(f"genevals: warning: {note}")
    paths = write_outputs(report, outcomes, out)
    if not args.quiet:
        print(summary_text(report))
        print(f"wrote {paths['json']}, {paths['html']} and {paths['rows']}")
    if args.judge != "local":
        found = failures.from_statuses(args.judge, ((o.status, o.reason) for o in outcomes))
        if failures.report(found, args.max_judge_errors):
            return EXIT_JUDGE_ERRORS
    return EXIT_OK


def _validate_citations(args: argparse.Namespace, out: Path) -> int:
    """The citation check's agreement with citation labels (:mod:`genevals.validation.citations`)."""
    from genevals.stats import DEFAULT_SEED
    from genevals.validation import citations
    from genevals.validation.labels import LabelledInputError, load_labelled

    try:
        rows = load_labelled(args.input, limit=args.limit, task_type=args.task_type, check=citations.check_row)
        if not rows:
            raise ValueError("no rows to validate")
        from genevals.judge.config import is_judge_setting

        extra = dict(args.judge_option or [])
        config = judge_config(args, **{k: v for k, v in extra.items() if is_judge_setting(k)})
        options = {k: v for k, v in extra.items() if not is_judge_setting(k)}
        family = _FAMILY[args.judge]
        options = {**(options if args.judge == "citations" else {}), **_set_for(args, (family,)).get(family, {})}
        metric = citations.build_metric(args.judge, options, config)
    except (LabelledInputError, ValueError, TypeError) as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    if args.judge == "citations" and not args.no_preflight:
        from genevals.judge.preflight import preflight

        problem = preflight(config)
        if problem is not None:
            say(f"genevals: error: {problem}")
            return EXIT_BAD_INPUT
    try:
        report, outcomes = citations.validate(rows, args.judge, metric, args.seed if args.seed is not None else
                                              DEFAULT_SEED, args.resamples, meta={"input": str(args.input)})
    except KeyboardInterrupt:
        print("\ngenevals: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    paths = citations.write_outputs(report, outcomes, out)
    if not args.quiet:
        print(citations.summary_text(report))
        print(f"wrote {paths['json']} and {paths['rows']}")
    if args.judge == "citations":
        answers = {(o["model"], o["id"]): (o["status"], o["reason"] or "") for o in outcomes}  # one per answer
        found = failures.from_statuses(args.judge, answers.values())
        if failures.report(found, args.max_judge_errors):
            return EXIT_JUDGE_ERRORS
    return EXIT_OK


def summary_text(report: dict[str, Any]) -> str:
    rl = report["response_level"]

    def fmt(x: Any) -> str:
        return "-" if x is None else f"{x:.3f}"

    def line(name: str, r: dict[str, Any]) -> str:
        ci = (r.get("ci95") or {}).get("f1")
        ci_text = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
        return (f"  {name:<12} n={r['scored']:<4} F1={fmt(r['f1'])}{ci_text}  P={fmt(r['precision'])} "
                f"R={fmt(r['recall'])} bal.acc={fmt(r['balanced_accuracy'])} kappa={fmt(r['kappa'])} "
                f"(baseline F1 {fmt(r['baseline_all_hallucinated']['f1'])}; unscored {r['unscored']})")

    lines = [f"judge {report['judge']}, rule {report['rule']}: {report['seconds']:.1f} s", line("all", rl)]
    for tt, sub in (report.get("per_task_type") or {}).items():
        lines.append(line(tt, sub["response_level"]))
    if report.get("response_level_weighted"):
        from genevals.validation.weighted import summary_line

        lines.append(summary_line(report["response_level_weighted"], rl))
    if report.get("span_level"):
        s = report["span_level"]
        lines.append(f"  span level   P={fmt(s['precision'])} R={fmt(s['recall'])} F1={fmt(s['f1'])}")
    if report.get("judge_repeats") and report["judge_repeats"].get("majority"):
        r = report["judge_repeats"]
        lines.append(f"  judge repeats: {r['repeats']} per answer, {r['rows']} rows where every repeat answered, "
                     f"prediction flips on {r['rows_whose_prediction_flips']}")
        lines.append(f"    one verdict  F1={fmt(r['single_mean']['f1'])} kappa={fmt(r['single_mean']['kappa'])} "
                     f"bal.acc={fmt(r['single_mean']['balanced_accuracy'])} (mean over the repeats)")
        m = r["majority"]
        lines.append(f"    majority     F1={fmt(m['f1'])} kappa={fmt(m['kappa'])} bal.acc={fmt(m['balanced_accuracy'])}")
    if report.get("cascade"):
        c = report["cascade"]
        lines.append(f"  cascade      settled locally {c['settled_local']}, sent to the LLM {c['sent_to_llm']} "
                     f"({c['llm_calls_saved_share']:.0%} of LLM judgements saved)")
    return "\n".join(lines)
