"""``genevals label --qrels-out FILE RUN ...``: relevance labels from a judge (:mod:`genevals.labels`).

The runs' top ``--depth`` documents per topic are pooled, each pooled (topic, document) pair is graded 0-3 by an
LLM judge with UMBRELA's prompt (the judge options, as ``genevals run`` takes them) or by the offline MiniLM model
(``--offline``, or no judge configured: coarse), and the grades are written as a TREC qrels file that starts with
a ``# genevals label ...`` line, beside a sidecar ``FILE.json`` holding the whole provenance. ``genevals run
--qrels FILE --run RUN`` reads it, and its summary and report say the labels were made by that model.

Judge replies are cached (the judge cache, keyed by the prompt's hash), so a re-run, or a deeper pool, asks only
for the pairs not judged yet. ``--dry-run`` prices the pool and calls nothing.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from genevals.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_JUDGE_ERRORS, EXIT_OK, add_judge_option,
                                 add_judge_options, judge_config, judge_option_split, lazy_epilog, option_type)
from genevals.input.kinds import LABELS, is_row_file
from genevals.settings import Setting
from genevals.utf8 import shown
from genevals.output.terminal import say

#: each run's top K documents per topic are judged
DEPTH = Setting("depth", int, 10, "each run's top K documents per topic are pooled and judged", minimum=1)
#: errors shown before "... and N more"
SHOWN_ERRORS = 20


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "label", help="relevance labels (qrels) for the runs' top documents, graded 0-3 by a judge",
        description="Pool the runs' top --depth documents per topic, grade each (topic, document) 0-3 with an LLM "
                    "judge (UMBRELA's prompt) or the offline MiniLM model, and write TREC qrels with their "
                    "provenance (a '# genevals label' first line and a FILE.json sidecar).")
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help=f"TREC run files, or genevals {LABELS} files (each system one run; their "
                             "questions and context texts serve as topics and documents)")
    parser.add_argument("--qrels-out", required=True, metavar="FILE", help="the qrels file to write (and FILE.json)")
    parser.add_argument("--topics", default=None, metavar="TOPICS",
                        help="topic texts: TSV 'id<TAB>text' or JSONL {id, text} (default: the runs' questions)")
    parser.add_argument("--docs", default=None, metavar="DOCS",
                        help="document texts: JSONL {id, text} or TSV 'id<TAB>text' (default: the runs' contexts)")
    parser.add_argument("--depth", type=option_type(DEPTH), default=DEPTH.default, metavar="K",
                        help=f"pool each run's top K documents per topic (default {DEPTH.default})")
    parser.add_argument("--offline", action="store_true",
                        help="grade with the packaged offline MiniLM model (no LLM; coarse: see the docs); also "
                             "what happens when no judge is configured")
    parser.add_argument("--skip-unknown-docs", action="store_true",
                        help="leave a pooled document that has no text unjudged (counted) instead of stopping")
    add_judge_options(parser)
    add_judge_option(parser)
    lazy_epilog(parser, _card_epilog)
    parser.set_defaults(handler=cmd_label)
    return parser


def _card_epilog() -> str | None:
    """The offline grader's validation card, as `genevals metrics` shows a metric's."""
    from genevals.labels.card import card

    offline = card("offline")
    if offline is None:
        return None
    return ("how far the offline grader's qrels can be trusted (benchmarks/bench_judged_qrels.py):\n"
            + "\n".join("  " + line for line in offline["lines"]))


def _fail(message: str) -> int:
    say(f"genevals: error: {message}")
    return EXIT_BAD_INPUT


def _errors(errors: list) -> int:
    for error in errors[:SHOWN_ERRORS]:
        say(f"genevals: error: {error}")
    if len(errors) > SHOWN_ERRORS:
        say(f"genevals: error: ... and {len(errors) - SHOWN_ERRORS} more")
    return EXIT_BAD_INPUT


def _doc_line(path: str, line: int, topic: str, doc: str) -> int:
    """The line of a TREC run that lists ``doc`` for ``topic`` (``line``: the topic's first, for a genevals file
    the row's)."""
    if is_row_file(path):
        return line
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, start=1):
                fields = text.split()
                if len(fields) == 6 and fields[0] == topic and fields[2] == doc:
                    return number
    except OSError:
        pass
    return line


def _clobbers(args: argparse.Namespace, out: Path) -> str | None:
    """Why ``--qrels-out`` or its sidecar may not be written: one of them is the same file as an input (a run,
    --topics, --docs, --judge-prices), or the sidecar's name holds a file genevals did not write."""
    from genevals.files import clobber_refusal
    from genevals.labels.provenance import sidecar
    from genevals.labels.qrels_file import sidecar_refusal

    inputs = [("the run", run) for run in args.runs] + [("--topics", args.topics), ("--docs", args.docs),
                                                         ("--judge-prices", getattr(args, "judge_prices", None))]
    for what, path in ((f"--qrels-out {shown(args.qrels_out)}", out),
                       (f"--qrels-out {shown(args.qrels_out)}: its sidecar {shown(str(sidecar(out)))}", sidecar(out))):
        problem = clobber_refusal(path, inputs)
        if problem is not None:
            return f"{what} {problem}"
    problem = sidecar_refusal(out)
    return None if problem is None else f"--qrels-out {shown(args.qrels_out)}: {problem}"


def _judge(args: argparse.Namespace):
    """"offline" or the JudgeConfig; ValueError for a bad judge option."""
    config_extra, other = judge_option_split(args)
    if other:
        raise ValueError(f"--judge-option {next(iter(other))}: a faithfulness setting; genevals label takes "
                         "judge settings only")
    judge = judge_config(args, **config_extra, preflight=not args.no_preflight)
    if args.offline:
        if judge.configured:
            raise ValueError("--offline: grades with the MiniLM model, yet judge options name an LLM judge "
                             f"({judge.resolved_backend}); give one or the other")
        return "offline"
    if not judge.configured:
        return AUTO_OFFLINE
    return judge


#: no judge configured: the offline model, said so once the inputs are read
AUTO_OFFLINE = "auto-offline"
NO_JUDGE_NOTE = ("genevals: note: no judge configured: grades come from the offline MiniLM model (coarse: "
                 "context_relevance_local cut at 0.5/0.6/0.75); --judge-base-url URL for an LLM judge, --offline "
                 "to choose this")


def cmd_label(args: argparse.Namespace) -> int:
    from genevals.cli.progress import Progress
    from genevals.files import output_refusal
    from genevals.input.rows import InputError
    from genevals.judge.preflight import JudgeUnavailable
    from genevals.labels import label, pool, write_qrels
    from genevals.labels.inputs import read_runs, read_texts
    from genevals.labels.pooling import Pool

    out = Path(args.qrels_out)
    problem = output_refusal(out)
    if problem is not None:
        return _fail(f"--qrels-out {shown(args.qrels_out)}: {problem}")
    problem = _clobbers(args, out)
    if problem is not None:
        return _fail(problem)
    try:
        judge = _judge(args)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        runs, errors = read_runs(args.runs)
        if errors:
            return _errors(errors)
        topics, documents = dict(runs.topics), dict(runs.documents)
        for path, what, into in ((args.topics, "--topics", topics), (args.docs, "--docs", documents)):
            if path is not None:
                texts, errors = read_texts(path, what)
                if errors:
                    return _errors(errors)
                into.update(texts)
    except InputError as exc:  # a file that cannot be read at all
        return _fail(str(exc))
    pooled = pool(runs.rankings, args.depth)
    where = {}
    for (run, topic), place in runs.where.items():
        where.setdefault(topic, place)
    missing_topics = [t for t in pooled if not topics.get(t, "").strip()]
    if missing_topics:
        path, line = where[missing_topics[0]]
        source = f"not in --topics {args.topics}" if args.topics else "give the topic texts with --topics TOPICS"
        return _fail(f"{path}:{line}: field 'TOPIC': topic {missing_topics[0]!r} has no text ({source}; "
                     f"{len(missing_topics)} of {len(pooled)} topics have none)")
    unknown = {(t, d) for t, docs in pooled.items() for d in docs if d not in documents}
    if unknown and not args.skip_unknown_docs:
        topic, doc = next((t, d) for t, docs in pooled.items() for d in docs if (t, d) in unknown)
        run = next(r for r, ranking in runs.rankings.items() if doc in ranking.get(topic, ())[:args.depth])
        path, line = runs.where[(run, topic)]
        source = f"not in --docs {args.docs}" if args.docs else "give the document texts with --docs DOCS"
        return _fail(f"{path}:{_doc_line(path, line, topic, doc)}: field 'DOCNO': document {doc!r} (topic "
                     f"{topic!r}) has no text ({source}; {len(unknown)} of {pooled.pairs} pooled pairs have "
                     "none; --skip-unknown-docs leaves them unjudged)")
    if unknown:
        pooled = Pool({t: [d for d in docs if (t, d) not in unknown] for t, docs in pooled.items()},
                      pooled.depth, pooled.runs)
        say(f"genevals: note: {len(unknown)} pooled document(s) without a text left unjudged "
            "(--skip-unknown-docs)")
    if not pooled.pairs:
        return _fail("no pooled (topic, document) pair has a text to judge; nothing written")
    if judge == AUTO_OFFLINE:
        say(NO_JUDGE_NOTE)
        judge = "offline"
    if judge == "offline" and args.dry_run:
        print(f"dry run: {pooled.pairs} pooled pairs over {len(pooled)} topics (depth {args.depth}, "
              f"{len(pooled.runs)} runs) for the offline model: no judge requests, no cost; nothing was written")
        return EXIT_OK
    bar = Progress("pair")  # drawn only on a terminal
    try:
        labelled = label(pooled, topics, documents, judge=judge, progress=lambda n: bar(n, pooled.pairs))
    except JudgeUnavailable as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        print("\ngenevals: interrupted; nothing written. The judge's replies so far are cached: the same command "
              "asks only for the rest", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        bar.close()
    if labelled.dry_run is not None:
        e = labelled.dry_run
        cost = "" if e["estimated_cost_usd"] is None else f", about ${e['estimated_cost_usd']:.4f}"
        print(f"dry run: {pooled.pairs} pooled pairs over {len(pooled)} topics (depth {args.depth}, "
              f"{len(pooled.runs)} runs): {e['estimated_requests']} requests, about {e['estimated_prompt_tokens']} "
              f"prompt + {e['estimated_completion_tokens']} completion tokens{cost} (~4 characters per token); "
              "nothing was called or written")
        return EXIT_OK
    p = labelled.provenance
    p.update({"run_files": list(args.runs), "topics_file": args.topics, "docs_file": args.docs,
              "skipped_unknown_docs": len(unknown)})
    failed = p.get("failed", 0) + p.get("unreadable", 0)
    if pooled.pairs and failed / pooled.pairs > args.max_judge_errors:
        detail = p.get("first_error") or p.get("first_unreadable_reply") or ""
        say(f"genevals: error: the judge gave no grade for {failed} of {pooled.pairs} pairs ({p.get('failed', 0)} "
            f"failed calls, {p.get('unreadable', 0)} unreadable replies; more than --max-judge-errors "
            f"{args.max_judge_errors:g}); nothing written. The grades read are cached: a re-run asks only for "
            f"the rest. First: {detail}")
        return EXIT_JUDGE_ERRORS
    try:
        write_qrels(out, labelled)
    except OSError as exc:  # the sidecar's name taken meanwhile, a folder that cannot be written ...
        return _fail(f"--qrels-out {shown(args.qrels_out)}: {exc.strerror or exc}")
    grades = ", ".join(f"{g}: {n}" for g, n in p["grades"].items())
    judged = ("the offline MiniLM model" if judge == "offline"
              else f"{p['judge']} judge {p['model']} (prompt {p['prompt_hash']}; {p.get('requests', 0)} requests, "
                   f"{p.get('cached', 0)} from the cache)")
    say(f"wrote {out} and {out}.json: {p['graded']} judgements of {pooled.pairs} pooled pairs over {len(pooled)} "
        f"topics (depth {args.depth}, {len(pooled.runs)} runs) by {judged}; grades {grades}", sys.stdout)
    from genevals.metrics.retrieval.retrieval import DEFAULT_CUTOFFS as HEADLINE_CUTOFFS

    if args.depth < max(HEADLINE_CUTOFFS):
        # one line (genevals.lifecycle.messages.MAX_LINE); `genevals run --qrels` names the counts
        say(f"genevals: note: pooled to depth {args.depth}: cutoffs "
            f"{', '.join(f'@{k}' for k in HEADLINE_CUTOFFS if k > args.depth)} meet unjudged documents (not "
            "relevant); genevals run --qrels counts them")
    if judge == "offline":
        from genevals.labels.card import card

        for line in (card("offline") or {}).get("lines", ()):
            say(f"genevals: card: {line}")
    if p.get("warning"):
        say(f"genevals: warning: {p['warning']}")
    if failed:
        say(f"genevals: warning: {failed} pair(s) got no grade and are left unjudged")
    for key, why in (("unsupported_language", "a topic or document not in English, the only language the offline "
                                              "model knows"), ("empty_document", "an empty document text")):
        if p.get(key):
            say(f"genevals: warning: {p[key]} pair(s) left unjudged ({key}: {why})")
    return EXIT_OK
