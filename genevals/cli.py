"""The ``genevals`` command line.

Exit codes: 0 success, 1 a --fail-under threshold was missed, 2 bad input, 130 interrupted (partial results
and summary are written).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

EXIT_OK, EXIT_THRESHOLD, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


def _csv_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _json_file(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{path}: {exc}") from None


def _threshold(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected METRIC=VALUE, got '{text}'")
    try:
        limit = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"threshold for '{name}' is not a number: '{value}'") from None
    if not math.isfinite(limit):
        raise argparse.ArgumentTypeError(f"threshold for '{name}' must be a finite number, got '{value}'")
    return name.strip(), limit


def build_parser() -> argparse.ArgumentParser:
    from genevals import __version__

    parser = argparse.ArgumentParser(prog="genevals", description="Score RAG answers and find hallucinations.")
    parser.add_argument("--version", action="version", version=f"genevals {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="score a file of RAG outputs")
    run.add_argument("input", help="JSONL, CSV or Parquet file")
    run.add_argument("--out", default="reports/latest", help="output folder (default: reports/latest)")
    run.add_argument("--metrics", type=_csv_list, default=None,
                     help="comma-separated metric families or outputs (default: exact_match,token_f1,rouge,"
                          "bleu,retrieval); see `genevals metrics`")
    run.add_argument("--map", action="append", default=[], metavar="NEW=OLD",
                     help="read field NEW from column OLD (repeatable)")
    run.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                     help="stop before scoring on any bad row (default), or skip bad rows with a reason")
    run.add_argument("--resume", action="store_true", help="skip samples already in OUT/results.jsonl")
    run.add_argument("--engine", choices=("local", "ray"), default="local",
                     help="score in this process (default) or on a Ray cluster")
    run.add_argument("--ray-address", default=None,
                     help="Ray cluster address (auto, ray://HOST:10001); default: start a local Ray")
    run.add_argument("--ray-judge-actors", type=int, default=None, metavar="N",
                     help="Ray: judge actors across the whole cluster (default 4); at most N x --concurrency "
                          "judge requests are in flight at once")
    run.add_argument("--workers", type=int, default=None, help="processes for lexical/retrieval metrics")
    run.add_argument("--fail-under", action="append", type=_threshold, default=[], metavar="METRIC=VALUE",
                     help="exit 1 if any system's mean METRIC is below VALUE (repeatable)")
    run.add_argument("--seed", type=int, default=None, help="bootstrap seed")
    run.add_argument("--quiet", "-q", action="store_true", help="no progress bar or table")
    lexical = run.add_argument_group("lexical and retrieval")
    lexical.add_argument("--stem", action="store_true", help="Porter stemming for ROUGE")
    lexical.add_argument("--cutoffs", type=lambda t: tuple(int(x) for x in _csv_list(t)), default=None,
                         help="retrieval cutoffs k (default 1,3,5,10)")
    lexical.add_argument("--level", choices=("auto", "chunk", "doc"), default="auto",
                         help="retrieval level; auto = doc when contexts carry doc_id")
    semantic = run.add_argument_group("BERTScore")
    semantic.add_argument("--bertscore-model", default=None, help="HF model name or local path")
    semantic.add_argument("--bertscore-layer", type=int, default=None, help="hidden layer to use")
    semantic.add_argument("--bertscore-idf", action="store_true", help="idf weights from the run's references")
    semantic.add_argument("--bertscore-rescale", action="store_true", help="rescale with a baseline")
    semantic.add_argument("--bertscore-baseline", default=None,
                          help="baseline TSV (LAYER,P,R,F) for rescaling a model bert-score has none for")
    semantic.add_argument("--device", default=None, help="cpu, cuda, cuda:0 (default: cuda if available)")
    semantic.add_argument("--batch-size", type=int, default=None, help="BERTScore batch size")

    judge = run.add_argument_group("LLM judge (faithfulness, llm_rubric)")
    judge.add_argument("--judge-backend", choices=("auto", "openai", "llamacpp"), default=None,
                       help="auto: an OpenAI-compatible server when one is configured, else embedded llama.cpp")
    judge.add_argument("--judge-base-url", default=None, help="OpenAI-compatible endpoint (or OPENAI_BASE_URL)")
    judge.add_argument("--judge-model", default=None, help="model name, or a path to a .gguf for llama.cpp")
    judge.add_argument("--concurrency", type=int, default=None, help="judge requests in flight (default 4)")
    judge.add_argument("--judge-retries", type=int, default=None, help="tries on 429/5xx/timeouts (default 4)")
    judge.add_argument("--judge-timeout", type=float, default=None, help="seconds per request (default 60)")
    judge.add_argument("--judge-cache", default=None, help="cache folder (default ~/.cache/genevals/judge)")
    judge.add_argument("--no-judge-cache", action="store_true", help="do not read or write the judge cache")
    judge.add_argument("--dry-run", action="store_true", help="estimate judge tokens and cost; call nothing")
    judge.add_argument("--judge-prices", type=_json_file, default=None,
                       help='JSON file: {"MODEL": {"input_per_1k": X, "output_per_1k": Y}}')
    judge.add_argument("--context-token-budget", type=int, default=None, help="tokens of context per call")
    judge.add_argument("--judge-seed", type=int, default=None, help="sampling seed sent to the judge")
    judge.add_argument("--max-claims", type=int, default=None, help="claims per answer (default 12)")
    judge.add_argument("--worked-example", choices=("auto", "yes", "no"), default="auto",
                       help="include the worked example in the prompts (auto: not for the tiny packaged model)")
    judge.add_argument("--rubric-criteria", action="append", default=[], metavar="NAME=DESCRIPTION",
                       help="an extra rubric criterion (repeatable)")
    judge.add_argument("--rubric-only-custom", action="store_true", help="drop the default rubric criteria")

    sub.add_parser("metrics", help="list every metric with its definition and defaults")
    from genevals.report.cli_report import add_report_parser
    from genevals.validate_cli import add_validate_parser

    add_report_parser(sub)
    add_validate_parser(sub)
    return parser


def metric_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    options: dict[str, dict[str, Any]] = {"rouge": {"use_stemmer": args.stem}, "retrieval": {"level": args.level}}
    if args.cutoffs:
        options["retrieval"]["cutoffs"] = args.cutoffs
    bert = {"model": args.bertscore_model, "layer": args.bertscore_layer, "idf": args.bertscore_idf or None,
            "rescale": args.bertscore_rescale or None, "baseline": args.bertscore_baseline, "device": args.device, "batch_size": args.batch_size}
    options["bertscore"] = {k: v for k, v in bert.items() if v is not None}
    judge = {"backend": args.judge_backend, "base_url": args.judge_base_url, "model": args.judge_model,
             "concurrency": args.concurrency, "max_retries": args.judge_retries, "timeout": args.judge_timeout,
             "cache_dir": args.judge_cache, "cache": False if args.no_judge_cache else None,
             "dry_run": args.dry_run or None, "prices": args.judge_prices,
             "context_token_budget": args.context_token_budget, "seed": args.judge_seed}
    judge = {k: v for k, v in judge.items() if v is not None}
    faithfulness = dict(judge)
    if args.max_claims is not None:
        faithfulness["max_claims"] = args.max_claims
    if args.worked_example != "auto":
        faithfulness["worked_example"] = args.worked_example == "yes"
    rubric = dict(judge)
    if args.rubric_criteria:
        rubric["criteria"] = dict(c.partition("=")[::2] for c in args.rubric_criteria)
    if args.rubric_only_custom:
        rubric["default_criteria"] = False
    options["faithfulness"], options["llm_rubric"] = faithfulness, rubric
    return options


def _progress(quiet: bool):
    if quiet:
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=None, unit="sample", file=sys.stderr, dynamic_ncols=True)

    def update(n: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
            bar.refresh()
        bar.update(n)

    return bar, update


def check_thresholds(summary: dict, thresholds: Sequence[tuple[str, float]]) -> list[str]:
    """Every (system, metric) whose mean is below its threshold, or that has no score to compare."""
    failures = []
    for metric, limit in thresholds:
        found = False
        for system, metrics in summary.get("systems", {}).items():
            if metric not in metrics:
                continue
            found = True
            mean = metrics[metric]["mean"]
            if mean is None:
                failures.append(f"{system}: {metric} has no scored samples (threshold {limit})")
            elif mean < limit:
                failures.append(f"{system}: {metric} = {mean:.4f} < {limit}")
        if not found:
            failures.append(f"{metric}: not computed in this run (threshold {limit})")
    return failures


def cmd_run(args: argparse.Namespace) -> int:
    from genevals.aggregate import DEFAULT_SEED
    from genevals.io import InputError, parse_column_map
    from genevals.registry import UnknownMetric
    from genevals.runner import evaluate

    bar = None
    if Path(args.out).exists() and not Path(args.out).is_dir():
        print(f"genevals: error: --out {args.out}: exists and is not a folder", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        column_map = parse_column_map(args.map)
        common = dict(options=metric_options(args), column_map=column_map,
                      on_error="skip" if args.on_error == "skip" else "raise", out_dir=args.out,
                      seed=args.seed if args.seed is not None else DEFAULT_SEED, keep_samples=False,
                      meta={"input": str(args.input), "fail_under": dict(args.fail_under)})
        bar, progress = _progress(args.quiet)
        if args.engine == "ray":
            from genevals.ray_engine import evaluate as ray_evaluate

            results = ray_evaluate(args.input, args.metrics, resume=args.resume, address=args.ray_address,
                                   judge_concurrency=args.ray_judge_actors, progress=progress, **common)
        else:
            results = evaluate(args.input, args.metrics, resume=args.resume, workers=args.workers,
                               progress=progress, **common)
    except (InputError, UnknownMetric) as exc:
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ConnectionError as exc:  # --ray-address that does not answer, or refuses this client
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"\ngenevals: interrupted; partial results and summary are in {args.out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if bar is not None:
            bar.close()
    summary = results.summary()
    from genevals.report.html import write_report

    report_path = write_report([Path(args.out)], Path(args.out) / "report.html", dict(args.fail_under) or None)
    if not args.quiet:
        print(results.to_table())
        for row in results.skipped:
            print(f"skipped {row.origin}: {row.field or '-'}: {row.reason}", file=sys.stderr)
        print(f"wrote {Path(args.out) / 'results.jsonl'}, {Path(args.out) / 'summary.json'} and {report_path}")
    for family, warning in (summary.get("meta", {}).get("judge_warnings") or {}).items():
        print(f"genevals: note: {family}: {warning}", file=sys.stderr)
    failures = check_thresholds(summary, args.fail_under)
    for failure in failures:
        print(f"genevals: threshold missed: {failure}", file=sys.stderr)
    return EXIT_THRESHOLD if failures else EXIT_OK


def cmd_metrics(args: argparse.Namespace) -> int:
    from genevals.registry import describe_all

    last_family = None
    for family, output, definition, signature in describe_all():
        if family != last_family:
            print(f"\n{family}" + (f"  ({signature})" if signature else ""))
            last_family = family
        first_line = definition.strip().splitlines()[0] if definition.strip() else ""
        print(f"  {output:<22} {first_line}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "metrics":
        return cmd_metrics(args)
    if args.command == "validate":
        from genevals.validate_cli import cmd_validate

        return cmd_validate(args)
    if args.command == "report":
        from genevals.report.cli_report import cmd_report

        return cmd_report(args)
    parser.error(f"unknown command {args.command}")
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
