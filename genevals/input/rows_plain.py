"""The plain-shape checks of :mod:`genevals.input.rows_columns`, made over a block of rows at once.

:meth:`rows_columns._RowReader.add` checks one row in Python, ~20 calls per context; here every check runs
over whole lists in C (``map``, ``set``, ``str.join``, ``numpy``), with one Python step per row at most. The block is
accepted only in the common case: rows that come from JSON with no ``\\uD8xx`` escape in the file's text (so no
string holds a lone surrogate, and a string is text exactly when its type is ``str``), the same few field names,
ids that are strings or small integers, grades that are numbers. Anything else, a row that would be plain included,
returns None and the caller checks the block row by row with ``add``: this module only ever accepts what ``add``
accepts, with the same values, and never decides that a row is not plain.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate, chain, repeat
from operator import itemgetter
from typing import Any, Callable

import numpy as np

from genevals.input.rows import MAX_GRADE, MIN_GRADE

#: ids the per-sample reader writes as they are (as rows_columns._MAX_INT_ID)
MAX_INT_ID = 10**18
_ID = itemgetter("id")
_NAN = float("nan")
_EMPTY: dict = {}


@dataclass
class PlainBlock:
    """A block's rows as :class:`rows_columns._RowReader` keeps them: per row its id, line, question, answer,
    number of contexts and labels; per context its id, grade and whether it is judged."""

    ids: list[str]
    lines: list[int]
    questions: list[str]
    answers: list[str]
    system: str
    docs: tuple[bytes, np.ndarray]
    lengths: list[int]
    grades: np.ndarray
    judged: np.ndarray
    labels: list


class Plans:
    """Per set of field names (in row order), the column each plain field comes from, or None when rows with
    those names are not plain whatever their values; made once per set by ``rename`` (RowValidator._rename)."""

    def __init__(self, rename: Callable[[dict], tuple[dict, dict]], plain: frozenset, id_column: str | None):
        self.rename, self.plain, self.id_column = rename, plain, id_column
        self.known: dict[tuple, dict[str, str] | None] = {}

    def __getitem__(self, names: tuple) -> dict[str, str] | None:
        if names not in self.known:
            self.known[names] = self._plan(names)
        return self.known[names]

    def _plan(self, names: tuple) -> dict[str, str] | None:
        if not all(type(k) is str and k.isascii() for k in names):
            return None
        data, columns = self.rename(dict.fromkeys(names))
        used = set(columns.values())
        if self.id_column is not None:
            if "contexts" in data or self.id_column not in names:
                return None
            used.add(self.id_column)
            columns = {**columns, "contexts": self.id_column}
        if len(used) != len(names) or not set(data) <= self.plain:
            return None
        return columns


def plain_block(rows: list, lines: list[int], plans: Plans, mapped_ids: bool) -> PlainBlock | None:
    """The block as plain rows, or None when any row is not certainly plain (see the module's docstring).
    ``rows``: the JSON values of the block's lines ``lines``; ``mapped_ids``: contexts come as a list of ids."""
    try:
        return _block(rows, lines, plans, mapped_ids)
    except (TypeError, KeyError, ValueError, OverflowError):  # a value of another type than the usual
        return None


def _block(rows: list, lines: list[int], plans: Plans, mapped_ids: bool) -> PlainBlock | None:
    if not rows or set(map(type, rows)) != {dict}:
        return None
    column = _columns(rows, plans)
    if column is None:
        return None
    contexts = column("contexts")
    if set(map(type, contexts)) != {list}:
        return None
    lengths = list(map(len, contexts))
    if 0 in lengths:
        return None
    # each context {"id": ...} alone: _ID raises TypeError for a non-object, KeyError without "id"
    per_row = contexts if mapped_ids else [list(map(_ID, c)) for c in contexts]
    if not mapped_ids and sum(map(len, chain.from_iterable(contexts))) != sum(lengths):
        return None
    ids = list(chain.from_iterable(per_row))
    docs = encoded(ids)  # TypeError unless every id is a string
    if list(map(len, map(set, per_row))) != lengths:  # an id listed twice
        return None
    answers = column("answer")
    "".join(answers)  # TypeError unless every one is a string
    questions = [q if q is not None else "" for q in column("question")]
    "".join(questions)
    systems = {s if s is not None and s != "" else "default" for s in column("system")}
    if len(systems) != 1:
        return None
    system = systems.pop()
    "".join([system])
    sample_ids = [_sample_id(v, line) for v, line in zip(column("id"), lines)]
    "".join(sample_ids)  # TypeError where _sample_id found none (None)
    got = _labels(column("relevant"), ids, lengths)
    if got is None:
        return None
    grades, judged, labels = got
    return PlainBlock(sample_ids, list(lines), questions, answers, system, docs, lengths, grades, judged, labels)


def _columns(rows: list, plans: Plans) -> Callable[[str], list] | None:
    """A field's values, one per row (None where the row lacks it), whichever column it comes from; None when
    a row's field names are not plain."""
    plan = plans[tuple(rows[0])]
    if plan is None:
        return None
    if set(map(len, rows)) == {len(rows[0])}:  # then every row has the first one's names if it has its columns
        def same(field: str) -> list:
            source = plan.get(field)
            return [None] * len(rows) if source is None else [r[source] for r in rows]  # KeyError: another
        return same
    names = list(map(tuple, rows))
    shapes = {shape: plans[shape] for shape in set(names)}
    if None in shapes.values():
        return None

    def column(field: str) -> list:
        of = {shape: plan.get(field) for shape, plan in shapes.items()}
        return [r.get(of[n]) for r, n in zip(rows, names)]
    return column


def encoded(texts: list[str]) -> tuple[bytes, np.ndarray]:
    """The strings as one UTF-8 buffer and each one's size in bytes, made while they are still in the CPU's cache;
    TypeError for an element that is not a string (None included)."""
    joined = "".join(texts)
    data = joined.encode("utf-8")  # no lone surrogate comes here: add refuses them, a Parsed block has no escape
    sizes = map(len, texts) if len(data) == len(joined) else map(len, map(str.encode, texts))  # ASCII: 1 byte each
    return data, np.fromiter(sizes, np.int64, len(texts))


def string_array(parts: list[tuple[bytes, np.ndarray]]):
    """``pa.array(texts, pa.string())`` of the :func:`encoded` parts' strings, from their buffers: ``pa.array``
    looks for pandas objects, which imports pandas (0.15 s, in a run that has no other use for it). (Nor is
    pyarrow.compute needed here, 0.03 s more to import: repeated ids are found by ``set`` while in cache.)"""
    import pyarrow as pa

    data = b"".join([d for d, _ in parts])
    offsets = np.zeros(sum(len(s) for _, s in parts) + 1, dtype=np.int64)
    np.cumsum(np.concatenate([s for _, s in parts]) if parts else offsets[1:], out=offsets[1:])
    if len(data) >= 2**31:  # past a string array's int32 offsets: as pa.array does it
        bounds = offsets.tolist()
        return pa.array([data[a:b].decode() for a, b in zip(bounds, bounds[1:])], pa.string())
    return pa.StringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data))


def _sample_id(value: Any, line: int) -> str | None:
    """The row's id as the per-sample reader writes it (its line when it has none); None for another type."""
    if value is None or value == "":
        return str(line)
    if type(value) is str:
        return value
    if type(value) is int and -MAX_INT_ID < value < MAX_INT_ID:
        return str(value)
    return None


def _labels(values: list, ids: list[str], lengths: list[int]):
    """Each context's grade and whether it is judged, and each row's labels (ids, grades), from ``relevant``:
    None (unjudged), a list of ids (grade 1) or a mapping id -> number within the grade range."""
    kinds = set(map(type, values))
    if not kinds <= {dict, list, type(None)}:
        return None
    if list in kinds:
        lists = [v for v in values if type(v) is list]
        "".join(chain.from_iterable(lists))
        values = [dict.fromkeys(v, 1.0) if type(v) is list else v for v in values]
    judged_rows = [v for v in values if v is not None]
    grades = list(chain.from_iterable(map(dict.values, judged_rows)))
    if not set(map(type, grades)) <= {int, float}:  # bool, None (skipped by add: rare, left to it), text
        return None
    flat = np.fromiter(grades, np.float64, len(grades))  # OverflowError for an integer past a float
    if len(flat) and not (flat.min() >= MIN_GRADE and flat.max() <= MAX_GRADE):  # NaN fails both
        return None
    # each context's grade: NaN where its row's mapping lacks it (a grade is never NaN here)
    mappings = chain.from_iterable(map(repeat, [_EMPTY if v is None else v for v in values], lengths))
    found = np.fromiter(map(dict.get, mappings, ids, repeat(_NAN)), np.float64, len(ids))
    judged = ~np.isnan(found)
    found[~judged] = 0.0
    ends = list(accumulate(map(len, judged_rows)))
    spans = iter(map(slice, [0, *ends], ends))
    labels = [None if v is None else (list(v), flat[next(spans)]) for v in values]
    return found, judged, labels
