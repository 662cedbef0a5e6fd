"""One row of input: the fields genevals knows, how a raw row is checked and turned into a ``Sample``
(:class:`RowValidator`), and what is wrong with it (:class:`InputError`, naming file, line and field).

The file formats that produce raw rows are :mod:`genevals.input.readers`'s.
"""
from __future__ import annotations

import math
import numbers
import sys
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from genevals import utf8

from genevals.input import mapping
from genevals.conversations.history import HISTORY_TOKENS
from genevals.input.fields import FieldTracker
from genevals.input.turn_fields import conversation_fields
from genevals.keys import sample_key_digest
from genevals.language import codes as language_codes
from genevals.settings import finite, is_number
from genevals.types import Context, Sample

# Column names that other tools use, mapped to ours. Ours win when both are present.
ALIASES: dict[str, str] = {
    # ragas
    "user_input": "question",
    "response": "answer",
    "retrieved_contexts": "contexts",
    "reference": "references",
    # DeepEval
    "input": "question",
    "actual_output": "answer",
    "retrieval_context": "contexts",
    "expected_output": "references",
    # common singular/plural variants
    "context": "contexts",
    "ground_truth": "references",
    "ground_truths": "references",
    "query": "question",
}
#: the fields a row may hold: those a mapping may fill, and how many earlier turns a conversation turn's history
#: left out (written beside the history in results.jsonl, read back from it)
KNOWN_FIELDS = mapping.FIELDS + ("history_dropped",)
#: the keys of a per-claim citation object: its text, and the contexts it cites
CITATION_TEXT_KEYS = ("text", "sentence", "claim")
CITATION_REF_KEYS = ("contexts", "citations", "sources", "ids")
#: relevance grades beyond these are refused: exponential gain (2^g) overflows long before 1024, and no
#: judging scale comes near them
MIN_GRADE, MAX_GRADE = -100.0, 100.0


class InputError(ValueError):
    """Bad input, located. ``str()`` reads ``file:line: field 'x': message``."""

    def __init__(self, source: str, line: int | None, field: str | None, message: str):
        self.source, self.line, self.field, self.message = source, line, field, message
        where = source if line is None else f"{source}:{line}"
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")


@dataclass(frozen=True)
class RawRow:
    source: str
    line: int
    data: Any
    # CSV cells are all text, so lists and mappings arrive as JSON text; other formats keep their types,
    # and a JSONL string that happens to look like JSON stays a string.
    text_cells: bool = False
    #: where a trace import found the row: (trace id, span id or None), both hex; None for any other input
    trace: tuple[str, str | None] | None = None
    #: where a conversation's turn is in its row (``turns[3]``): errors about the turn name it
    turn: str | None = None


_is_missing = mapping.is_missing


def _as_list(value: Any) -> Any:
    # numpy arrays (from Parquet or pandas) behave like lists here.
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    return value


def _check_unicode(value: Any, field: str, err) -> None:
    """A lone surrogate (JSON "\\ud800") cannot be written as UTF-8: reject it here, not mid-run."""
    if isinstance(value, str) and not value.isascii():  # isascii is O(1)-fast in C: no surrogate there
        index = utf8.bad_index(value)
        if index is not None:
            raise err(field, f"invalid Unicode: lone surrogate at character {index}")


def _check_names(data: Mapping[str, Any], err) -> None:
    """Field names end up in warnings and summary.json: one that cannot be written as UTF-8 is refused too."""
    for name in data:
        if type(name) is str and not name.isascii() and utf8.bad_index(name) is not None:
            raise err(None, f"invalid Unicode: lone surrogate in the field name '{utf8.shown(name)}'")


_ABSENT = object()
_MAX_DOUBLE = sys.float_info.max
#: integer ids of more than 1,000 digits are refused: no id scheme needs them, and past 4,300 digits Python
#: cannot even write one as a string
_MAX_ID = 10**1000


def _shown_number(value: Any) -> str:
    """A number for an error message: a huge integer as its size (str() of a 5,000-digit int is itself an
    error, and 400 digits help nobody)."""
    if isinstance(value, numbers.Integral) and not -10**20 < value < 10**20:
        return f"an integer of about {int(int(value).bit_length() * 0.30103) + 1} digits"
    return repr(value)


def _context_score(score: Any, rank: int, err) -> float | int:
    """A context's retriever score as a Python number; NaN, infinities and integers past a double's range are
    refused: results.jsonl is strict JSON and has no token for the first, and the report reads the last as
    infinite."""
    if not is_number(score):
        raise err(f"contexts[{rank - 1}].score", f"expected a number, got {type(score).__name__}")
    score = int(score) if isinstance(score, numbers.Integral) else float(score)
    if not finite(score):
        raise err(f"contexts[{rank - 1}].score", f"expected a finite number, got {_shown_number(score)}")
    return score


def _context_id(raw: Any, rank: int, name: str, err) -> str:
    """A context's ``id`` or ``doc_id`` (not None) as a string: integers are written as strings."""
    if type(raw) is str:
        if not raw.isascii():
            _check_unicode(raw, f"contexts[{rank - 1}].{name}", err)
        return raw
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise err(f"contexts[{rank - 1}].{name}", f"expected a string, got {type(raw).__name__}")
    _check_unicode(raw, f"contexts[{rank - 1}].{name}", err)
    if not isinstance(raw, str) and not -_MAX_ID < raw < _MAX_ID:
        raise err(f"contexts[{rank - 1}].{name}", f"expected at most 1,000 digits, got {_shown_number(raw)}")
    return str(raw)


def _preview(text: str, width: int = 40) -> str:
    """``'[a, b'`` for an error: the start of a cell, quoted."""
    return repr(text if len(text) <= width else text[:width] + "...")


def _number(value: Any, rank: int, err) -> Any:
    """A CSV cell's context score as a number (the score checks follow); None stays None."""
    if not isinstance(value, str):
        return value
    try:
        return float(value)
    except ValueError:
        raise err(f"contexts[{rank - 1}].score", f"expected a number, got {_preview(value)}") from None


class RowValidator:
    """Turns raw rows into Samples; remembers (system, id) pairs to catch duplicates.

    A pair is remembered as a 64-bit BLAKE2b digest with its line number, not as strings, so a
    100,000-row file costs a few MB here (two different pairs share a digest with odds near 2^-64/pair).
    """

    def __init__(self, column_map: Mapping[str, str] | None = None, tracker: FieldTracker | None = None,
                 history_tokens: int = HISTORY_TOKENS.default):
        self.column_map = dict(column_map or {})
        self.history_tokens = history_tokens
        self.fields = {target: column for target, column in self.column_map.items() if target in KNOWN_FIELDS}
        #: ``contexts[].PART`` targets: part -> column
        self.parts = mapping.parts(self.column_map)
        self.tracker = tracker
        self.seen: dict[int, int | str] = {}
        self._source: str | None = None

    def _origin_of(self, seen: int | str) -> str:
        return seen if isinstance(seen, str) else f"{self._source}:{seen}"

    def __call__(self, row: RawRow) -> Sample:
        err = lambda field, msg: InputError(row.source, row.line, field, msg)  # noqa: E731
        if row.turn is not None:
            err = lambda field, msg: InputError(row.source, row.line, f"{row.turn}.{field}" if field  # noqa: E731
                                                else row.turn, msg)
        if not isinstance(row.data, Mapping):
            raise err(None, f"expected an object per row, got {type(row.data).__name__}")
        _check_names(row.data, err)
        if self.tracker is not None:
            self.tracker.see(f"{row.source}:{row.line}", row.data)
        data, columns = self._rename(row.data)
        if row.text_cells:
            decode = lambda value, name: self._cell(value, name, columns.get(name, name), row, err)  # noqa: E731
        else:
            decode = lambda value, name: value  # noqa: E731
        for name in ("answer", "question", "system", "id", "language"):
            _check_unicode(data.get(name), name, err)

        answer = data.get("answer")
        if _is_missing(answer):
            hint = (self.tracker or FieldTracker(KNOWN_FIELDS, ALIASES, self.column_map)).hint("answer", row.data)
            raise err("answer", f"missing answer{hint}")
        if not isinstance(answer, str):
            raise err("answer", f"expected a string, got {type(answer).__name__}")

        question = data.get("question")
        question = "" if _is_missing(question) else question
        if not isinstance(question, str):
            raise err("question", f"expected a string, got {type(question).__name__}")

        system = data.get("system")
        system = "default" if _is_missing(system) or system == "" else system
        if not isinstance(system, str):
            raise err("system", f"expected a string, got {type(system).__name__}")

        sample_id = data.get("id")
        if _is_missing(sample_id) or sample_id == "":
            sample_id = str(row.line)
        elif isinstance(sample_id, bool) or not isinstance(sample_id, (str, numbers.Integral)):
            raise err("id", f"expected a string or integer, got {type(sample_id).__name__}")
        elif not isinstance(sample_id, str):  # numpy's integers too (a DataFrame's id column, np.int64 ids)
            if not -_MAX_ID < sample_id < _MAX_ID:  # str() of a 5,000-digit int is itself an error
                raise err("id", f"expected an id of at most 1,000 digits, got {_shown_number(sample_id)}")
            sample_id = int(sample_id)
        sample_id = str(sample_id)
        key = sample_key_digest(system, sample_id)
        if key in self.seen:
            raise err("id", f"duplicate id '{sample_id}' for system '{system}' "
                            f"(first seen at {self._origin_of(self.seen[key])})")

        sample = Sample(
            id=sample_id,
            answer=answer,
            question=question,
            contexts=self._contexts(self._mapped_contexts(row, err) if self.parts
                                    else decode(data.get("contexts"), "contexts"), err, row.text_cells),
            references=self._references(decode(data.get("references"), "references"), err),
            relevant=self._relevant(decode(data.get("relevant"), "relevant"), err),
            system=system,
            origin=f"{row.source}:{row.line}",
            citations=self._citations(decode(data.get("citations"), "citations"), err),
            language=self._language(data.get("language"), err, columns.get("language", "language")),
            trace=row.trace,
            **conversation_fields(data, decode, self.history_tokens, err),
        )
        if self._source is None:
            self._source = row.source
        self.seen[key] = row.line if row.source == self._source and row.line is not None else sample.origin
        return sample

    def renamed(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """The row's fields by the names genevals reads (``--map`` and the aliases applied)."""
        return self._rename(data)[0]

    def _rename(self, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The row's fields by the names genevals reads, and the column each came from."""
        out: dict[str, Any] = {}
        columns: dict[str, str] = {}
        for new, old in self.fields.items():
            if old in data:
                out[new], columns[new] = data[old], old
        for name, value in data.items():
            target = name if name in KNOWN_FIELDS else ALIASES.get(name)
            if target and target not in out:
                out[target], columns[target] = value, name
        return out, columns

    def _cell(self, value: Any, field: str, column: str, row: RawRow, err) -> Any:
        """A CSV cell of a field that may hold a list or mapping: its list or mapping, read from JSON or from a
        Python literal (noted once per column); else the text itself where text is a value (a reference, one
        relevant id). Text that starts like a list but is neither is refused, naming the forms accepted."""
        if not isinstance(value, str):
            return value
        found = mapping.literal(value)
        if found is None:
            if field != "references" and value.strip()[:1] in ("[", "{"):
                raise err(field, f"column '{column}': cannot read {_preview(value)} as a list or mapping; a cell "
                                 f"holds one as {mapping.LIST_FORMS}")
            return value
        if found[1] and self.tracker is not None:
            self.tracker.literal(column, f"{row.source}:{row.line}")
        return found[0]

    def _mapped_contexts(self, row: RawRow, err) -> list[dict[str, Any]] | None:
        """The contexts the ``contexts[].PART`` columns make: a column holding a list gives one context per
        element, one holding a single value one context; the columns line up by position."""
        values: dict[str, list[Any]] = {}
        for part, column in self.parts.items():
            value = mapping.as_list(row.data.get(column))
            if _is_missing(value) or value == "":
                continue
            if row.text_cells and isinstance(value, str):
                found = mapping.literal(value)
                if found is not None and isinstance(found[0], list):
                    if found[1] and self.tracker is not None:
                        self.tracker.literal(column, f"{row.source}:{row.line}")
                    value = found[0]
                elif part != "text" and value.strip()[:1] in ("[", "{"):  # a chunk's text may start with "["
                    raise err(f"contexts[].{part}", f"column '{column}': cannot read {_preview(value)} as a list; "
                                                    f"a cell holds one value, or a list as {mapping.LIST_FORMS}")
            values[part] = value if isinstance(value, list) else [value]
        if not values:
            return None
        lengths = {len(v) for v in values.values()}
        if len(lengths) > 1:
            shown = ", ".join(f"'{self.parts[p]}' ({p}) {len(v)}" for p, v in values.items())
            raise err("contexts[]", f"the mapped columns line up by position, but their lists differ in length: "
                                    f"{shown}")
        contexts = [{part: v[i] for part, v in values.items()} for i in range(lengths.pop())]
        if row.text_cells and "score" in values:  # CSV numbers are text
            for rank, context in enumerate(contexts, start=1):
                context["score"] = _number(context["score"], rank, err)
        return contexts

    @staticmethod
    def _contexts(value: Any, err, text_cells: bool = False) -> tuple[Context, ...]:
        value = _as_list(value)
        if _is_missing(value) or value == "":
            return ()
        if isinstance(value, str):
            hint = (f"; a cell holds the list as {mapping.LIST_FORMS}, and --map contexts[].text=COLUMN reads a "
                    "column holding one chunk per row") if text_cells else ""
            raise err("contexts", f"expected a list of strings or objects, got a string{hint}")
        if not isinstance(value, list):
            raise err("contexts", f"expected a list, got {type(value).__name__}")
        contexts: list[Context] = []
        add, make = contexts.append, Context.checked
        # The common case (plain str and dict values, ASCII text and ids) takes only type tests here: a
        # 20-context row is 20 of these, and field names for errors are formatted only when there is one.
        for rank, item in enumerate(value, start=1):
            if isinstance(item, str):
                if not item.isascii():
                    _check_unicode(item, f"contexts[{rank - 1}]", err)
                add(make(item, rank))
                continue
            if type(item) is not dict and not isinstance(item, Mapping):  # the ABC check is slow: dicts first
                raise err(f"contexts[{rank - 1}]", f"expected a string or object, got {type(item).__name__}")
            get = item.get
            text = get("text", _ABSENT)
            if text is _ABSENT:
                text = get("content")
            if not isinstance(text, str):
                if not _is_missing(text):
                    raise err(f"contexts[{rank - 1}].text", f"expected a string, got {type(text).__name__}")
                if get("id") is None and get("doc_id") is None:
                    raise err(f"contexts[{rank - 1}]", "a context needs its text, an id or a doc_id (retrieval "
                                                       "metrics read the ids, the others the text)")
                text = ""  # only ids: the metrics that need text give this sample a status saying so
            if not text.isascii():
                _check_unicode(text, f"contexts[{rank - 1}].text", err)
            score = get("score")
            if score is not None and (type(score) is not float or not math.isfinite(score)) \
                    and (type(score) is not int or not -_MAX_DOUBLE <= score <= _MAX_DOUBLE):
                score = _context_score(score, rank, err)
            chunk_id, doc_id = get("id"), get("doc_id")
            if chunk_id is not None and (type(chunk_id) is not str or not chunk_id.isascii()):
                chunk_id = _context_id(chunk_id, rank, "id", err)
            if doc_id is not None and (type(doc_id) is not str or not doc_id.isascii()):
                doc_id = _context_id(doc_id, rank, "doc_id", err)
            add(make(text, rank, chunk_id, doc_id, score))
        return tuple(contexts)

    @staticmethod
    def _references(value: Any, err) -> tuple[str, ...]:
        value = _as_list(value)
        if _is_missing(value):
            return ()
        if isinstance(value, str):
            _check_unicode(value, "references", err)
            return (value,) if value != "" else ()
        if not isinstance(value, list):
            raise err("references", f"expected a string or list of strings, got {type(value).__name__}")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise err(f"references[{index}]", f"expected a string, got {type(item).__name__}")
            _check_unicode(item, f"references[{index}]", err)
        return tuple(value)

    @staticmethod
    def _language(value: Any, err, column: str = "language") -> str | None:
        """The ``language`` field: an ISO 639-1 code (``zh``; ``pt-BR`` is ``pt``, :func:`~genevals.language.check`);
        missing, blank or ``auto``: the run's ``--language``. Read from ``column`` (``--map language=COLUMN``)."""
        if _is_missing(value) or (isinstance(value, str) and
                                  unicodedata.normalize("NFKC", value).strip().lower() in ("", "auto")):
            return None
        try:
            return language_codes.check(value, "language")
        except ValueError as exc:
            where = f"column '{column}': " if column != "language" else ""
            raise err("language", where + str(exc).removeprefix("language: ")) from None

    @staticmethod
    def _citations(value: Any, err) -> tuple[tuple[str | None, tuple[str, ...]], ...] | None:
        """The ``citations`` field: one entry per sentence (a list of context ids, or 1-based positions) or per
        claim (``{"text": the sentence or claim, "contexts": [ids]}``), in the answer's order."""
        value = _as_list(value)
        if _is_missing(value) or value == "":
            return None
        if not isinstance(value, list):
            raise err("citations", f"expected a list with one entry per sentence or claim, got "
                                   f"{type(value).__name__}")
        out = []
        for index, item in enumerate(value):
            item = _as_list(item)
            text = None
            if isinstance(item, Mapping):
                text = next((item[k] for k in CITATION_TEXT_KEYS if k in item), None)
                if text is not None and not isinstance(text, str):
                    raise err(f"citations[{index}].text", f"expected a string, got {type(text).__name__}")
                _check_unicode(text, f"citations[{index}].text", err)
                item = _as_list(next((item[k] for k in CITATION_REF_KEYS if k in item), []))
                if isinstance(item, (str, int)) and not isinstance(item, bool):
                    item = [item]
            if not isinstance(item, list):
                raise err(f"citations[{index}]", f"expected a list of context ids (one list per sentence) or an "
                                                 f"object {{\"text\": ..., \"contexts\": [...]}}, got "
                                                 f"{type(item).__name__}")
            refs = []
            for k, ref in enumerate(item):
                if isinstance(ref, bool) or not isinstance(ref, (str, numbers.Integral)):
                    raise err(f"citations[{index}][{k}]", f"expected a context id or 1-based position, got "
                                                          f"{type(ref).__name__}")
                _check_unicode(ref, f"citations[{index}][{k}]", err)
                if not isinstance(ref, str) and abs(int(ref)) > _MAX_ID:  # str() of it would raise past 4,300 digits
                    raise err(f"citations[{index}][{k}]", "a number of more than 1,000 digits is no context position")
                refs.append(ref if isinstance(ref, str) else str(int(ref)))
            out.append((text, tuple(refs)))
        return tuple(out)

    @staticmethod
    def _relevant(value: Any, err) -> dict[str, float] | None:
        value = _as_list(value)
        if _is_missing(value) or value == "":  # an empty CSV cell: no labels, as for contexts
            return None
        if isinstance(value, str) or (isinstance(value, numbers.Integral) and is_number(value)):
            _check_unicode(value, "relevant", err)  # one id (a URL in a CSV cell): a one-element list
            return {value if isinstance(value, str) else str(int(value)): 1.0}
        if isinstance(value, list) and value and all(isinstance(i, tuple) and len(i) == 2 for i in value):
            value = dict(value)  # a Parquet map<id, grade> column arrives as (key, grade) pairs
        if isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, str) and not (isinstance(item, numbers.Integral) and is_number(item)):
                    raise err(f"relevant[{index}]", f"expected an id, got {type(item).__name__}")
                _check_unicode(item, f"relevant[{index}]", err)
            return {item if isinstance(item, str) else str(int(item)): 1.0 for item in value}
        if isinstance(value, Mapping):
            grades = {}
            for key, grade in value.items():
                if grade is None:  # a Parquet struct column fills the keys of other rows with None
                    continue
                if type(key) is not str or not key.isascii():
                    _check_unicode(key, "relevant", err)
                if (type(grade) is float or type(grade) is int) and MIN_GRADE <= grade <= MAX_GRADE:
                    grades[str(key)] = float(grade)  # the common case, without the ABC checks (NaN fails the range)
                    continue
                if not is_number(grade) or not finite(grade):
                    raise err(f"relevant.{key}", f"expected a finite number grade, got {_shown_number(grade)}")
                if not MIN_GRADE <= grade <= MAX_GRADE:
                    raise err(f"relevant.{key}", f"relevance grade {grade!r} is outside the supported range "
                                                 f"[{MIN_GRADE:g}, {MAX_GRADE:g}]")
                grades[str(key)] = float(grade)
            return grades
        raise err("relevant", f"expected a list of ids or a mapping id -> grade, got {type(value).__name__}")
