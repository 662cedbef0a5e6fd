"""Where each key of a run file is (its line), for messages: a scan of the file's lines that reads each line once.

The scan runs over any run file found, a ``pyproject.toml`` in the working folder or above it included, so it
must stay linear in a line whatever the line holds (a header's regular expression, ``\\s*`` on both sides of a
lazy part, was cubic in a run of spaces: 8,000 took a minute).
"""
from __future__ import annotations

import re

# a key's dotted path at a (left-stripped) line's start, taken atomically (a lookahead and its group): no run of
# spaces around its dots is read twice
_KEY = re.compile(r'(?=((?:[A-Za-z0-9_-]+|"[^"]*")(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"))*))\1\s*=')


def _header(line: str) -> str | None:
    """A table header's name (``[ run.fast ]  # note`` -> ``run.fast``), or None; string methods, one pass."""
    text = line.strip()
    close, name = text.find("]"), text[1:text.find("]")].strip()
    rest = text[close + 1:].lstrip()
    ok = text.startswith("[") and close > 0 and name and "[" not in name and (not rest or rest.startswith("#"))
    return name if ok else None


def _dotted(text: str) -> tuple[str, ...]:
    return tuple(part.strip().strip('"') for part in text.split("."))


def lines_of(lines: list[str]) -> dict[tuple[str, ...], int]:
    """Each key's line (1-based), as a dotted path; a table's own line under its path. Enough for messages:
    a key inside an inline table gets its table's line from the caller's fallback."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(lines, 1):
        header = _header(line)
        if header and not line.lstrip().startswith("[["):
            table = _dotted(header)
            found.setdefault(table, number)
            continue
        key = _KEY.match(line.lstrip())
        if key:
            found.setdefault(table + _dotted(key.group(1)), number)
    return found
