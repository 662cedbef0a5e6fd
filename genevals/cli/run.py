"""``genevals run INPUT --out DIR``: score a file of RAG outputs, write results.jsonl, summary.json and
report.html."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from genevals.cli import agreement, export, failures, history, jury, run_help, runfile, runfile_merge, sources
from genevals.cli.progress import Progress
from genevals.cli.run_checks import check_options, unwritable_option
from genevals.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_JUDGE_ERRORS, EXIT_OK, EXIT_THRESHOLD,
                                 add_judge_option, add_judge_options, add_set_option, add_thresholds, csv_list,
                                 declared, engine_setting, faithfulness_options, option_type, judge_config, judge_option_split, recorded_thresholds,
                                 judge_unavailable, set_settings, whole_numbers)


def add_parser(subparsers) -> argparse.ArgumentParser:
    from genevals.conversations.history import HISTORY_TOKENS
    from genevals.metrics.lexical.bleu_tokenize import CHOICES as BLEU_TOKENIZERS
    from genevals.registry import preset

    run = subparsers.add_parser("run", help="score a file of RAG outputs")
    run.add_argument("input", nargs="?", default=None,
                     help="JSONL, CSV or Parquet file (or a trace export with --from; none with --qrels/--run)")
    run.add_argument("-o", "--out", default="reports/latest", help="output folder (default: reports/latest)")
    run.add_argument("-m", "--metrics", type=csv_list, default=None,
                     help="comma-separated metric families, outputs (rougeL, recall@20) or presets (all); default: "
                          f"{','.join(preset('default'))}; see `genevals metrics`")
    run.add_argument("--map", action="append", default=[], metavar="NEW=OLD",
                     help="read field NEW from column OLD (repeatable); NEW may be a part of each context: "
                          "contexts[].text, contexts[].id, contexts[].doc_id, contexts[].score")
    run.add_argument("--map-file", default=None, metavar="FILE",
                     help="a TOML or JSON file of field = \"column\" pairs (--map wins for the same field)")
    run.add_argument("--show-mapping", action="store_true",
                     help="print the first row as read through the mapping, and exit")
    run.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                     help="stop before scoring on any bad row (default), or skip bad rows with a reason")
    run.add_argument("--language", default="auto", metavar="CODE",
                     help="the answers' language: an ISO 639-1 code (en, zh, ar, ...), 'auto' (default: detected "
                          "per sample, offline) or 'auto:CODE' (detected, CODE where unsure); a row's 'language' "
                          "field overrides it. Lexical metrics normalise and segment per language; English-only "
                          "models give status unsupported_language")
    run.add_argument("--strict", action="store_true",
                     help="an unknown field in the input is an error (default: a warning, once per field)")
    run.add_argument("--ignore-fields", type=csv_list, default=None, metavar="A,B",
                     help="columns nothing reads that are meant to be there (latency_ms,retriever): no warning (nor "
                          "--strict error) names them; a --map-file may list them as ignore = [...]")
    run.add_argument("--history-tokens", type=option_type(HISTORY_TOKENS), default=HISTORY_TOKENS.default,
                     metavar="N", help="tokens (words and punctuation marks) of earlier turns a conversation turn's "
                                       "judges see, the oldest turns left out first (default 2000; 0: none; at "
                                       "most 1,000,000, past any judge's context window)")
    run.add_argument("--resume", action="store_true", help="skip samples already in OUT/results.jsonl")
    run.add_argument("--engine", choices=("local", "ray"), default="local",
                     help="score in this process (default) or on a Ray cluster")
    run.add_argument("--ray-address", default=None,
                     help="Ray cluster address (auto, ray://HOST:10001); default: start a local Ray")
    run.add_argument("--ray-judge-actors", type=option_type(engine_setting("judge_concurrency")), default=None, metavar="N",
                     help="Ray: judge actors across the whole cluster (default 4); at most N x --judge-concurrency "
                          "judge requests are in flight at once")
    run.add_argument("--workers", type=option_type(engine_setting("workers")), default=None, help="processes for lexical/retrieval metrics")
    add_thresholds(run)
    agreement.add_options(run)
    run.add_argument("--seed", type=option_type(engine_setting("seed")), default=None, help="bootstrap seed")
    run.add_argument("--quiet", "-q", action="store_true",
                     help="errors and gate results only: no progress bar, table, warning or note (summary.json "
                          "keeps the warnings), except where an earlier run in --out was moved")
    run.add_argument("--verbose", "-v", action="store_true",
                     help="one table per system with every unscored status, and every skipped row")
    run.add_argument("--all-outputs", action="store_true",
                     help="every output in the table (default: each metric's headline outputs, e.g. retrieval's "
                          "mrr, recall@10 and ndcg@10, and those named in --metrics)")
    lexical = run.add_argument_group("lexical and retrieval")
    lexical.add_argument("--stem", action="store_true", help="Porter stemming for ROUGE (English samples only)")
    lexical.add_argument("--token-norm", choices=("squad", "mlqa"), default="mlqa",
                         help="English normalisation for token_f1 and exact_match: mlqa (the default: MLQA's, SQuAD "
                              "v1.1's rule that also deletes Unicode punctuation) or squad (SQuAD v1.1's script, "
                              "ASCII punctuation only); other languages: MLQA's")
    lexical.add_argument("--bleu-tokenize", default=None, metavar="NAME", choices=BLEU_TOKENIZERS,
                         help="sacrebleu's tokenizer for every BLEU sample: " + ", ".join(BLEU_TOKENIZERS)
                              + " (default auto: from each sample's language, e.g. zh for Chinese, 13a for English)")
    lexical.add_argument("--cutoffs", type=whole_numbers, default=None,
                         help="retrieval cutoffs k (default 1,3,5,10)")
    lexical.add_argument("--level", choices=("auto", "chunk", "doc"), default="auto",
                         help="retrieval level; auto = doc when contexts carry doc_id")
    semantic = run.add_argument_group("BERTScore")
    semantic.add_argument("--bertscore-model", default=None, metavar="PATH",
                          help="a local Hugging Face model folder (config.json, weights, tokenizer; needs "
                               "--bertscore-layer) or a model in the HF cache; nothing is downloaded. The packaged "
                               "all-MiniLM-L6-v2 knows English only: other languages get unsupported_language "
                               "unless a model is given here")
    semantic.add_argument("--bertscore-layer", type=option_type(declared("bertscore", "layer")), default=None, help="hidden layer to use")
    semantic.add_argument("--bertscore-idf", action="store_true", help="idf weights from the run's references")
    semantic.add_argument("--bertscore-rescale", action="store_true", help="rescale with a baseline")
    semantic.add_argument("--bertscore-baseline", default=None,
                          help="baseline TSV (LAYER,P,R,F) for rescaling a model bert-score has none for")
    semantic.add_argument("--device", default=None, help="cpu, cuda, cuda:0 (default: cuda if available)")
    semantic.add_argument("--batch-size", type=option_type(declared("bertscore", "batch_size")), default=None, help="BERTScore batch size")
    semantic.add_argument("--bertscore-runtime", choices=("auto", "onnxruntime", "torch"), default=None,
                          help="what runs the model on CPU (default auto: onnxruntime when installed, else torch)")

    sources.add_options(run)
    add_judge_options(run)
    jury.add_option(run)
    history.add_run_options(run)
    export.add_run_option(run)
    rubric = run.add_argument_group("LLM rubric (llm_rubric)")
    rubric.add_argument("--rubric-criteria", action="append", default=[], metavar="NAME=DESCRIPTION",
                       help="an extra rubric criterion (repeatable)")
    rubric.add_argument("--rubric-only-custom", action="store_true", help="drop the default rubric criteria")
    citations = run.add_argument_group("citations")
    citations.add_argument("--citation-pattern", default=None, metavar="REGEX",
                           help="how citation markers look (group 'ref', else the first group, holds the references; "
                                "RE2 syntax, run in linear time: no backreferences or lookaround); "
                                "default: [n], [n, m], [n-m], [id], (Source n), ^n")

    add_set_option(run)
    add_judge_option(run)
    runfile.add_options(run)  # -c/--config, --profile, --no-config, --print-config
    runfile.hook(run)
    run_help.shorten(run)
    run.set_defaults(handler=cmd_run)
    return run


def metric_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Each family's settings from the command line (the judge's own come from :func:`judge_config`)."""
    options: dict[str, dict[str, Any]] = {"rouge": {"use_stemmer": args.stem}, "retrieval": {"level": args.level}}
    if args.cutoffs:
        options["retrieval"]["cutoffs"] = args.cutoffs
    if args.token_norm != "mlqa":
        options["token_f1"], options["exact_match"] = {"norm": args.token_norm}, {"norm": args.token_norm}
    if args.bleu_tokenize is not None:
        options["bleu"] = {"tokenize": args.bleu_tokenize}
    bert = {"model": args.bertscore_model, "layer": args.bertscore_layer, "idf": args.bertscore_idf or None,
            "rescale": args.bertscore_rescale or None, "baseline": args.bertscore_baseline, "device": args.device,
            "batch_size": args.batch_size, "runtime": args.bertscore_runtime}
    options["bertscore"] = {k: v for k, v in bert.items() if v is not None}
    options["faithfulness"] = faithfulness_options(args)
    options["cascade"] = faithfulness_options(args)
    rubric: dict[str, Any] = {}
    if args.rubric_criteria:
        rubric["criteria"] = dict(c.partition("=")[::2] for c in args.rubric_criteria)
    if args.rubric_only_custom:
        rubric["default_criteria"] = False
    options["llm_rubric"] = rubric
    if args.citation_pattern is not None:
        options["citations"] = {"pattern": args.citation_pattern}
        options["citations_local"] = {"pattern": args.citation_pattern}
    _, judged = judge_option_split(args)  # a faithfulness setting given as --judge-option
    for family in ("faithfulness", "cascade"):
        options[family].update(judged)
    return set_settings(args, options)  # an explicit --set wins over the flag for the same setting


#: skipped rows named on the terminal without -v (skipped.jsonl has them all)
SHOWN_SKIPPED = 5
def _say(args: argparse.Namespace, line: str) -> None:
    """A warning or a note, on stderr unless -q: -q leaves errors and gate results only (summary.json keeps
    the warnings)."""
    if not args.quiet:
        print(line, file=sys.stderr)


def _references_hint(error: str, summary: dict[str, Any]) -> str:
    """For an error on samples without references, the input's column that may hold them, as its warning named
    it (``; --map references=gold reads it``): said with the error, since -q shows no warning."""
    from genevals.input.fields import REFERENCES_HINT

    if "no_reference" not in error:
        return ""
    for warning in summary.get("meta", {}).get("unknown_fields") or ():
        if REFERENCES_HINT in warning:
            return f"; {warning.split(REFERENCES_HINT, 1)[1]}"
    return ""


def cmd_run(args: argparse.Namespace) -> int:
    from genevals import engine
    from genevals.cli import mapping
    from genevals.cli.gates import check_run, unscored_requested
    from genevals.engine.spec import LocalSettings, RaySettings, RunSpec
    from genevals.input.readers import InputError
    from genevals.labels.provenance import run_meta as judged_qrels
    from genevals.registry import UnknownMetric
    from genevals.stats import DEFAULT_MIN_COVERAGE, DEFAULT_SEED
    from genevals.output.thresholds import ThresholdError, failures as threshold_failures

    if getattr(args, "runfile_problem", None):  # the run file: read before the flags, so reported first
        print(f"genevals: error: {args.runfile_problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if getattr(args, "runfile", None) is not None and args.runfile.note:
        # also with -q: a file found without -c may be what set -q, and says where the run's settings came from
        print(f"genevals: note: {args.runfile.note}", file=sys.stderr)
    if getattr(args, "print_config", False):
        return runfile_merge.print_config(args, metric_options)
    # Text that cannot be written first: the other checks print option values and create the --out folder.
    problem = unwritable_option(args)
    if problem is None and args.show_mapping and not sources.problem(args):
        try:
            return mapping.show(args, *mapping.read(args))
        except InputError as exc:
            print(f"genevals: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    problem = problem or check_options(args) or agreement.problem(args) or export.problem(args.otel_endpoint)
    recorder = history.Recorder(args)
    problem = problem or recorder.start()
    if problem is not None:
        print(f"genevals: error: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    bar = None
    min_coverage = DEFAULT_MIN_COVERAGE if args.min_coverage is None else args.min_coverage
    column_map: dict[str, str] = {}
    ignore: tuple[str, ...] = ()
    try:
        column_map, ignore = mapping.read(args)
        try:
            # the run file's [judge] fields, under --judge-option and the judge flags
            judge = judge_config(args, **{**runfile_merge.judge_fields(args), **judge_option_split(args)[0]})
        except ValueError as exc:
            raise InputError("judge options", None, None, str(exc)) from None
        judge, bad_jury = jury.apply(args, judge)
        if bad_jury:
            print(f"genevals: error: {bad_jury}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if args.engine == "ray":
            settings: LocalSettings | RaySettings = RaySettings(
                address=args.ray_address, judge_concurrency=args.ray_judge_actors or RaySettings.judge_concurrency)
        else:
            settings = LocalSettings(workers=args.workers)
        settle = failures.judge_settler(check=not args.no_preflight,
                                        eager=args.engine == "ray" or (args.no_judge_cache and not args.resume))
        try:
            spec = RunSpec.build(sources.data(args), sources.metrics(args), options=runfile_merge.metric_options(args, metric_options),
                                 judge=judge,
                                 column_map=column_map, on_error="skip" if args.on_error == "skip" else "raise",
                                 strict=args.strict, out_dir=args.out, resume=args.resume,
                                 seed=args.seed if args.seed is not None else DEFAULT_SEED, keep_samples=False,
                                 meta={"input": str(getattr(sources.data(args), "name", args.input)),
                                       **recorded_thresholds(args.thresholds),
                                       "min_coverage": min_coverage,
                                       **({"ignored_fields": list(ignore)} if ignore else {}),
                                       **judged_qrels(args.qrels)},
                                 engine=settings, language=args.language, settle_judge=settle,
                                 before_writing=recorder.check_input, ignore_fields=ignore,
                                 history_tokens=args.history_tokens)
        except failures.JudgeProblem as exc:
            print(f"genevals: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        for family, why in (spec.output.meta.get("left_out") or {}).items():  # said before the wait, not after
            _say(args, f"genevals: note: {family} left out: {why}")
        if args.thresholds:  # checked against what the metrics declare, before anything is scored
            check_run(args.thresholds, spec.selected)
        agreement.check_run(args, spec.selected)
        bar = None if args.quiet else Progress("sample")
        results = engine.run(spec, bar)
    except (InputError, UnknownMetric, ThresholdError) as exc:
        print(f"genevals: error: {mapping.from_file(str(exc), args, column_map)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ConnectionError as exc:  # --ray-address that does not answer, or refuses this client
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except PermissionError as exc:  # an --out folder (or a file in it) this user may not write
        print(f"genevals: error: {exc.filename or args.out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except judge_unavailable() as exc:  # found at the first call the cache could not answer; the rest is written
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"\ngenevals: interrupted; partial results and summary are in {args.out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if bar is not None:
            bar.close()
    summary = results.summary()
    agreed = agreement.gate(args, summary)  # recorded in summary.json before the report reads it
    for warning in summary.get("meta", {}).get("unknown_fields") or ():
        strict = "" if warning.startswith("ignored field ") else " (--strict makes this an error)"
        _say(args, f"genevals: warning: {warning}{strict}")
    if args.verbose and ignore:
        _say(args, f"genevals: note: ignored fields (no warning names them): {', '.join(ignore)}")
    from genevals.registry import preset
    from genevals.report.model import build_data
    from genevals.report.render import write_page
    from genevals.output.comparing import directions_of
    from genevals.output.runfolder import REPORT_FILE, read_outputs
    from genevals.output.terminal import leaderboard_lines

    report_data = build_data([Path(args.out)], args.thresholds or None, min_coverage=min_coverage,
                             on_values=recorder.values, held=[results.held])
    report_path = write_page(report_data, Path(args.out) / REPORT_FILE)
    if not args.quiet:
        named = [name for name in args.metrics or () if not preset(name)]
        print(results.to_table(verbose=args.verbose, all_outputs=args.all_outputs, requested=named))
        for line in leaderboard_lines(summary, directions_of(read_outputs(args.out))):
            print(line)
        shown = results.skipped if args.verbose else results.skipped[:SHOWN_SKIPPED]
        for row in shown:
            print(f"skipped {row.origin}: {row.field or '-'}: {row.reason}", file=sys.stderr)
        if len(shown) < len(results.skipped):
            print(f"skipped ... and {len(results.skipped) - len(shown)} more rows (-v, or {Path(args.out)}/"
                  "skipped.jsonl)", file=sys.stderr)
        print(f"wrote {Path(args.out) / 'results.jsonl'}, {Path(args.out) / 'summary.json'} and {report_path}")
    for family, warning in (summary.get("meta", {}).get("judge_warnings") or {}).items():
        _say(args, f"genevals: note: {family}: {warning}")
    if (summary.get("meta", {}).get("qrels_judged_by") or {}).get("note"):
        _say(args, f"genevals: note: --qrels: {summary['meta']['qrels_judged_by']['note']}")
    for note in sources.unshared_ids_notes(args, report_data):
        _say(args, f"genevals: warning: {note}")
    unscored, notes = unscored_requested(args.metrics, summary)
    for note in notes:
        _say(args, f"genevals: note: {note}")
    for error in unscored:
        print(f"genevals: error: {error}{_references_hint(error, summary)}", file=sys.stderr)
    missed = threshold_failures(agreement.decided(args, args.thresholds, agreed), summary.get("systems", {}))
    for failure in missed:
        print(f"genevals: threshold missed: {failure}", file=sys.stderr)
    compared = recorder.finish(summary, spec.judge)  # EXIT_BAD_INPUT: a baseline that compared nothing
    export.after_run(args)  # the files are written: a backend that fails loses none of them
    if failures.report(results.judge_failures, args.max_judge_errors):
        return EXIT_JUDGE_ERRORS
    if agreed is not None and not agreed.passed:
        return EXIT_JUDGE_ERRORS
    if compared == EXIT_BAD_INPUT:
        return EXIT_BAD_INPUT
    return EXIT_THRESHOLD if missed or unscored or compared else EXIT_OK


