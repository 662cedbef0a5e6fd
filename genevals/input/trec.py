"""TREC files, read and written here only: ``qrels`` (``TOPIC ITERATION DOCNO RELEVANCE``) and ``run`` files
(``TOPIC Q0 DOCNO RANK SCORE TAG``), the formats of trec_eval (https://github.com/usnistgov/trec_eval, README).

A run's order is trec_eval's: each topic's documents sorted by score, descending, ties broken by document id in
descending byte order (trec_eval's ``form_res_rels.c``); the RANK column is ignored, as trec_eval ignores it. So
a run file evaluates the same in genevals as in trec_eval, and a run genevals writes (ranks 1..n in that order,
scores written exactly) reads back in the order it was written.

:class:`TrecSource` is the reader kind of ``genevals run --qrels QRELS --run RUN ...``: each topic of each run is
one sample (``id`` the topic, ``system`` the run file's name without its extension, ``contexts`` the ranked
document ids with their scores, ``relevant`` the topic's judgements; no question or answer), validated as every
row is. Topics judged in the qrels but absent from a run get no sample, and a topic without judgements is
unscored (``no_relevance_labels``): trec_eval's averages (without ``-c``) are over the same topics.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from genevals.input.rows import InputError, RawRow
from genevals.input.source import RowSource, lines, open_file

#: a ranking: (document id, score) pairs, best first
Ranking = list[tuple[str, float]]


def trec_order(docs: Iterable[tuple[str, float]]) -> Ranking:
    """``docs`` in trec_eval's order: score descending, ties by document id descending (byte order)."""
    ranked = sorted(docs, key=lambda d: d[0].encode(), reverse=True)
    ranked.sort(key=lambda d: -d[1])  # stable: equal scores keep the id order
    return ranked


def _number(text: str, source: str, line: int, column: str) -> float | InputError:
    try:
        value = float(text)
    except ValueError:
        return InputError(source, line, column, f"expected a number, got {text[:40]!r}")
    if not math.isfinite(value):
        return InputError(source, line, column, f"expected a finite number, got {text[:40]!r}")
    return value


def _columns(path: str | Path, digest: Any, what: str, layout: str, number: int,
             errors: list[InputError]) -> Iterator[tuple[int, list[str], float]]:
    """(line, its columns, the number in column ``number``) for each line of ``layout``'s columns whose number is
    finite; blank lines are skipped, and every other line is a located error added to ``errors``."""
    source, names = str(path), layout.split()
    with open_file(path, what) as handle:
        for line, raw in lines(handle, digest):
            try:
                fields = raw.decode("utf-8-sig" if line == 1 else "utf-8").split()
            except UnicodeDecodeError as exc:
                errors.append(InputError(source, line, None, f"invalid UTF-8 at byte {exc.start}"))
                continue
            if not fields:
                continue
            if len(fields) != len(names):
                errors.append(InputError(source, line, None, f"expected {len(names)} columns ({layout}), got "
                                                             f"{len(fields)}"))
                continue
            value = _number(fields[number], source, line, names[number])
            if isinstance(value, InputError):
                errors.append(value)
                continue
            yield line, fields, value


QRELS_LAYOUT = "TOPIC ITERATION DOCNO RELEVANCE"
RUN_LAYOUT = "TOPIC Q0 DOCNO RANK SCORE TAG"


def read_qrels(path: str | Path, digest: Any = None) -> tuple[dict[str, dict[str, float]], list[InputError]]:
    """topic -> {document id: relevance} and the bad lines (each located)."""
    qrels: dict[str, dict[str, float]] = {}
    errors: list[InputError] = []
    for _, fields, grade in _columns(path, digest, "--qrels", QRELS_LAYOUT, 3, errors):
        qrels.setdefault(fields[0], {})[fields[2]] = grade
    return qrels, errors


@dataclass
class Run:
    """A run file as read: each topic's ranking in trec_eval's order, the line each topic starts on, its tags."""

    rankings: dict[str, Ranking]
    first_line: dict[str, int]
    tags: list[str]
    errors: list[InputError]


def read_run(path: str | Path, digest: Any = None, what: str = "--run") -> Run:
    """A TREC run file; a line that is not six columns with a numeric score, or a document listed twice for one
    topic (trec_eval refuses it too), is an error naming its line."""
    source = str(path)
    docs: dict[str, dict[str, float]] = {}
    first: dict[str, int] = {}
    tags: dict[str, None] = {}
    errors: list[InputError] = []
    for line, (topic, _, doc, _, _, tag), score in _columns(path, digest, what, RUN_LAYOUT, 4, errors):
        topic_docs = docs.setdefault(topic, {})
        if doc in topic_docs:
            errors.append(InputError(source, line, "DOCNO", f"document '{doc}' is listed twice for topic '{topic}'"))
            continue
        first.setdefault(topic, line)
        topic_docs[doc] = score
        tags.setdefault(tag)
    return Run({t: trec_order(d.items()) for t, d in docs.items()}, first, list(tags), errors)


def format_score(score: float) -> str:
    """A score as written: exactly (``repr``), so a run read back has the same scores and so the same order."""
    return repr(float(score))


def write_run(path: str | Path, rankings: Mapping[str, Sequence[tuple[str, float]]], tag: str) -> None:
    """A TREC run file, each topic's ranking in the order given, ranked 1..n (the order must be trec_eval's for
    the file to read back the same: :func:`trec_order`)."""
    if not tag or any(c.isspace() for c in tag):
        raise InputError("--tag", None, None, f"a run tag is one word without spaces, got {tag!r}")
    with open(path, "w", encoding="utf-8") as out:
        for topic, ranking in rankings.items():
            for rank, (doc, score) in enumerate(ranking, start=1):
                out.write(f"{topic} Q0 {doc} {rank} {format_score(score)} {tag}\n")


@dataclass(frozen=True)
class TrecSource(RowSource):
    """``genevals run --qrels QRELS --run RUN [--run RUN2 ...]``: one system per run file."""

    qrels: Path
    runs: tuple[Path, ...]

    @property
    def name(self) -> str:
        return f"{self.qrels} + " + ", ".join(str(r) for r in self.runs)

    def systems(self) -> list[str]:
        return [Path(r).stem for r in self.runs]

    def rows(self, digest: Any = None) -> Iterator[RawRow | InputError]:
        systems = self.systems()
        for index, system in enumerate(systems):
            if system in systems[:index]:
                first = self.runs[systems.index(system)]
                raise InputError(str(self.runs[index]), None, None, f"--run: this run's system name '{system}' "
                                 f"(its file name) is also that of {first}; rename one of the files")
        qrels, errors = read_qrels(self.qrels, digest)
        yield from errors
        for path, system in zip(self.runs, systems):
            run = read_run(path, digest)
            yield from run.errors
            for topic, ranking in run.rankings.items():
                contexts = [{"id": doc, "score": score} for doc, score in ranking]
                yield RawRow(str(path), run.first_line[topic], {"id": topic, "system": system, "answer": "",
                                                                "contexts": contexts, "relevant": qrels.get(topic)})
