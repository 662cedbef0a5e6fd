"""The mapping language of ``--map``, ``--map-file`` and the API's ``column_map``: which column fills which field.

A mapping is ``{target: column}``. A target is a field genevals reads (``answer``, ``relevant``, ...) or a part
of each retrieved context: ``contexts[].text``, ``contexts[].id``, ``contexts[].doc_id``, ``contexts[].score``.
The parts build the contexts: a column holding one value gives one context, a column holding a list gives one
context per element, and several part columns line up by position (their lists must be as long as each other).

CSV cells are text, so a list or a mapping in one is read from JSON, or from a Python literal
(``['a', 'b']``, as ``str(list)`` and pandas' ``to_csv`` write it), parsed with :func:`ast.literal_eval`: never
evaluated. This module knows no row or file format; :mod:`genevals.input.rows` applies it to rows.
"""
from __future__ import annotations

import ast
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from genevals.quote import clip, quoted
from genevals.suggest import did_you_mean

#: the fields a row may hold (``id`` ... ``system``), in the order the docs list them
FIELDS = ("id", "question", "answer", "contexts", "references", "relevant", "system", "citations", "language",
          "conversation_id", "turn", "history")
#: what a context is made of, in the order a ``contexts[].PART`` target names it
PARTS = ("text", "id", "doc_id", "score")
CONTEXT_PART = "contexts[]."
TARGETS = FIELDS + tuple(CONTEXT_PART + part for part in PARTS)
#: what a cell holding a list may look like, for errors
#: the longest column name a mapping may name: longer ones are mistakes, and every message would quote them
MAX_COLUMN = 1000
LIST_FORMS = ("JSON ([\"a\", \"b\"] or {\"a\": 2}) or a Python literal (['a', 'b'] or {'a': 2})")


class MapError(ValueError):
    """A mapping that cannot work; the message names the target or column. Callers add where it came from."""


def target_problem(target: Any) -> str | None:
    """Why ``target`` is not one a mapping may fill (with a did-you-mean), or None."""
    if target in TARGETS:
        return None
    shown = clip(str(target)) if isinstance(target, str) else quoted(target)
    return (f"unknown field {quoted(target)}{did_you_mean(shown, TARGETS)} (fields: {', '.join(FIELDS)}; parts "
            f"of each context: {', '.join(CONTEXT_PART + p for p in PARTS)})")


def check(mapping: Mapping[Any, Any]) -> None:
    """MapError for the first target that does not exist, a column that is not a name (or is longer than any
    column's), or ``contexts`` mapped both whole and in parts. Messages quote at most
    :data:`genevals.quote.LIMIT` characters of what they name."""
    for target, column in mapping.items():
        problem = target_problem(target)
        if problem is not None:
            raise MapError(problem)
        if not isinstance(column, str) or not column:
            raise MapError(f"'{target}': expected a column name, got {quoted(column)}")
        if len(column) > MAX_COLUMN:
            raise MapError(f"'{target}': the column name {quoted(column)} is longer than any column's "
                           f"(at most {MAX_COLUMN:,} characters)")
    if "contexts" in mapping and parts(mapping):
        raise MapError(f"contexts is mapped whole (contexts={quoted(mapping['contexts'])}) and in parts ("
                       + ", ".join(f"{t}={quoted(c)}" for t, c in mapping.items() if t.startswith(CONTEXT_PART))
                       + "): map one or the other")


def parts(mapping: Mapping[str, str]) -> dict[str, str]:
    """``{part: column}`` of the ``contexts[].PART`` targets."""
    return {t[len(CONTEXT_PART):]: c for t, c in mapping.items() if t.startswith(CONTEXT_PART)}


def parse_pairs(pairs: Any) -> dict[str, str]:
    """``["answer=output", "contexts[].doc_id=url"]`` -> {"answer": "output", ...}, as on the command line."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        target, sep, column = pair.partition("=")
        target, column = target.strip(), column.strip()
        if not sep or not column:
            raise MapError(f"expected NEW=OLD (a field and the column it is read from, e.g. answer=output or "
                           f"contexts[].doc_id=url), got {quoted(pair)}")
        problem = target_problem(target)
        if problem is not None:
            raise MapError(f"{quoted(pair)}: {problem}")
        mapping[target] = column
    check(mapping)
    return mapping


class MapFile(NamedTuple):
    """A mapping file's mapping, and the columns it names as ignored (``ignore = ["latency_ms"]``)."""

    columns: dict[str, str]
    ignore: tuple[str, ...] = ()


#: a mapping file's key for the columns to ignore without a warning (not a field: no field has this name)
IGNORE = "ignore"


def read_file(path: str | Path) -> dict[str, str]:
    """The mapping of the mapping file ``path`` (:func:`load`)."""
    return load(path).columns


def load(path: str | Path) -> MapFile:
    """A mapping file: TOML (``.toml``), YAML (``.yaml``/``.yml``) or JSON (``.json``), each ``field = "column"``
    (``field: column``), with the context parts either as quoted keys (``"contexts[].doc_id" = "url"``) or in a
    ``contexts`` table (``doc_id = "url"``), and ``ignore = ["column", ...]``: the columns read by nothing, named
    so that no warning says so. MapError names the file, and the line or the field of what is wrong;
    what the file may be (its size, its nesting, YAML aliases) is :mod:`genevals.input.mapfile`'s."""
    from genevals import files
    from genevals.input import mapfile

    if not str(path):  # Path("") is ".": "is a directory" would not say what is wrong
        raise MapError("the path is empty; give a .toml, .yaml or .json file")
    path = Path(path)
    kind = mapfile.kind_of(path)
    problem = files.refusal(path)  # before the suffix: a folder or a pipe is named as such
    if problem is not None:
        raise MapError(f"{path}: {problem}")
    if kind is None:
        raise MapError(f"{path}: unknown mapping file type {quoted(path.suffix)} (use .toml, .yaml or .json)")
    try:
        raw = files.read_limited(path, mapfile.MAX_BYTES, "mapping file (a mapping is a dozen lines)")
    except files.Refused as exc:
        raise MapError(f"{path}: {exc}") from None
    try:
        data = mapfile.parse(raw, kind)
    except mapfile.Refused as exc:
        raise MapError(f"{path}:{exc.line}: {exc.message}" if exc.line else f"{path}: {exc.message}") from None
    if not isinstance(data, dict):
        raise MapError(f"{path}: expected field = \"column\" pairs, got {_kind(data)}")
    mapping: dict[str, str] = {}
    ignore: tuple[str, ...] = ()
    for key, value in data.items():
        if key == IGNORE:
            ignore = _ignore_list(path, value)
            continue
        if key == "contexts" and isinstance(value, dict):
            for part, column in value.items():
                if part not in PARTS:
                    raise MapError(f"{path}: [contexts] {quoted(part)}: unknown part of a context"
                                   f"{did_you_mean(clip(str(part)), PARTS)} (parts: {', '.join(PARTS)})")
                mapping[CONTEXT_PART + part] = column
            continue
        mapping[key] = value
    try:
        check(mapping)
    except MapError as exc:
        raise MapError(f"{path}: {exc}") from None
    return MapFile(mapping, ignore)


def _ignore_list(path: Path, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise MapError(f"{path}: {IGNORE}: expected a list of column names (ignore = [\"latency_ms\"]), got "
                       f"{_kind(value)}")
    for item in value:
        if not isinstance(item, str) or not item or len(item) > MAX_COLUMN:
            raise MapError(f"{path}: {IGNORE}: expected column names (at most {MAX_COLUMN:,} characters), got "
                           f"{quoted(item)}")
    return tuple(value)


def _kind(value: Any) -> str:
    return {dict: "a table", list: "a list", str: "text", type(None): "nothing"}.get(type(value), type(value).__name__)


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def literal(text: str) -> tuple[Any, bool] | None:
    """A cell's list or mapping, and whether it was a Python literal rather than JSON; None for text that is
    neither. Only text starting with ``[`` or ``{`` is tried."""
    stripped = text.strip()
    if stripped[:1] not in ("[", "{"):
        return None
    try:
        return json.loads(stripped), False
    except (ValueError, RecursionError):  # JSONDecodeError; an integer over the int max str digits limit
        pass
    try:
        value = ast.literal_eval(stripped)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return (value, True) if isinstance(value, (list, tuple, dict)) else None


def as_list(value: Any) -> Any:
    """numpy arrays (from Parquet or pandas) and tuples as lists; anything else unchanged."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    return list(value) if isinstance(value, tuple) else value
