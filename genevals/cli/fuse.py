"""``genevals fuse RUN RUN ... -o FUSED``: reciprocal rank fusion (:mod:`genevals.metrics.retrieval.fusion`) of
retrieval runs, each a TREC run file or a genevals input file (JSONL, CSV, Parquet: each row's contexts, in
retrieved order, keyed by their id, else their doc_id), written as a TREC run (``--to-trec``, or ``-o`` ending
in .trec, .run or .txt) or as genevals JSONL (``-o`` ending in .jsonl) that ``genevals run`` reads.

A TREC run is ranked as trec_eval ranks it (score descending, ties by document id descending; the RANK column is
ignored): see :mod:`genevals.input.trec`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, nonnegative, option_type
from genevals.input.kinds import LABELS, is_row_file
from genevals.settings import Setting
from genevals.utf8 import shown
from genevals.output.terminal import say

#: keep each topic's top N only
DEPTH = Setting("depth", int, None, "keep each topic's top N only", minimum=1)

#: the names of a TREC run written out (a run read is any file that is not a row file: genevals.input.kinds)
TREC_SUFFIXES = (".trec", ".run", ".txt")
#: errors shown before "... and N more"
SHOWN_ERRORS = 20


def _weights(text: str) -> list[float]:
    return [nonnegative(part.strip()) for part in text.split(",")]


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("fuse", help="fuse retrieval runs with reciprocal rank fusion (RRF)",
                                   description="score(d) = sum_i w_i / (k + rank_i(d)); ties broken by document "
                                               "id, descending (trec_eval's order)")
    parser.add_argument("runs", nargs="+", metavar="RUN", help=f"TREC run files or genevals {LABELS} files")
    parser.add_argument("-o", "--out", required=True, metavar="FUSED",
                        help="the fused run: TREC with --to-trec or a .trec/.run/.txt name, else genevals JSONL")
    parser.add_argument("--k", type=nonnegative, default=60.0, help="the RRF constant k (default 60)")
    parser.add_argument("--weights", type=_weights, default=None, metavar="W1,W2,...",
                        help="one weight per run (default 1 each)")
    parser.add_argument("--to-trec", action="store_true", help="write a TREC run file whatever -o is called")
    parser.add_argument("--tag", default="rrf", help="the run tag (TREC) or system name (JSONL); default rrf")
    parser.add_argument("--depth", type=option_type(DEPTH), default=None, metavar="N", help="keep each topic's top N only")
    parser.set_defaults(handler=cmd_fuse)
    return parser


@dataclass
class _Run:
    """One run as rankings, with what a genevals file says of each topic and document (for JSONL output)."""

    rankings: Mapping[str, list[str]] = field(default_factory=dict)
    topics: dict[str, dict[str, Any]] = field(default_factory=dict)
    contexts: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


def _read_genevals(path: str, errors: list) -> _Run:
    from genevals.input.readers import InputError, iter_samples

    run, systems = _Run(), {}
    for item in iter_samples(path):
        if isinstance(item, InputError):
            errors.append(item)
            continue
        systems.setdefault(item.system, item.origin)
        if len(systems) > 1:
            errors.append(InputError(path, None, "system", f"holds more than one system ({', '.join(systems)}): "
                                                           "a run is one system's ranking; split the file by system"))
            return run
        keys = []
        for context in sorted(item.contexts, key=lambda c: c.rank):
            key = context.id if context.id is not None else context.doc_id
            if key is None:
                errors.append(InputError(path, int(item.origin.rpartition(":")[2]),
                                         f"contexts[{context.rank - 1}]", "a context needs an id or a doc_id to be "
                                                                          "fused (runs are matched by id)"))
                break
            keys.append(key)
            info = {"id": context.id, "doc_id": context.doc_id, "text": context.text}
            run.contexts.setdefault((item.id, key), {k: v for k, v in info.items() if v not in (None, "")})
        run.rankings[item.id] = keys
        run.topics.setdefault(item.id, {"question": item.question, "references": list(item.references),
                                        "relevant": None if item.relevant is None else dict(item.relevant)})
    return run


class _Ids(Mapping):
    """A TREC run's rankings as document ids, each topic's made when fusion comes to it: the run stays in the
    columns it was read into (:mod:`genevals.input.trec`)."""

    def __init__(self, rankings: Mapping[str, list[tuple[str, float]]]) -> None:
        self._rankings = rankings

    def __getitem__(self, topic: str) -> list[str]:
        return [doc for doc, _ in self._rankings[topic]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rankings)

    def __len__(self) -> int:
        return len(self._rankings)


def _read_trec(path: str, errors: list) -> _Run:
    from genevals.input.trec import read_run

    found = read_run(path, what="RUN")
    errors.extend(found.errors)
    return _Run(_Ids(found.rankings))


def read(path: str, errors: list) -> _Run:
    """A run file as rankings; its problems appended to ``errors``."""
    if is_row_file(path):
        return _read_genevals(path, errors)
    return _read_trec(path, errors)


def write_jsonl(path: Path, fused: Iterable[tuple[str, list[tuple[str, float]]]], runs: list[_Run],
                tag: str) -> None:
    """genevals rows: the fused contexts (id, text and doc_id from the first run that has the document; the RRF
    score), and the question, references and labels from the first run that has the topic; no answer."""
    with open(path, "w", encoding="utf-8") as out:
        for topic, ranking in fused:
            about = next((r.topics[topic] for r in runs if topic in r.topics), {})
            contexts = []
            for doc, score in ranking:
                info = next((r.contexts[(topic, doc)] for r in runs if (topic, doc) in r.contexts), {"id": doc})
                contexts.append({**info, "score": score})
            row = {"id": topic, "system": tag, "answer": "", **about, "contexts": contexts}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


@contextmanager
def replaced(out: Path) -> Iterator[Path]:
    """A new file beside ``out`` to write, renamed over ``out`` once it is complete: a fusion that fails halfway
    (a full disk) leaves an earlier ``out`` as it was. A path that exists and is not a file (the input checks
    refuse devices and FIFOs) is written where it is."""
    target = Path(os.path.realpath(out))
    if target.exists() and not target.is_file():
        yield out
        return
    part = target.with_name(f".{os.getpid()}.genevals-fuse.part")
    try:
        yield part
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)


def cmd_fuse(args: argparse.Namespace) -> int:
    from genevals.files import clobber_refusal, output_refusal
    from genevals.input.readers import InputError
    from genevals.input.trec import tag_problem, write_run
    from genevals.metrics.retrieval.fusion import check, rrf_topics

    def fail(message: str) -> int:
        say(f"genevals: error: {message}")
        return EXIT_BAD_INPUT

    out = Path(args.out)
    suffix = out.suffix.lower()
    to_trec = args.to_trec or suffix in TREC_SUFFIXES
    if not to_trec and suffix not in (".jsonl", ".ndjson"):
        return fail(f"-o {shown(args.out)}: name a .jsonl file (genevals rows) or a .trec/.run/.txt file (a TREC "
                    "run), or give --to-trec")
    problem = output_refusal(out)  # a pipe would block the write, a device swallow it: said before any reading
    if problem is not None:
        return fail(f"-o {shown(args.out)}: {problem}")
    problem = clobber_refusal(out, [("the run", run) for run in args.runs])
    if problem is not None:
        return fail(f"-o {shown(args.out)} {problem}")
    problem = tag_problem(args.tag)
    if problem is not None:
        return fail(f"--tag: {problem}")
    try:
        check(args.k, args.weights, len(args.runs))
    except ValueError as exc:
        return fail(f"--weights: {exc}" if args.weights is not None else f"--k: {exc}")
    errors: list[InputError] = []
    runs: list[_Run] = []
    try:
        for path in args.runs:
            runs.append(read(path, errors))
    except InputError as exc:  # a file that cannot be read at all
        return fail(str(exc))
    if errors:
        for error in errors[:SHOWN_ERRORS]:
            say(f"genevals: error: {error}")
        if len(errors) > SHOWN_ERRORS:
            say(f"genevals: error: ... and {len(errors) - SHOWN_ERRORS} more")
        return EXIT_BAD_INPUT
    empty = [path for path, run in zip(args.runs, runs) if not run.rankings]
    if empty:
        return fail(f"{empty[0]}: no topics (the run is empty)")
    counts = [0, 0]  # topics and documents written

    def fused() -> Iterator[tuple[str, list[tuple[str, float]]]]:  # written as fused, a topic at a time
        for topic, ranking in rrf_topics([r.rankings for r in runs], args.k, args.weights):
            ranking = ranking if args.depth is None else ranking[:args.depth]
            counts[0], counts[1] = counts[0] + 1, counts[1] + len(ranking)
            yield topic, ranking

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with replaced(out) as path:
            if to_trec:
                write_run(path, fused(), args.tag)
            else:
                write_jsonl(path, fused(), runs, args.tag)
    except OSError as exc:
        return fail(f"-o {shown(args.out)}: {exc.strerror or exc}")
    say(f"fused {len(runs)} runs (k={args.k:g}): {counts[0]} topics, {counts[1]} documents -> {shown(str(out))}",
        sys.stdout)
    return EXIT_OK
