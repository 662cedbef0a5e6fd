"""A field's value read and checked: the structured fields of a row (contexts, references, language, citations,
relevant), each refused with the field's name and the value's fault (a lone surrogate, a number past a double's
range or an id past 1,000 digits, a grade out of range) before any metric sees it."""
from __future__ import annotations

import math
import numbers
import sys
import unicodedata
from collections.abc import Mapping
from typing import Any

from genevals import utf8
from genevals.input import mapping
from genevals.input.rows.raw import CITATION_REF_KEYS, CITATION_TEXT_KEYS, MAX_GRADE, MIN_GRADE
from genevals.language import codes as language_codes
from genevals.settings import finite, is_number
from genevals.types import Context

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


def contexts(value: Any, err, text_cells: bool = False) -> tuple[Context, ...]:
    value = _as_list(value)
    if _is_missing(value) or value == "":
        return ()
    if isinstance(value, str):
        hint = (f"; a cell holds the list as {mapping.LIST_FORMS}, and --map contexts[].text=COLUMN reads a "
                "column holding one chunk per row") if text_cells else ""
        raise err("contexts", f"expected a list of strings or objects, got a string{hint}")
    if not isinstance(value, list):
        raise err("contexts", f"expected a list, got {type(value).__name__}")
    read: list[Context] = []
    add, make = read.append, Context.checked
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
    return tuple(read)

def references(value: Any, err) -> tuple[str, ...]:
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

def language(value: Any, err, column: str = "language") -> str | None:
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

def citations(value: Any, err) -> tuple[tuple[str | None, tuple[str, ...]], ...] | None:
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

def _json_labels(text: str, err) -> Any:
    """The labels a JSON text holds (an object id -> grade, or a list of ids); a text that starts like JSON but is
    none is refused: read as one id, every metric of the row would be a silent 0."""
    import json

    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        raise err("relevant", f"a text that starts like JSON but is not JSON: {text[:60]!r}; give a mapping "
                              "id -> grade or a list of ids") from None
    return decoded  # an object or an array: the text starts with "{" or "["


def relevant(value: Any, err) -> dict[str, float] | None:
    value = _as_list(value)
    if _is_missing(value) or value == "":  # an empty CSV cell: no labels, as for contexts
        return None
    if isinstance(value, str) and value[:1] in ("{", "["):
        value = _json_labels(value, err)  # a Parquet or DataFrame string column holding JSON, read as CSV's cells are
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
