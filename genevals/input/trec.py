"""TREC files, read and written here only: ``qrels`` (``TOPIC ITERATION DOCNO RELEVANCE``) and ``run`` files
(``TOPIC Q0 DOCNO RANK SCORE TAG``), the formats of trec_eval (https://github.com/usnistgov/trec_eval, README).

A run's order is trec_eval's: each topic's documents sorted by score, descending, ties broken by document id in
descending byte order (trec_eval's ``form_res_rels.c``); the RANK column is ignored, as trec_eval ignores it. So
a run file evaluates the same in genevals as in trec_eval, and a run genevals writes (ranks 1..n in that order,
scores written exactly) reads back in the order it was written.

A file is held as columns (:class:`_Table`: a few dozen bytes a line), not as Python objects per line (some 200
bytes): a topic's ranking or judgements become Python objects only when that topic is asked for, one at a time.

:class:`TrecSource` is the reader kind of ``genevals run --qrels QRELS --run RUN ...``: each topic of each run is
one sample (``id`` the topic, ``system`` the run file's name without its extension, ``contexts`` the ranked
document ids with their scores, ``relevant`` the topic's judgements; no question or answer), validated as every
row is. Topics judged in the qrels but absent from a run get no sample, and a topic without judgements is
unscored (``no_relevance_labels``): trec_eval's averages (without ``-c``) are over the same topics.
"""
from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Sequence

import numpy as np

from genevals.input.rows import MAX_GRADE, MIN_GRADE, InputError, RawRow
from genevals.input.source import RowSource, open_file

#: a ranking: (document id, score) pairs, best first
Ranking = list[tuple[str, float]]
#: a line longer than this is refused unread (read past in pieces, never held whole): no TREC line comes near it
MAX_LINE = 1 << 20
#: located errors kept per file; the rest are counted in one more (a file of garbage is not a million messages)
MAX_ERRORS = 1000
#: characters of a token quoted in a message
SHOWN = 40


def trec_order(docs: Iterable[tuple[str, float]]) -> Ranking:
    """``docs`` in trec_eval's order: score descending, ties by document id descending (byte order)."""
    ranked = sorted(docs, key=lambda d: d[0].encode(), reverse=True)
    ranked.sort(key=lambda d: -d[1])  # stable: equal scores keep the id order
    return ranked


def quoted(text: str) -> str:
    """A token for a message: quoted with control characters escaped (``repr``), cut to :data:`SHOWN`."""
    return repr(text[:SHOWN]) + ("..." if len(text) > SHOWN else "")


class _Errors(list):
    """A file's located errors, the first :data:`MAX_ERRORS` of them, then one saying how many more."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source, self.more = source, 0

    def add(self, line: int | None, field: str | None, message: str) -> None:
        if len(self) < MAX_ERRORS:
            self.append(InputError(self.source, line, field, message))
        else:
            self.more += 1

    def done(self) -> list[InputError]:
        found = sorted(self, key=lambda e: e.line or 0)
        if self.more:
            found.append(InputError(self.source, None, None, f"... and {self.more} more bad lines (the first "
                                                              f"{MAX_ERRORS} are listed)"))
        return found


class _Table:
    """A TREC file's good lines as columns: each line's topic (an index into ``topics``, where each topic id is
    held once), document id (UTF-8, each followed by a newline, end to end in one buffer: no id holds a
    newline), its hash (runs: to find a document listed twice), number (score or grade) and line number. Once
    read, :meth:`index` groups the lines by topic; :meth:`rows` gives one topic's."""

    def __init__(self, hashed: bool) -> None:
        self.topics: dict[str, int] = {}
        self.topic, self.value, self.line, self.hash = array("i"), array("d"), array("q"), array("q")
        self.docs: bytes | bytearray = bytearray()
        self.hashed = hashed

    def extend(self, topics: list[str], docs: list[str], values: list[float], lines: list[int]) -> None:
        """Lines added a block at a time: the per-line work stays in C."""
        index = self.topics
        self.topic.fromlist([index.setdefault(t, len(index)) for t in topics])
        self.value.fromlist(values)
        self.line.fromlist(lines)
        if self.hashed:
            self.hash.fromlist(list(map(hash, docs)))
        if docs:
            self.docs += ("\n".join(docs) + "\n").encode()

    def index(self) -> list[int]:
        """Group the lines by topic, leaving out those that repeat an earlier line's topic and document (runs);
        return the lines left out (indexes)."""
        self.docs = bytes(self.docs)
        # where each id ends, after a -1 for the first to start at 0: line i's id is docs[ends[i] + 1:ends[i + 1]]
        self.ends = array("q", [-1])
        self.ends.frombytes(np.flatnonzero(np.frombuffer(self.docs, dtype=np.uint8) == 10).tobytes())
        topic = np.frombuffer(self.topic, dtype=np.int32)
        repeated = self._repeated(topic) if self.hashed and len(topic) else []
        order = np.argsort(topic, kind="stable")
        counts = np.bincount(topic, minlength=len(self.topics))
        if repeated:
            keep = np.ones(len(topic), dtype=bool)
            keep[repeated] = False
            order = order[keep[order]]
            counts -= np.bincount(topic[repeated], minlength=len(self.topics))
        self.order, self.starts = order, np.concatenate(([0], np.cumsum(counts)))
        return repeated

    def _repeated(self, topic: np.ndarray) -> list[int]:
        # lines of equal (topic, hash) lie side by side, in file order; their ids are compared (hashes collide)
        hashes = np.frombuffer(self.hash, dtype=np.int64)
        order = np.lexsort((hashes, topic))
        same = np.flatnonzero((topic[order[1:]] == topic[order[:-1]]) & (hashes[order[1:]] == hashes[order[:-1]]))
        repeated, seen, previous = [], set(), -2
        for at in same.tolist():
            if at != previous + 1:  # a new run of equal keys
                seen = {self.doc(int(order[at]))}
            row = int(order[at + 1])
            if self.doc(row) in seen:
                repeated.append(row)
            else:
                seen.add(self.doc(row))
            previous = at
        return sorted(repeated)

    def doc(self, row: int) -> bytes:
        """Line ``row``'s document id, as UTF-8."""
        return self.docs[self.ends[row] + 1:self.ends[row + 1]]

    def rows(self, topic: str) -> list[int]:
        """``topic``'s lines (indexes, in file order)."""
        at = self.topics[topic]
        return self.order[self.starts[at]:self.starts[at + 1]].tolist()


#: bytes read at a time (no more than MAX_LINE: then only a block's first line can run past MAX_LINE)
BLOCK = 1 << 18
BOM = b"\xef\xbb\xbf"


def _blocks(handle: BinaryIO, digest: Any) -> Iterator[list[bytes | None]]:
    """The file's lines (without their newline), a block at a time, each block fed to ``digest`` as it is read;
    a line longer than :data:`MAX_LINE` is None (read past, never held whole: one line of a gigabyte)."""
    rest, long, first = b"", False, True
    while True:
        block = handle.read(BLOCK)
        if not block:
            if long or rest:
                yield [None if long else rest]
            return
        if digest is not None:
            digest.update(block)
        if first:  # a byte order mark before the first line is not part of it (utf-8-sig)
            block, first = block.removeprefix(BOM), False
        if long:  # the rest of a line too long to keep, up to its newline
            cut = block.find(b"\n")
            if cut < 0:
                continue
            yield [None]
            block, long = block[cut + 1:], False
        lines = (rest + block).split(b"\n") if rest else block.split(b"\n")
        rest = lines.pop()
        if lines and len(lines[0]) > MAX_LINE:
            lines[0] = None
        if len(rest) > MAX_LINE:
            rest, long = b"", True
        yield lines


def _read(path: str | Path, digest: Any, what: str, layout: str, number: int,
          check: Callable[[float], str | None] | None, table: _Table,
          comments: bool = False) -> tuple[_Table, list[str], _Errors]:
    """The lines of ``layout``'s columns (TOPIC first, DOCNO third) whose number (column ``number``) is finite
    and passes ``check`` (a message for a value refused, else None), added to ``table``; with the last column's
    distinct values (the first 100) and the other lines' errors, located. Blank lines are skipped, and with
    ``comments`` lines starting with ``#`` (the provenance header ``genevals label`` writes in a qrels file)."""
    source, names = str(path), layout.split()
    n = len(names)
    errors, last = _Errors(source), {}
    line = 0
    with open_file(path, what) as handle:
        for block in _blocks(handle, digest):
            topics, docs, values, lines = [], [], [], []
            topic, doc, value_of, line_of = topics.append, docs.append, values.append, lines.append
            for raw in block:
                line += 1
                if raw is None:
                    errors.add(line, None, f"the line is longer than {MAX_LINE} bytes")
                    continue
                try:
                    text = raw.decode()
                except UnicodeDecodeError as exc:
                    errors.add(line, None, f"invalid UTF-8 at byte {exc.start}")
                    continue
                if comments and text.lstrip()[:1] == "#":
                    continue
                fields = text.split(None, n)  # at most n + 1 parts: a line of a million words is not split whole
                if len(fields) != n:
                    if fields:
                        got = len(text.split()) if len(fields) < n or len(text) <= 4096 else f"more than {n}"
                        errors.add(line, None, f"expected {n} columns ({layout}), got {got}")
                    continue
                cell = fields[number]
                try:
                    value = float(cell)
                except ValueError:
                    errors.add(line, names[number], f"expected a number, got {quoted(cell)}")
                    continue
                if value - value != 0.0:  # NaN or an infinity
                    errors.add(line, names[number], f"expected a finite number, got {quoted(cell)}")
                    continue
                if check is not None:
                    problem = check(value)
                    if problem is not None:
                        errors.add(line, names[number], problem)
                        continue
                topic(fields[0])
                doc(fields[2])
                value_of(value)
                line_of(line)
                if len(last) < 100:
                    last.setdefault(fields[-1])
            table.extend(topics, docs, values, lines)
    return table, list(last), errors


QRELS_LAYOUT = "TOPIC ITERATION DOCNO RELEVANCE"
RUN_LAYOUT = "TOPIC Q0 DOCNO RANK SCORE TAG"


def _grade(grade: float) -> str | None:
    # checked here, where the line is known: the rows of a TREC run are located at the run's lines
    if MIN_GRADE <= grade <= MAX_GRADE:
        return None
    return f"relevance grade {grade:g} is outside the supported range [{MIN_GRADE:g}, {MAX_GRADE:g}]"


class Qrels(Mapping):
    """topic -> {document id: relevance}, each topic's judgements made when asked for; a document judged twice
    for one topic has its last grade."""

    def __init__(self, table: _Table) -> None:
        self._table = table
        table.index()

    def __getitem__(self, topic: str) -> dict[str, float]:
        table = self._table
        grades, data, ends = table.value, table.docs, table.ends
        return {data[ends[i] + 1:ends[i + 1]].decode(): grades[i] for i in table.rows(topic)}

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.topics)

    def __len__(self) -> int:
        return len(self._table.topics)


def read_qrels(path: str | Path, digest: Any = None) -> tuple[Qrels, list[InputError]]:
    """topic -> {document id: relevance} and the bad lines (each located)."""
    table, _, errors = _read(path, digest, "--qrels", QRELS_LAYOUT, 3, _grade, _Table(hashed=False),
                             comments=True)
    return Qrels(table), errors.done()


class Rankings(Mapping):
    """topic -> its :data:`Ranking` in trec_eval's order, made when asked for (a run is held as columns)."""

    def __init__(self, table: _Table) -> None:
        self._table = table

    def __getitem__(self, topic: str) -> Ranking:
        table = self._table
        scores, data, ends = table.value, table.docs, table.ends
        # ids are unique in a topic: pairs sort by id alone; then by score, stable: ties keep the id order
        docs = sorted([(data[ends[i] + 1:ends[i + 1]], scores[i]) for i in table.rows(topic)], reverse=True)
        docs.sort(key=itemgetter(1), reverse=True)
        return [(doc.decode(), score) for doc, score in docs]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.topics)

    def __len__(self) -> int:
        return len(self._table.topics)


class FirstLines(Mapping):
    """topic -> the line its first document is on."""

    def __init__(self, table: _Table) -> None:
        self._table = table

    def __getitem__(self, topic: str) -> int:
        table = self._table
        return table.line[int(table.order[table.starts[table.topics[topic]]])]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.topics)

    def __len__(self) -> int:
        return len(self._table.topics)


@dataclass
class Run:
    """A run file as read: each topic's ranking in trec_eval's order, the line each topic starts on, its tags."""

    rankings: Mapping[str, Ranking]
    first_line: Mapping[str, int]
    tags: list[str]
    errors: list[InputError]


def read_run(path: str | Path, digest: Any = None, what: str = "--run") -> Run:
    """A TREC run file; a line that is not six columns with a numeric score, or a document listed twice for one
    topic (trec_eval refuses it too), is an error naming its line."""
    table, tags, errors = _read(path, digest, what, RUN_LAYOUT, 4, None, _Table(hashed=True))
    repeated = table.index()
    topics = list(table.topics) if repeated else []
    for row in repeated:
        errors.add(table.line[row], "DOCNO", f"document {quoted(table.doc(row).decode())} is listed twice for "
                                             f"topic {quoted(topics[table.topic[row]])}")
    return Run(Rankings(table), FirstLines(table), tags, errors.done())


def format_score(score: float) -> str:
    """A score as written: exactly (``repr``), so a run read back has the same scores and so the same order."""
    return repr(float(score))


def tag_problem(tag: str) -> str | None:
    """Why ``tag`` cannot be a run tag (one printable word, no spaces), or None."""
    if not tag or not tag.isprintable() or any(c.isspace() for c in tag):
        return f"a run tag is one printable word without spaces, got {quoted(tag)}"
    return None


def write_run(path: str | Path, rankings: Mapping[str, Sequence[tuple[str, float]]]
              | Iterable[tuple[str, Sequence[tuple[str, float]]]], tag: str) -> None:
    """A TREC run file, each topic's ranking in the order given, ranked 1..n (the order must be trec_eval's for
    the file to read back the same: :func:`trec_order`); ``rankings`` a mapping or (topic, ranking) pairs."""
    problem = tag_problem(tag)
    if problem is not None:
        raise InputError("--tag", None, None, problem)
    with open(path, "w", encoding="utf-8") as out:
        for topic, ranking in rankings.items() if isinstance(rankings, Mapping) else rankings:
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
        if not qrels and not errors:
            raise InputError(str(self.qrels), None, None, "--qrels: no judgements (the file is empty or blank)")
        yield from errors
        for path, system in zip(self.runs, systems):
            run = read_run(path, digest)
            if not run.rankings and not run.errors:
                raise InputError(str(path), None, None, "--run: no topics (the file is empty or blank)")
            yield from run.errors
            for topic, ranking in run.rankings.items():
                contexts = [{"id": doc, "score": score} for doc, score in ranking]
                yield RawRow(str(path), run.first_line[topic], {"id": topic, "system": system, "answer": "",
                                                                "contexts": contexts, "relevant": qrels.get(topic)})
