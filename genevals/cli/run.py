"""``genevals run INPUT --out DIR``: score a file of RAG outputs, write results.jsonl, summary.json and
report.html."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from genevals.cli import agreement, export, history, jury, run_help, runfile, runfile_merge, sources
from genevals.cli.run_checks import check_options, unwritable_option
from genevals.cli.set_option import add_set_option, set_settings
from genevals.output.terminal import say, visible_message
from genevals.cli.common import (EXIT_BAD_INPUT, add_judge_option, add_judge_options,
                                 add_thresholds, csv_list, declared, engine_setting, faithfulness_options,
                                 option_type, judge_option_split, whole_numbers)


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
    add_judge_options(run, batch=True)
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


def cmd_run(args: argparse.Namespace) -> int:
    """Parse (done by argparse and the run file) -> check -> build and score -> the lifecycle -> its exit code."""
    from genevals.cli import mapping, run_course
    from genevals.input.readers import InputError
    from genevals.lifecycle import Lifecycle

    if getattr(args, "runfile_problem", None):  # the run file: read before the flags, so reported first
        print(f"genevals: error: {visible_message(args.runfile_problem)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if getattr(args, "runfile", None) is not None and args.runfile.note:
        # also with -q: a file found without -c may be what set -q, and says where the run's settings came from
        say(f"genevals: note: {args.runfile.note}")
    if getattr(args, "print_config", False):
        return runfile_merge.print_config(args, metric_options, {"seed": run_course.seed(args),
                                                                 "judge_seed": run_course.judge_seed(args)})
    # Text that cannot be written first: the other checks print option values and create the --out folder.
    problem = unwritable_option(args)
    if problem is None and args.show_mapping and not sources.problem(args):
        try:
            return mapping.show(args, *mapping.read(args))
        except InputError as exc:
            say(f"genevals: error: {exc}")
            return EXIT_BAD_INPUT
    problem = problem or check_options(args)
    if problem is None and args.no_history and args.history is not None:
        problem = "--history and --no-history: give one of them"
    course = Lifecycle(run_course.settings(args), run_course.printer(args.quiet)) if problem is None else None
    problem = problem or course.check()
    if problem is not None or course is None:
        say(f"genevals: error: {problem}")
        return EXIT_BAD_INPUT
    scored = run_course.score(args, course, metric_options)
    if isinstance(scored, int):
        return scored
    results, spec, ignore = scored
    return course.finish(results, spec.judge, run_course.show(args, ignore)).exit_code
