"""Citation markers in an answer's text: where they are, what they point at, and the answer without them.

The default forms, each a list of references (1-based positions into the sample's contexts, or context ids):

- ``[2]``, ``[1, 3]``, ``[1-3]`` (a range of positions), ``[ferry#1]`` (a context id), ``[1][2]``;
- ``(Source 2)``, ``(Sources 1, 3)``, ``(source 2 and 4)``;
- ``^2`` (a footnote mark), ``^1,2``.

A bracket whose content is not a list of numbers or of the sample's context ids (``[sic]``, ``[citation
needed]``) is text, not a marker. A custom ``pattern`` (``--citation-pattern``) is a regular expression whose
named group ``ref`` (else its first group, else the whole match) holds the references; every match of it is a
marker, and a reference that names no context is out of range.

This module knows no metric and no sentence splitter: the citations metric joins markers to sentences.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_BRACKET = re.compile(r"\[([^\[\]\n]{1,80})\]")
_SOURCE = re.compile(r"\((?:sources?|refs?\.?|references?|docs?\.?|documents?|passages?)\s+"
                     r"([^()\n]{1,60})\)", re.IGNORECASE)
_CARET = re.compile(r"\^(\d+(?:\s*,\s*\d+)*)")
_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&)\s*", re.IGNORECASE)
_RANGE = re.compile(r"(\d+)\s*[-\u2013\u2014]\s*(\d+)\Z")
#: a range longer than this is not expanded ("[1990-2020]" is a span of years, not 31 citations)
MAX_RANGE = 20


class PatternError(ValueError):
    """A ``--citation-pattern`` that is not a usable regular expression."""


@dataclass(frozen=True)
class Marker:
    """One citation marker: its [start, end) span in the answer and the references it makes, as written
    (``"2"``, ``"ferry#1"``); a range is expanded ("1-3" gives "1", "2", "3")."""

    start: int
    end: int
    refs: tuple[str, ...]


def compile_pattern(pattern: str | None) -> re.Pattern | None:
    """The compiled custom pattern (None: the default forms); PatternError saying why it cannot be used."""
    if pattern is None:
        return None
    if not isinstance(pattern, str) or not pattern:
        raise PatternError(f"citation pattern: expected a regular expression, got {pattern!r}")
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise PatternError(f"citation pattern {pattern!r} is not a regular expression: {exc}") from None
    if compiled.search("") is not None:
        raise PatternError(f"citation pattern {pattern!r} matches the empty string")
    return compiled


def _refs(text: str, ids: frozenset[str], strict: bool) -> tuple[str, ...] | None:
    """The references of a marker's inside; None when ``strict`` and some part is neither a number, a range
    of numbers nor one of ``ids`` (the bracket is then text)."""
    text = text.strip()
    if text in ids:
        return (text,)
    out: list[str] = []
    for part in _SPLIT.split(text):
        part = part.strip()
        if not part:
            continue
        found = _RANGE.match(part)
        if part in ids or part.isdigit():
            out.append(part)
        elif found and 0 < int(found.group(2)) - int(found.group(1)) <= MAX_RANGE:
            out.extend(str(n) for n in range(int(found.group(1)), int(found.group(2)) + 1))
        elif strict:
            return None
        else:
            out.append(part)
    return tuple(out) if out else None


def find_markers(answer: str, ids: Sequence[str] = (), pattern: re.Pattern | None = None) -> list[Marker]:
    """The answer's citation markers in order; ``ids``: the sample's context ids (a bracket may name one)."""
    known = frozenset(i for i in ids if i)
    found: list[Marker] = []
    if pattern is not None:
        for m in pattern.finditer(answer):
            group = "ref" if "ref" in pattern.groupindex else (1 if pattern.groups else 0)
            inside = m.group(group) or ""
            refs = _refs(inside, known, strict=False)
            if refs and m.end() > m.start():
                found.append(Marker(m.start(), m.end(), refs))
        return found
    taken: list[tuple[int, int]] = []
    for form in (_BRACKET, _SOURCE, _CARET):
        for m in form.finditer(answer):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            refs = _refs(m.group(1), known, strict=True)
            if refs:
                found.append(Marker(m.start(), m.end(), refs))
                taken.append((m.start(), m.end()))
    return sorted(found, key=lambda k: k.start)


def strip_markers(answer: str, markers: Sequence[Marker]) -> tuple[str, list[int]]:
    """The answer without its markers (and the space before each), and for each character of it the index of
    the original character: sentences are split and checked on the clean text, and shown on the original."""
    out: list[str] = []
    index: list[int] = []
    at = 0
    for m in sorted(markers, key=lambda k: k.start):
        end = m.start
        while end > at and answer[end - 1] in " \t":  # "in 1998 [2]." -> "in 1998."
            end -= 1
        out.append(answer[at:end])
        index.extend(range(at, end))
        at = max(at, m.end)
    out.append(answer[at:])
    index.extend(range(at, len(answer)))
    return "".join(out), index


def resolve(ref: str, ids: Sequence[str | None]) -> int | None:
    """The 0-based context a reference points at: the context whose id it is, else (a number) its 1-based
    position; None when it names none (out of range)."""
    for i, cid in enumerate(ids):
        if cid is not None and cid == ref:
            return i
    if ref.isdigit() and 1 <= int(ref) <= len(ids):
        return int(ref) - 1
    return None
