"""Citation markers in an answer's text: where they are, what they point at, and the answer without them.

The default forms, each a list of references (1-based positions into the sample's contexts, or context ids):

- ``[2]``, ``[1, 3]``, ``[1-3]`` (a range of positions), ``[ferry#1]`` (a context id), ``[1][2]``;
- ``(Source 2)``, ``(Sources 1, 3)``, ``(source 2 and 4)``;
- ``^2`` (a footnote mark), ``^1,2``;
- the CJK forms: lenticular ``【1】``, ``【1†source】`` (what some tools write: the part from ``†`` on names the
  source, the number is the reference) and full-width ``［1］``, with full-width digits and separators anywhere
  in a marker (``[１]``, ``［１，２］``, ``【１、３】``, ``【1～3】``): they are read as ASCII (``１`` is ``1``), so a
  reference names the same context whatever its width, and the marker is removed from the sentence the same way.

A number is written in ASCII or full-width digits: ``[²]`` or ``[١]`` is text, and a reference that is neither
a context id nor a position (a superscript, a 5,000-digit number) names no context. A bracket whose content is not
a list of numbers or of the sample's context ids (``[sic]``, ``[citation needed]``, ``【4:0†source】``) is text,
not a marker. A custom pattern's references are read the same way (full-width digits as ASCII).

A custom ``pattern`` (``--citation-pattern``) is an RE2 regular expression (google-re2: matching is linear in the
answer's length, so no pattern can backtrack for hours; no backreferences, no lookaround) whose named group
``ref`` (else its first group, else the whole match) holds the references; every match of it is a marker, and a
reference that names no context is out of range. RE2 finds each match in linear time, but a pattern that makes
each search read ahead to the end of the answer (``a*b|a``) is quadratic over all matches: the scan of one answer
stops after :data:`PATTERN_SECONDS` with :class:`ScanError`, which the metric reports as that sample's error.

Every scan here is linear in the answer's length (20k markers or 80k: the same time per marker).
This module knows no metric and no sentence splitter: the citations metric joins markers to sentences.
"""
from __future__ import annotations

import bisect
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_BRACKET = re.compile(r"\[([^\[\]\n]{1,80})\]|\uff3b([^\uff3b\uff3d\n]{1,80})\uff3d"
                      r"|\u3010([^\u3010\u3011\n\u2020]{1,80})(?:\u2020[^\u3010\u3011\n]{0,80})?\u3011")
# full-width digits, commas (and the ideographic one), semicolon, hyphen, tildes (Japanese ranges) and space, as
# ASCII: what a reference says does not depend on its width
_WIDE = {**{0xFF10 + d: str(d) for d in range(10)},
         **{ord(c): a for c, a in zip("\uff0c\u3001\uff1b\uff0d\uff5e\u301c\u3000", ",,;--- ")}}
_SOURCE = re.compile(r"\((?:sources?|refs?\.?|references?|docs?\.?|documents?|passages?)\s+"
                     r"([^()\s][^()\n]{0,59})\)", re.IGNORECASE)
_CARET = re.compile(r"\^([0-9]+(?:\s*,\s*[0-9]+)*)")
# no \s* around the separator: split on a 100k-space reference would backtrack quadratically; parts are stripped
_SPLIT = re.compile(r",|;|\band\b|&", re.IGNORECASE)
_RANGE = re.compile(r"([0-9]{1,9})\s*[-\u2013\u2014]\s*([0-9]{1,9})\Z")
#: a range longer than this is not expanded ("[1990-2020]" is a span of years, not 31 citations)
MAX_RANGE = 20
#: the most digits a position can have (no sample has a billion contexts): more is out of range, never int()'d
MAX_DIGITS = 9
#: a custom pattern's limits: longer, larger or with more groups is refused before anything is scored
MAX_PATTERN_CHARS, MAX_PROGRAM, MAX_GROUPS = 1000, 5000, 20
#: how long the custom pattern may scan one answer before that sample is an error (see the module's docstring)
PATTERN_SECONDS = 2.0
#: a reference shown in a message is cut to this many characters
SHOWN = 40
# RE2's \C matches one byte: a marker could end inside a character (an even run of backslashes is literal ones)
_ANY_BYTE = re.compile(r"(?<!\\)(?:\\\\)*\\C")
# texts a custom pattern must not match as an empty string anywhere in (a zero-width marker would be everywhere)
_PROBES = ("", "a", " ", "a b.", "Word [1] (Source 2) ^3. x", "1\n2")


class PatternError(ValueError):
    """A ``--citation-pattern`` that cannot be used (the message says why)."""


class ScanError(ValueError):
    """The custom pattern could not scan one answer: it ran past :data:`PATTERN_SECONDS`, or the answer is not
    valid text (a lone surrogate, which only the Python API can pass)."""


@dataclass(frozen=True)
class Marker:
    """One citation marker: its [start, end) span in the answer and the references it makes, as written
    (``"2"``, ``"ferry#1"``); a range is expanded ("1-3" gives "1", "2", "3")."""

    start: int
    end: int
    refs: tuple[str, ...]


def shown(text: str, limit: int = SHOWN) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters (saying how long it was)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def is_number(text: str) -> bool:
    """Whether ``text`` is written in ASCII digits only (str.isdigit() also takes "²" and "١")."""
    return text.isascii() and text.isdigit()


def _engine() -> Any:
    try:
        import re2
    except ImportError:  # a core dependency; an install without it says what to do rather than crash
        raise PatternError("a custom citation pattern needs google-re2 (pip install google-re2)") from None
    return re2


def compile_pattern(pattern: str | None) -> Any:
    """The custom pattern compiled by RE2 (None: the default forms); PatternError saying why it cannot be used:
    not RE2 syntax (backreferences, lookaround), too long, too large a program, too many groups, or it matches
    the empty string."""
    if pattern is None:
        return None
    if not isinstance(pattern, str) or not pattern:
        raise PatternError(f"citation pattern: expected a regular expression, got {shown(str(pattern))}")
    try:
        pattern.encode("utf-8")
    except UnicodeEncodeError as exc:  # bytes that are not UTF-8 in argv arrive as lone surrogates
        raise PatternError(f"citation pattern {shown(pattern)} is not valid text (not UTF-8 at character "
                           f"{exc.start})") from None
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"citation pattern {shown(pattern)} is too long: at most {MAX_PATTERN_CHARS:,} characters")
    re2 = _engine()
    options = re2.Options()
    options.log_errors = False  # RE2 would print each refusal to stderr itself
    try:
        compiled = re2.compile(pattern, options)
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternError(f"citation pattern {shown(pattern)} is not a regular expression genevals can run: "
                           f"{shown(why, 120)[1:-1]} (RE2 syntax: linear-time matching, so no backreferences "
                           "and no lookaround)") from None
    if _ANY_BYTE.search(pattern):
        raise PatternError(f"citation pattern {shown(pattern)} uses \\C (one byte): a marker could end inside a "
                           "character; use . instead")
    if compiled.programsize > MAX_PROGRAM:
        raise PatternError(f"citation pattern {shown(pattern)} is too large ({compiled.programsize:,} instructions "
                           f"compiled; at most {MAX_PROGRAM:,})")
    if compiled.groups > MAX_GROUPS:
        raise PatternError(f"citation pattern {shown(pattern)} has {compiled.groups:,} groups: at most "
                           f"{MAX_GROUPS} (the group 'ref', else the first group, holds the references)")
    if any(m.end() == m.start() for probe in _PROBES for m in compiled.finditer(probe)):
        raise PatternError(f"citation pattern {shown(pattern)} matches the empty string")
    if not compiled.groups:  # the whole match ("[3]") would be read as the reference: every marker out of range
        raise PatternError(f"citation pattern {shown(pattern)} has no group: the group 'ref', else the first group, "
                           "holds a marker's references (write \\[(\\d+)\\], not \\[\\d+\\])")
    return compiled


def _refs(text: str, ids: frozenset[str], strict: bool) -> tuple[str, ...] | None:
    """The references of a marker's inside; None when ``strict`` and some part is neither a number, a range
    of numbers nor one of ``ids`` (the bracket is then text)."""
    text = text.strip()
    if text in ids:
        return (text,)
    text = text.translate(_WIDE)
    if text in ids:
        return (text,)
    out: list[str] = []
    for part in _SPLIT.split(text):
        part = part.strip()
        if not part:
            continue
        found = _RANGE.match(part)
        if part in ids or is_number(part):
            out.append(part)
        elif found and 0 < int(found.group(2)) - int(found.group(1)) <= MAX_RANGE:
            out.extend(str(n) for n in range(int(found.group(1)), int(found.group(2)) + 1))
        elif strict:
            return None
        else:
            out.append(part)
    return tuple(out) if out else None


def _custom(answer: str, known: frozenset[str], pattern: Any) -> list[Marker]:
    group = "ref" if "ref" in pattern.groupindex else (1 if pattern.groups else 0)
    deadline = time.monotonic() + PATTERN_SECONDS
    found: list[Marker] = []
    try:
        answer.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ScanError(f"the answer is not valid text at character {exc.start} (a lone surrogate)") from None
    for m in pattern.finditer(answer):
        if time.monotonic() > deadline:
            raise ScanError(f"the citation pattern {shown(pattern.pattern)} gave up on this answer after "
                            f"{PATTERN_SECONDS:g} s ({len(found):,} markers found in its {len(answer):,} "
                            "characters): each match makes it read far ahead; simplify the pattern")
        refs = _refs(m.group(group) or "", known, strict=False)
        if refs and m.end() > m.start():
            found.append(Marker(m.start(), m.end(), refs))
    return found


def find_markers(answer: str, ids: Sequence[str] = (), pattern: Any = None) -> list[Marker]:
    """The answer's citation markers in order; ``ids``: the sample's context ids (a bracket may name one).
    ``pattern``: from :func:`compile_pattern`. ScanError when the custom pattern takes too long."""
    known = frozenset(i for i in ids if i)
    if pattern is not None:
        return _custom(answer, known, pattern)
    # the forms in order of precedence; a later form's match that overlaps an earlier one's marker is text.
    # The markers taken so far are disjoint and sorted, so one look at the last one starting before a match's
    # end says whether it overlaps (a scan over all of them made 20k markers quadratic)
    taken: list[Marker] = []
    for form in (_BRACKET, _SOURCE, _CARET):
        starts = [t.start for t in taken]
        new = []
        for m in form.finditer(answer):
            before = bisect.bisect_left(starts, m.end()) - 1
            if before >= 0 and taken[before].end > m.start():
                continue
            refs = _refs(m.group(m.lastindex or 1), known, strict=True)
            if refs:
                new.append(Marker(m.start(), m.end(), refs))
        taken = sorted(taken + new, key=lambda k: k.start)
    return taken


def strip_markers(answer: str, markers: Sequence[Marker]) -> tuple[str, list[int]]:
    """The answer without its markers (and the space before each), and for each character of it the index of
    the original character: sentences are split and checked on the clean text, and shown on the original."""
    out: list[str] = []
    index: list[int] = []
    at = 0
    for m in sorted(markers, key=lambda k: k.start):
        end = m.start
        while end > at and answer[end - 1] in " \t\u3000":  # "in 1998 [2]." -> "in 1998."
            end -= 1
        out.append(answer[at:end])
        index.extend(range(at, end))
        at = max(at, m.end)
    out.append(answer[at:])
    index.extend(range(at, len(answer)))
    return "".join(out), index


class Contexts:
    """The sample's contexts as references name them: by id first, else by 1-based position (ASCII digits, at
    most :data:`MAX_DIGITS` of them); one lookup per reference, whatever the number of contexts."""

    def __init__(self, ids: Sequence[str | None]) -> None:
        self.n = len(ids)
        self.by_id: dict[str, int] = {}
        for i, cid in enumerate(ids):
            if cid is not None:
                self.by_id.setdefault(cid, i)

    def resolve(self, ref: str) -> int | None:
        """The 0-based context ``ref`` points at; None when it names none (out of range)."""
        if ref in self.by_id:
            return self.by_id[ref]
        digits = ref.lstrip("0")
        if is_number(ref) and len(digits) <= MAX_DIGITS and 1 <= int(digits or "0") <= self.n:
            return int(digits) - 1
        return None


def resolve(ref: str, ids: Sequence[str | None]) -> int | None:
    """The 0-based context a reference points at: the context whose id it is, else (a number) its 1-based
    position; None when it names none (out of range)."""
    return Contexts(ids).resolve(ref)


def why_unknown(ref: str) -> str:
    """A reference that names no context, for a message: shown cut, with why when it only looks like a number."""
    if is_number(ref):
        return shown(ref) if len(ref.lstrip("0")) <= MAX_DIGITS else f"{shown(ref)} (a {len(ref):,}-digit number)"
    if ref.isdigit():
        return f"{shown(ref)} (not a number: positions are written in ASCII digits 0-9)"
    return shown(ref)
