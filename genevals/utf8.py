"""Text that cannot be written as UTF-8, found before anything is scored.

A Python string can hold a lone surrogate (``"\\ud800"``): JSON's ``\\ud800`` escape decodes to one, and so does
a command-line argument or file name with bytes that are not UTF-8 (Python's surrogateescape). Such text can be
read and scored, but not written: results.jsonl and summary.json would fail mid-run. So every string that can
reach a file (input rows, option values, API arguments) is checked first, and refused with where it was.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

#: a JSON escape of a surrogate (high or low): only lines holding one can decode to a lone surrogate
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def bad_index(text: str) -> int | None:
    """The character index of the first lone surrogate in ``text``, or None when it encodes as UTF-8."""
    if text.isascii():  # O(1)-fast in C: the common case costs nothing more
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def shown(text: str) -> str:
    """``text`` printable anywhere: each lone surrogate written as its escape (``x\\ud800``)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def find(value: Any, where: str = "") -> tuple[str, str] | None:
    """The first place in ``value`` (strings, paths, mapping keys and values, list items, dataclass fields, at
    any depth) that holds a lone surrogate, as (where, what), e.g. ``("contexts[0].meta", "lone surrogate at
    character 3")``; None when all of it can be written."""
    if isinstance(value, str):
        index = bad_index(value)
        return None if index is None else (where, f"lone surrogate at character {index}")
    if isinstance(value, PurePath):
        return find(str(value), where)
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = key if isinstance(key, str) else repr(key)
            if isinstance(key, str) and bad_index(key) is not None:
                return (where, f"lone surrogate in the field name '{shown(key)}'")
            found = find(item, f"{where}.{name}" if where else name)
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            found = find(item, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return find({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, where)
    return None
