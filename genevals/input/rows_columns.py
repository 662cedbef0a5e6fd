"""Retrieval-only row files (JSONL, CSV, Parquet) turned into the columnar retrieval path's columns
(:class:`genevals.input.trec_columns.TrecColumns`): each row is a query, its contexts' ids its ranking and its
``relevant`` its judgements, with no Sample, no Context and no per-sample result.

CSV and Parquet rows come from :func:`genevals.input.readers.read_raw`, the reader the per-sample path uses (the
same parsing, line numbers and file digest, fed as the rows are read), and are checked one by one (``add``). A JSONL
file is read in blocks of lines (:mod:`genevals.input.jsonl_blocks`: the same values, line numbers and digest as
``read_raw``), each block checked at once (:mod:`genevals.input.rows_plain`), or row by row with ``add`` where that
cannot say. :mod:`pyarrow.json` is not used because it makes a mapping such as ``relevant`` (other keys in each row)
a struct with a field for every key in the file.

Only rows in the plain shape take this way: an object holding answer (a string), optionally id, question, system
(one for the whole file), contexts (a non-empty list of ``{"id": ID}`` with distinct string ids, or a ``--map
contexts[].id=COLUMN`` list of ids) and relevant (a mapping id -> grade in range, or a list of ids), under
their names, an alias or a ``--map`` name, and nothing else. Anything else, a row the reader or the validator
would refuse, warn about or read another way included, raises :class:`NotPlain` and the caller runs the per-sample
path, whose errors and warnings name the file, line and field; so a file reads exactly as it did before this path.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from genevals import utf8
from genevals.input import jsonl_blocks, kinds, mapping, rows_plain
from genevals.input.readers import _rows, open_raw
from genevals.input.rows import MAX_GRADE, MIN_GRADE, InputError, RawRow, RowValidator
from genevals.input.trec_columns import TrecColumns

#: the fields a plain retrieval row may hold (after aliases and --map)
PLAIN = frozenset({"id", "question", "answer", "system", "contexts", "relevant"})
#: ids the per-sample reader writes as they are: a larger integer is checked there (its digits are limited)
_MAX_INT_ID = rows_plain.MAX_INT_ID


class NotPlain(Exception):
    """A row (or the file) this path does not take: the per-sample path reads it instead."""


@dataclass
class RowsRun:
    """A row file as one run: ``columns`` (topics: the rows' ids, first_line: their lines), each row's question
    and answer, the file's system and its name as the per-sample reader writes it in ``origin``."""

    columns: TrecColumns
    questions: list[str]
    answers: list[str]
    system: str
    source: str


def is_row_file(data: Any) -> bool:
    """Whether ``data`` names a file of a kind :func:`read_raw` reads."""
    return isinstance(data, (str, Path)) and str(data) != "" and kinds.is_row_file(data)


def read_rows_columns(path: str | Path, column_map: Mapping[str, str] | None, digest: Any) -> RowsRun:
    """The file's rows as columns, ``digest`` fed its bytes (as :func:`read_raw` feeds them); :class:`NotPlain`
    for a file the per-sample path reads instead. An InputError about the file as a whole (none, a folder)
    propagates: the per-sample path raises the same."""
    validator = RowValidator(column_map)  # its renaming (aliases, --map): one place says which column is which
    parts = validator.parts
    if set(parts) - {"id"}:
        raise NotPlain("contexts[] parts other than id")
    reader = _RowReader(validator, parts.get("id"))
    path, handle, kind = open_raw(path)
    try:
        if kind.name == "jsonl":  # in blocks of lines, each checked at once where it can be (rows_plain)
            with handle:
                for block in jsonl_blocks.blocks(str(path), handle, digest):
                    if isinstance(block, jsonl_blocks.Parsed):
                        reader.add_parsed(block, str(path))
                    else:
                        reader.add_all(block)
        else:
            reader.add_all(_rows(path, handle, kind, digest))
    except RecursionError:
        raise NotPlain("nested too deeply") from None
    if not reader.lines:
        raise NotPlain("no rows")
    return reader.run()


class _RowReader:
    def __init__(self, validator: RowValidator, id_column: str | None) -> None:
        self.validator, self.id_column = validator, id_column
        self.plans = rows_plain.Plans(validator._rename, PLAIN, id_column)
        self.ids: list[str] = []
        self.lines: list[int] = []
        self.questions: list[str] = []
        self.answers: list[str] = []
        self.lengths: list[int] = []
        self.docs: list[str] = []  # add's, since the last block
        self.grades: list[float] = []
        self.judged: list[bool] = []
        #: every context's id (rows_plain.encoded), grade and whether it is judged, block by block
        self.blocks: list[tuple[tuple[bytes, np.ndarray], np.ndarray, np.ndarray]] = []
        self.labels: list[tuple[list[str], np.ndarray] | None] = []
        self.system: str | None = None
        self.source = ""
        self.seen: set[str] = set()

    def add_all(self, rows: Iterable[RawRow | InputError]) -> None:
        for raw in rows:
            if isinstance(raw, InputError):
                raise NotPlain(str(raw))
            self.add(raw)

    def add_parsed(self, block: jsonl_blocks.Parsed, source: str) -> None:
        """A block of JSONL rows, checked at once (rows_plain) or, where that cannot say, row by row."""
        got = rows_plain.plain_block(block.values, block.lines, self.plans, self.id_column is not None)
        if got is None or got.system != (self.system or got.system) or len(set(got.ids)) != len(got.ids) \
                or not self.seen.isdisjoint(got.ids):
            self.add_all(RawRow(source, line, value) for line, value in zip(block.lines, block.values))
            return
        self._flush()
        self.system, self.source = got.system, source
        self.seen.update(got.ids)
        self.ids += got.ids
        self.lines += got.lines
        self.questions += got.questions
        self.answers += got.answers
        self.lengths += got.lengths
        self.blocks.append((got.docs, got.grades, got.judged))
        self.labels += got.labels

    def _flush(self) -> None:
        if self.docs:
            self.blocks.append((rows_plain.encoded(self.docs), np.asarray(self.grades, dtype=np.float64),
                                np.asarray(self.judged, dtype=bool)))
            self.docs, self.grades, self.judged = [], [], []

    def add(self, row: RawRow) -> None:
        raw = row.data
        if type(raw) is not dict or not all(type(k) is str and k.isascii() for k in raw):
            raise NotPlain("not an object with plain field names")
        data, columns = self.validator._rename(raw)
        used = set(columns.values())
        if self.id_column is not None:
            if "contexts" in data:
                raise NotPlain("contexts and contexts[].id")
            used.add(self.id_column)
            contexts = _cell(raw.get(self.id_column), row.text_cells)
            if type(contexts) is not list or not all(type(c) is str for c in contexts):
                raise NotPlain("mapped ids not a list of strings")
            ids = contexts
        else:
            contexts = _cell(data.get("contexts"), row.text_cells)
            if type(contexts) is not list:
                raise NotPlain("contexts not a list")
            ids = []
            for item in contexts:
                if type(item) is not dict or len(item) != 1 or type(item.get("id")) is not str:
                    raise NotPlain("a context other than {id}")
                ids.append(item["id"])
        if len(used) != len(raw) or not set(data) <= PLAIN:
            raise NotPlain("other fields")  # an unknown one is warned about, another known one is read
        if not ids or len(set(ids)) != len(ids) or not all(_text(i) for i in ids):
            raise NotPlain("no contexts, an id listed twice, or an odd id")
        answer, question = data.get("answer"), data.get("question")
        question = "" if mapping.is_missing(question) else question
        if not _text(answer) or not _text(question):
            raise NotPlain("answer or question")
        system = data.get("system")
        system = "default" if mapping.is_missing(system) or system == "" else system
        if not _text(system) or (self.system is not None and system != self.system):
            raise NotPlain("another system")
        self.system, self.source = system, row.source
        sample_id = data.get("id")
        if mapping.is_missing(sample_id) or sample_id == "":
            sample_id = str(row.line)
        elif type(sample_id) is int and -_MAX_INT_ID < sample_id < _MAX_INT_ID:
            sample_id = str(sample_id)
        elif not _text(sample_id):
            raise NotPlain("id")
        if sample_id in self.seen:
            raise NotPlain("a duplicate id")
        self.seen.add(sample_id)
        relevant = _relevant(_cell(data.get("relevant"), row.text_cells, labels=True))
        self.ids.append(sample_id)
        self.lines.append(row.line)
        self.questions.append(question)
        self.answers.append(answer)
        self.docs.extend(ids)
        self.lengths.append(len(ids))
        if relevant is None:
            self.grades.extend([0.0] * len(ids))
            self.judged.extend([False] * len(ids))
            self.labels.append(None)
        else:
            get = relevant.get
            self.grades.extend([get(i, 0.0) for i in ids])
            self.judged.extend([i in relevant for i in ids])
            self.labels.append((list(relevant), np.fromiter(relevant.values(), np.float64, len(relevant))))

    def run(self) -> RowsRun:
        self._flush()  # there is a block: a file with no rows is not plain
        docs = rows_plain.string_array([d for d, _, _ in self.blocks])
        starts = np.concatenate(([0], np.cumsum(np.asarray(self.lengths, dtype=np.int64))))
        grades, judged = (np.concatenate([block[k] for block in self.blocks]) for k in (1, 2))
        columns = TrecColumns(self.ids, starts, docs, np.zeros(len(docs)), grades, judged,
                              np.asarray(self.lines, dtype=np.int64), self.labels)
        return RowsRun(columns, self.questions, self.answers, self.system or "default", self.source)


def _text(value: Any) -> bool:
    """A string the per-sample reader takes as it is (no lone surrogate)."""
    return type(value) is str and (value.isascii() or utf8.bad_index(value) is None)


def _cell(value: Any, text_cells: bool, labels: bool = False) -> Any:
    """A CSV cell's list or mapping, read from JSON (a Python literal is noted in the per-sample path's warnings:
    not plain); other formats' values as they are. An empty cell of ``relevant`` is no labels."""
    if not text_cells or not isinstance(value, str):
        return value
    if labels and value == "":
        return None
    found = mapping.literal(value)
    if found is None or found[1]:
        raise NotPlain("a cell that is not a JSON list or mapping")
    return found[0]


def _relevant(value: Any) -> dict[str, float] | None:
    """``relevant`` as the per-sample reader keeps it (id -> float grade, in the row's order)."""
    if mapping.is_missing(value):
        return None
    if type(value) is list and value and all(isinstance(i, tuple) and len(i) == 2 for i in value):
        value = dict(value)  # a Parquet map<id, grade> column arrives as (key, grade) pairs (as values.relevant)
    if type(value) is list:
        if not all(_text(i) for i in value):
            raise NotPlain("relevant ids")
        return dict.fromkeys(value, 1.0)
    if type(value) is not dict:
        raise NotPlain("relevant")
    grades = {}
    for key, grade in value.items():
        if grade is None:  # a Parquet struct column's keys of other rows: skipped there too
            continue
        if not _text(key) or type(grade) not in (int, float) or not MIN_GRADE <= grade <= MAX_GRADE:
            raise NotPlain("a grade")
        grades[key] = float(grade)
    return grades
