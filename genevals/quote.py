"""A user's value as an error message quotes it: at most :data:`LIMIT` characters of it, whatever it is.

A message that quotes a whole value can be as large as the value: a 1 MB column name, a list built from YAML
aliases (a 333-byte file whose ``repr`` is gigabytes). So every message of the mapping and input layer that
quotes user data quotes it through :func:`quoted`, which never looks at more of the value than it shows.
"""
from __future__ import annotations

import reprlib
from typing import Any

#: characters of a user's value a message shows
LIMIT = 100

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxset = 3, 6, 6, 6, 6
_REPR.maxstring, _REPR.maxother, _REPR.maxlong = LIMIT, LIMIT, 40


def clip(text: str, limit: int = LIMIT) -> str:
    """``text``, or its first ``limit`` characters and how long it is."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def quoted(value: Any, limit: int = LIMIT) -> str:
    """``'name'`` for printable text, else a ``repr`` (escapes shown, never raw control characters), of at most
    about ``limit`` characters of ``value``, saying how long text that was cut is."""
    if isinstance(value, str):
        head = value[:limit]
        shown = f"'{head}'" if head.isprintable() and "'" not in head else repr(head)
        return shown if len(value) <= limit else f"{shown}... ({len(value):,} characters)"
    try:
        text = _REPR.repr(value)
    except Exception:  # noqa: BLE001 -- a user object whose __repr__ fails is still named
        return f"a value of type {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "..."
