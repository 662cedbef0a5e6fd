"""``--filter``: which traces a watcher considers, by their attributes.

The attributes of a trace are its resource's attributes, then its root span's (a root span's key wins over the
resource's), as one flat mapping with dotted keys (``deployment.environment``, ``llm.model_name``). A filter is
clauses joined by ``,``, all of which must hold:

=================  ==================================================================================
``key=value``      the key is present and its text equals ``value``
``key!=value``     the key is absent, or its text differs from ``value``
``key~regex``      the key is present and ``regex`` matches somewhere in its text (RE2 syntax, searched;
                   anchor with ``^`` and ``$`` for a whole match)
``key``            the key is present
``!key``           the key is absent
=================  ==================================================================================

A value's text: a string as it is, ``true``/``false`` for a boolean, a number as JSON writes it, a list or mapping
as JSON. In a value, ``\\,`` stands for a comma and ``\\\\`` for a backslash; in a regex, ``\\,`` stands for a
comma and every other backslash is the regex's own (``\\d``, ``\\.``). Spaces around a clause are dropped.

A filter that cannot be read raises ValueError naming the position (0-based, in characters) and what was
expected there, so ``--filter`` fails before a trace is received.

Regexes run on google-re2 (a core dependency, as for ``--citation-pattern``): matching is linear in the text, so
a pattern cannot stall the watcher on a hostile attribute (Python's ``re`` backtracks: ``(a+)+$`` on forty
``a``'s and a ``b`` runs for minutes).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

#: the operators, longest first so ``!=`` is not read as ``!`` then ``=``
_OPERATORS = ("!=", "=", "~")
_KEY = re.compile(r"[A-Za-z0-9_.\-/@:]+")
#: a regex longer than this is refused: the filter runs on every received trace
MAX_PATTERN = 500


@dataclass(frozen=True)
class Clause:
    """One condition: ``op`` is ``=``, ``!=``, ``~``, ``present`` or ``absent``."""
    key: str
    op: str
    value: str | None = None
    pattern: Any = None  # a compiled RE2 pattern

    def holds(self, attrs: Mapping[str, Any]) -> bool:
        if self.op == "present":
            return self.key in attrs
        if self.op == "absent":
            return self.key not in attrs
        if self.key not in attrs:
            return self.op == "!="
        found = text_of(attrs[self.key])
        if self.op == "=":
            return found == self.value
        if self.op == "!=":
            return found != self.value
        return self.pattern is not None and self.pattern.search(found) is not None

    def __str__(self) -> str:
        if self.op == "present":
            return self.key
        if self.op == "absent":
            return f"!{self.key}"
        return f"{self.key}{self.op}{_escape(self.value or '')}"


@dataclass(frozen=True)
class Filter:
    """The clauses of one ``--filter``, all of which must hold (:meth:`parse` reads the text)."""
    clauses: tuple[Clause, ...]

    @classmethod
    def parse(cls, text: str) -> Filter:
        """The filter ``text`` describes; ValueError naming the position of the first thing it cannot read."""
        if not isinstance(text, str):
            raise ValueError(f"filter {text!r}: expected text")
        clauses = []
        for start, raw in _split(text):
            clauses.append(_clause(text, start, raw))
        return cls(tuple(clauses))

    def matches(self, attrs: Mapping[str, Any]) -> bool:
        """Whether every clause holds for ``attrs`` (resource attributes, then the root span's)."""
        return all(c.holds(attrs) for c in self.clauses)

    def why_not(self, attrs: Mapping[str, Any]) -> str | None:
        """None when the trace matches, else the first clause that does not hold, for the decision log."""
        for c in self.clauses:
            if not c.holds(attrs):
                return f"filter clause {str(c)!r} does not hold"
        return None

    def __str__(self) -> str:
        return ",".join(map(str, self.clauses))


def text_of(value: Any) -> str:
    """An attribute value's text, as the module's docstring defines it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):  # bytes, NaN-free objects only: what OTLP cannot carry gets its repr
        return repr(value)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace(",", "\\,")


def _split(text: str) -> list[tuple[int, str]]:
    """``(start, raw)`` of each clause: split at commas not escaped; escapes kept for :func:`_clause`."""
    out, start, i = [], 0, 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == ",":
            out.append((start, text[start:i]))
            start = i + 1
        i += 1
    out.append((start, text[start:]))
    return out


def _unescape(text: str, start: int, raw: str, regex: bool = False) -> str:
    out, i = [], 0
    while i < len(raw):
        if regex and raw[i] == "\\":  # the regex's own escapes are kept; only its commas are the filter's
            out.append("," if raw[i + 1:i + 2] == "," else raw[i:i + 2])
            i += 2
        elif raw[i] == "\\":
            if i + 1 >= len(raw) or raw[i + 1] not in "\\,":
                raise ValueError(f"filter {text!r}, position {start + i}: a backslash escapes only ',' or '\\' "
                                 "(write \\\\ for a backslash)")
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return "".join(out)


def _clause(text: str, start: int, raw: str) -> Clause:
    lead = len(raw) - len(raw.lstrip())
    body, at = raw.strip(), start + lead
    if not body:
        raise ValueError(f"filter {text!r}, position {at}: an empty clause (expected key=value, key!=value, "
                         "key~regex, key or !key)")
    negated = body.startswith("!")
    key_at = at + 1 if negated else at
    key_match = _KEY.match(body, 1 if negated else 0)
    if key_match is None:
        raise ValueError(f"filter {text!r}, position {key_at}: expected an attribute key (letters, digits, "
                         "'_', '.', '-', '/', '@', ':')")
    key, rest = key_match.group(), body[key_match.end():]
    rest_at = at + key_match.end()
    if negated:
        if rest:
            raise ValueError(f"filter {text!r}, position {rest_at}: '!key' takes no value (use key!=value)")
        return Clause(key, "absent")
    if not rest:
        return Clause(key, "present")
    op = next((o for o in _OPERATORS if rest.startswith(o)), None)
    if op is None:
        raise ValueError(f"filter {text!r}, position {rest_at}: expected '=', '!=' or '~' after {key!r}")
    value = _unescape(text, rest_at + len(op), rest[len(op):], regex=op == "~")
    if op != "~":
        return Clause(key, op, value)
    if len(value) > MAX_PATTERN:
        raise ValueError(f"filter {text!r}, position {rest_at + 1}: a regex of {len(value)} characters (at most "
                         f"{MAX_PATTERN})")
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print each refusal to stderr itself
    try:
        pattern = re2.compile(value, options)
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"filter {text!r}, position {rest_at + 1}: not a regex RE2 can run ({why}; no "
                         "backreferences or lookaround)") from None
    return Clause(key, op, value, pattern)
