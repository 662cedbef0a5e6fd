"""``genevals generate DOCS --out DIR -n N``: a test set from documents, every item checked, with its card
(:mod:`genevals.generate`).

With no judge configured it runs offline: simulated known-item queries and extractive items
(:mod:`genevals.generate.offline`), labelled as such, the card saying what they are not good for. With a judge
(the judge options, as ``genevals run`` takes them) the LLM generator writes the items and the judge gates check
them. The exit codes are the run lifecycle's (:mod:`genevals.lifecycle.exits`), and so is the rule on the judge:
0 exactly N items kept; 1 "made K of N" (the attempts ran out; the rejections are counted); 2 bad input or
options (nothing generated); 3 the judge failed: its preflight, or more than ``--max-judge-errors`` of a family's
calls (the generator's, or one judge gate's) ended in judge_error or parse_error
(:mod:`genevals.generate.failures`; everything made is written first); 130 interrupted (Ctrl-C: the journal keeps
every finished attempt and the same command resumes). ``-q`` leaves out notes and warnings, never errors or the
verdict's lines.
"""
from __future__ import annotations

import argparse
import signal
from pathlib import Path

from genevals.cli import jury
from genevals.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, add_judge_options, judge_config,
                                 judge_unavailable)
from genevals.lifecycle.exits import EXIT_JUDGE_ERRORS
from genevals.output.terminal import say
from genevals.utf8 import shown

#: exit status when fewer than N items were kept
EXIT_SHORT = 1
#: the most items one set may ask for (the plan holds one slot type per item)
MAX_ITEMS = 1_000_000
#: skipped documents named one a line before "... and N more"
SHOWN_SKIPPED = 10


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "generate", help="a test set from documents: every item checked by gates, with a measured card",
        description="Chunk the documents, draw slots coverage first (every document before any repeat), make one "
                    "item per slot (an LLM judge's structured output, or offline: known-item queries and extractive "
                    "items), check each with the gates, and write testset.jsonl (genevals run's input), "
                    "rejected.jsonl, qrels.txt, card.json and report.html (the card as a page) into --out.")
    parser.add_argument("docs", metavar="DOCS",
                        help="a folder of .txt/.md/.html files, or a JSONL/TSV file of {id, text} rows (or "
                             "pre-chunked {doc_id, text} rows)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder to write (a killed run resumes in it)")
    parser.add_argument("-n", type=int, required=True, metavar="N", help="items to keep")
    parser.add_argument("--seed", type=int, default=0, help="fixes the whole plan (default 0)")
    parser.add_argument("--types", default=None, metavar="MIX.toml",
                        help="type targets, personas, styles and lengths (default offline: known_item and "
                             "extractive, half each)")
    parser.add_argument("--language", default=None, metavar="xx", help="the items' language (default: the documents')")
    parser.add_argument("--chunk-tokens", type=int, default=None, metavar="K",
                        help="the most word tokens a chunk holds (default 160)")
    parser.add_argument("--max-attempts", type=int, default=None, metavar="A",
                        help="attempts before giving up (default 3N + 10)")
    parser.add_argument("--no-embeddings", action="store_true",
                        help="leave the card's MiniLM figures out, the cosine and the dense rank (they load the model "
                             "of the semantic extra)")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only errors and what decides the exit code (no notes, warnings or progress bar)")
    parser.add_argument("--earlier", nargs="+", default=(), metavar="TESTSET",
                        help="testset.jsonl files of earlier sets: an item duplicating one of theirs is rejected "
                             "(duplicate)")
    add_judge_options(parser)
    jury.add_option(parser, help="several judges (the file genevals run --jury takes): the first writes the items, "
                                 "the second checks them (a model never grades its own items)")
    parser.set_defaults(handler=cmd_generate)
    return parser


def _fail(message: str) -> int:
    say(f"genevals: error: {message}")
    return EXIT_BAD_INPUT


def _mix(args: argparse.Namespace, offline: bool):
    from genevals.generate.mix import LLM_MIX, OFFLINE_MIX

    if args.types is None:
        return OFFLINE_MIX if offline else LLM_MIX
    from genevals.generate.mixfile import read_mix

    return read_mix(args.types)


#: the prompts a judged generation sends (the runtime's prompt version hashes them all)
PROMPTS = ("generate_item", "gate_supported", "gate_solve", "gate_closed_book", "gate_each")


def _generator(config, offline: bool, chunks):
    from genevals.generate.offline import OfflineGenerator

    if offline:
        return OfflineGenerator(chunks), None
    from genevals.generate.llm import LLMGenerator
    from genevals.judge.runtime import JudgeRuntime
    from genevals.prompt_render import prompt_version

    from genevals.judge.jury import Jury

    version = prompt_version(*PROMPTS)
    if isinstance(config, Jury):  # the first judge writes, the second checks: no model grades its own items
        return LLMGenerator(JudgeRuntime(config.jurors[0].config, version)), \
            JudgeRuntime(config.jurors[1].config, version)
    # one runtime for the generator and the gates: the local server's caps, one cache, one preflight
    runtime = JudgeRuntime(config, version)
    return LLMGenerator(runtime), runtime


def _settings(args: argparse.Namespace):
    from genevals.generate.chunks import ChunkSettings
    from genevals.generate.driver import GenerateConfig
    from genevals.language import check

    if not 1 <= args.n <= MAX_ITEMS:
        raise ValueError(f"-n: from 1 to {MAX_ITEMS:,} items, got {args.n}")
    for name in ("chunk_tokens", "max_attempts"):
        value = getattr(args, name)
        if value is not None and not 1 <= value <= 10 * MAX_ITEMS:
            raise ValueError(f"--{name.replace('_', '-')}: from 1 to {10 * MAX_ITEMS:,}, got {value}")
    language = check(args.language, "--language") if args.language is not None else None
    chunking = ChunkSettings(args.chunk_tokens) if args.chunk_tokens else ChunkSettings()
    return GenerateConfig(Path(args.out), args.n, args.seed, language, args.max_attempts, chunking,
                          not args.no_embeddings)


def cmd_generate(args: argparse.Namespace) -> int:
    from genevals.cli.progress import Progress
    from genevals.generate import offline as offline_room
    from genevals.generate.checks import Gatekeeper
    from genevals.generate.driver import estimate, generate_set, name_of, prepare
    from genevals.generate.mix import counts
    from genevals.generate.outputs import JOURNAL, read_testset
    from genevals.input.rows import InputError

    try:
        config = _settings(args)
        judge = judge_config(args, preflight=not args.no_preflight)
    except ValueError as exc:
        return _fail(str(exc))
    if config.out.exists() and not config.out.is_dir():
        return _fail(f"--out {shown(args.out)}: a file is there; give a folder")
    docs_path = Path(args.docs).resolve()
    if docs_path.is_dir() and docs_path in (config.out.resolve(), *config.out.resolve().parents):
        return _fail(f"--out {shown(args.out)} is inside DOCS: its qrels.txt would be read as a document next time; "
                     "give a folder outside it")
    judge, problem = jury.apply(args, judge)
    if problem is not None:
        return _fail(problem)
    offline = not judge.configured
    try:
        earlier = [item for path in args.earlier for item in read_testset(path)]
    except ValueError as exc:
        return _fail(str(exc))
    try:
        mix = _mix(args, offline)
        counts(mix, config.n)
        docs, chunks, dropped, skipped = prepare(args.docs, config.chunking)
    except (InputError, ValueError) as exc:
        return _fail(str(exc))
    for line in ([] if args.quiet else skipped[:SHOWN_SKIPPED]):
        say(f"genevals: warning: {line}")
    if len(skipped) > SHOWN_SKIPPED and not args.quiet:
        say(f"genevals: warning: ... and {len(skipped) - SHOWN_SKIPPED} more skipped")
    if offline and (other := sorted(set(mix.types) - set(offline_room.TYPES))):
        return _fail(f"no judge configured: the offline generator makes {' and '.join(offline_room.TYPES)} items, "
                     f"not {', '.join(other)}; configure a judge (--judge-base-url URL or --judge-model FILE.gguf)")
    generator, client = _generator(judge, offline, chunks)
    if args.dry_run:
        cost = estimate(config, mix, chunks, generator)
        say(f"genevals generate: dry run: {cost['items']} items from {len(chunks)} chunks of {len(docs)} documents; "
            f"{cost['calls']} generator calls, about {cost['prompt_tokens']:,} prompt and "
            f"{cost['completion_tokens']:,} completion tokens (gate calls not counted); "
            f"{_price(judge, cost)}; nothing was called")
        return EXIT_OK
    from genevals.generate.gates.retrieval import MissingExtra

    try:
        gates = Gatekeeper({c.id: c for c in chunks}, judge=client, language=config.language, earlier=earlier)
    except MissingExtra as exc:
        return _fail(str(exc))
    about = {"tool": "genevals generate", "generator": name_of(generator), "documents": args.docs,
             "documents_skipped": len(skipped), "chunks_dropped": len(dropped)}
    if offline:
        about.update(items_are="offline: simulated known-item queries (Azzopardi, de Rijke & Balog 2007) and "
                               "extractive reference items, for ranking retrievers",
                     not_good_for=list(offline_room.NOT_GOOD_FOR), ranking_agreement=offline_room.measured())
    # the bar is drawn on a terminal only, and not with -q
    bar, shown_kept = (Progress("item") if not args.quiet else _NoBar()), [0]

    interrupted = [False]

    def on_sigint(signum, frame) -> None:
        # remembered as well as raised: a KeyboardInterrupt raised inside a weakref or __del__ callback is
        # printed and ignored by Python, so the next attempt raises it again from the loop
        interrupted[0] = True
        raise KeyboardInterrupt

    def tick(kept: int, attempts: int) -> None:
        bar(kept - shown_kept[0], config.n)
        shown_kept[0] = kept
        if interrupted[0]:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        outcome = generate_set(config, mix, docs, chunks, generator, gates, about, tick)
        if interrupted[0]:  # the set was finished and written when the interrupt got through
            raise KeyboardInterrupt
    except ValueError as exc:
        return _fail(str(exc))
    except judge_unavailable() as exc:  # the preflight, at the first call the cache could not answer
        say(f"genevals: error: {exc}; every finished attempt is in {config.out / JOURNAL}: the same command "
            "resumes from there")
        return EXIT_JUDGE_ERRORS
    except KeyboardInterrupt:
        say(f"genevals generate: interrupted with {shown_kept[0]} of {config.n} items kept; every finished attempt "
            f"is in {config.out / JOURNAL}: the same command resumes from there")
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, previous)
        bar.close()
    return _verdict(args, config, outcome)


def _verdict(args: argparse.Namespace, config, outcome) -> int:
    """What the set came to, said through the run lifecycle's lines (``-q`` keeps errors and gate results) and
    its rule on the judge's failures: exit 3 above ``--max-judge-errors``, else 0 for N kept, 1 for fewer."""
    from genevals.cli.run_course import printer
    from genevals.engine.failures import JudgeFailures
    from genevals.generate.failures import calls
    from genevals.lifecycle import Messages
    from genevals.lifecycle.course import judge_failures

    lines = Messages(printer(args.quiet))
    kept, wanted = len(outcome.kept), config.n
    names = ["testset.jsonl", "rejected.jsonl", "qrels.txt", "card.json"]
    page = _page(config.out, lines)
    files = ", ".join(str(config.out / f) for f in names + ([page] if page else []))
    if outcome.complete:
        lines.gate(f"genevals generate: kept {kept} items ({len(outcome.rejected)} rejected); wrote {files}")
        lines.note(f"genevals generate: next: run your system on each question of {config.out / 'testset.jsonl'} "
                   "and fill in its answer (and contexts): the set's answers are empty, and genevals run on the set "
                   "as it is exits 1 saying so")
    else:
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(outcome.card["rejections"].items()))
        lines.gate(f"genevals generate: made {kept} of {wanted} items after {outcome.card['attempts']} attempts; "
                   f"rejected: {reasons or 'none'}; wrote {files}")
    found = JudgeFailures()
    for family, status, reason in calls([*outcome.kept, *outcome.rejected]):
        found.add(family, status, reason)
    if judge_failures(found, args.max_judge_errors, lines, unit="calls", kept="every item made is written"):
        return EXIT_JUDGE_ERRORS
    return EXIT_OK if outcome.complete else EXIT_SHORT


class _NoBar:
    def __call__(self, done: int, total: int) -> None:
        pass

    def close(self) -> None:
        pass


def _page(out: Path, lines) -> str | None:
    """The card's page (report.html) drawn from card.json; its name, or None (with a warning) when it could not
    be written: the set itself is whole without it, and ``genevals report DIR`` draws it again."""
    from genevals.report.testset import PAGE, write_testset_page

    try:
        write_testset_page(out)
    except (OSError, ValueError) as exc:
        lines.warning(f"genevals: warning: the card's page {out / PAGE} was not written: {exc}; the set is "
                      f"complete, `genevals report {shown(str(out))}` draws it again")
        return None
    return PAGE


def _price(judge, cost: dict) -> str:
    if not cost["calls"]:
        return "no judge call, nothing to price"
    from genevals.judge.client import SampleUsage

    if hasattr(judge, "jurors"):  # a jury: its first judge writes the items
        judge = judge.jurors[0].config
    usage = SampleUsage(prompt_tokens=cost["prompt_tokens"], completion_tokens=cost["completion_tokens"])
    price = usage.cost(judge.model or "", judge.prices)
    return f"about ${price:.4f}" if price is not None else "no price for the model (--judge-prices FILE)"
