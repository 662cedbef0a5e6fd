"""``--types mix.toml``: the item types asked for and the persona, style and length axes, read into a frozen
:class:`MixFile`. Reading only: drawing the slots from it is :mod:`genevals.generate.mix`'s.

    [types]              # shares (floats summing to 1) ...
    fact = 0.4
    multi_hop = 0.2
    unanswerable = 0.1
    summary = 0.3
    # ... or counts (whole numbers): fact = 40, multi_hop = 20; never both in one file

    [personas]           # name = weight (a number above 0); weights are relative
    "new employee" = 2
    "domain expert" = 1

    [styles]
    "plain question" = 1
    "keywords, as typed into a search box" = 1

    [lengths]
    short = 1
    medium = 2

An axis may also be a list of names, each of weight 1: ``personas = ["new employee", "auditor"]``. Every
table is optional (an axis left out is the driver's default; ``[types]`` left out, its default mix).

Type targets: counts are kept as written; shares are apportioned to ``n`` items by the largest remainder
(Hamilton's method) of the shares normalised to sum to 1: type t gets :math:`\\lfloor n s_t \\rfloor`, and the :math:`n - \\sum_t \\lfloor n s_t
\\rfloor` items left go one each to the largest remainders :math:`n s_t - \\lfloor n s_t \\rfloor`, ties to the
type written first (:meth:`MixFile.targets`).

A file that is not a mix (not UTF-8, not TOML, an unknown table or type, a weight that is not a number above 0,
shares that do not sum to 1, counts and shares mixed) is a :class:`MixFileError` naming the file, the line
(tomllib's for a syntax error; for a bad value, the line of its key) and the key.
"""
from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from genevals.files import Refused, read_limited
from genevals.generate.items import TYPES
from genevals.settings import did_you_mean

#: a mix file's largest size: a few dozen lines are a mix; a megabyte is something else
MAX_BYTES = 1 << 20
AXES = ("personas", "styles", "lengths")
TABLES = ("types",) + AXES
#: how far shares may sum from 1 (three decimals written by hand: 0.333 + 0.333 + 0.333 is 0.999)
SHARE_TOLERANCE = 0.002
#: the longest axis value (it is written into every prompt)
MAX_NAME = 300
_AT_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


class MixFileError(ValueError):
    """A mix file that cannot be read; the message names the file, the line when known, and the key."""


@dataclass(frozen=True)
class MixFile:
    """``types``: type -> share (summing to 1) or count (``counts`` True); each axis: ``((name, weight), ...)``
    in the file's order (an empty tuple: the axis is not given)."""

    types: Mapping[str, float]
    personas: tuple[tuple[str, float], ...] = ()
    styles: tuple[tuple[str, float], ...] = ()
    lengths: tuple[tuple[str, float], ...] = ()
    counts: bool = False
    source: str = ""

    def targets(self, n: int) -> dict[str, int]:
        """Items per type for ``n`` items: the counts as written, or the shares apportioned by the largest
        remainder (module docstring). Counts that do not sum to ``n`` are a MixFileError naming both."""
        if self.counts:
            total = int(sum(self.types.values()))
            if total != n:
                raise MixFileError(f"{self.source or 'mix'}: [types] asks for {total} items in all; -n asks for {n}")
            return {t: int(c) for t, c in self.types.items()}
        # exact decimals (the shares as written): in floats 100 * 0.29 is 28.999..., floored to 28
        # and normalised, so that shares summing to 0.999 still fill n
        shares = {t: Fraction(repr(s)) for t, s in self.types.items()}
        whole = sum(shares.values())
        exact = {t: n * q / whole for t, q in shares.items()}
        floors = {t: math.floor(q) for t, q in exact.items()}
        left = n - sum(floors.values())
        order = sorted(self.types, key=lambda t: -(exact[t] - floors[t]))  # stable: file order on ties
        for t in order[:left]:
            floors[t] += 1
        return floors


def _line_of(text: str, table: str, key: str) -> int | None:
    """The line of ``key`` under ``[table]`` (or of ``table = ...`` at the top level), 1-based; None when not
    found (a key written as a dotted or inline table)."""
    current = ""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            current = stripped.strip("[] \t").split("#")[0].strip()
            if current == table and key == "":
                return number
            continue
        head = stripped.split("=", 1)[0].strip().strip("\"'")
        if "=" in stripped and ((current == table and head == key) or (current == "" and head == table)):
            return number
    return None


class _Reader:
    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text

    def fail(self, table: str, key: str, problem: str) -> MixFileError:
        line = _line_of(self.text, table, key)
        where = f"{self.path}, line {line}" if line else self.path
        name = f"[{table}] {key}" if key else f"[{table}]"
        return MixFileError(f"{where}: {name}: {problem}")

    def weight(self, table: str, key: str, value: Any, zero: bool) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value < 0 or (value == 0 and not zero):
            wanted = "a number of 0 or more" if zero else "a number above 0"
            raise self.fail(table, key, f"the weight must be {wanted}, got {value!r}")
        return float(value)

    def name(self, table: str, key: str) -> str:
        if not key.strip():
            raise self.fail(table, key, "a name must not be blank")
        if len(key) > MAX_NAME:
            raise self.fail(table, key[:40] + "...", f"a name of {len(key):,} characters; at most {MAX_NAME}")
        return key.strip()

    def axis(self, table: str, value: Any) -> tuple[tuple[str, float], ...]:
        if isinstance(value, list):
            entries = []
            for n, name in enumerate(value, 1):
                if not isinstance(name, str):
                    raise self.fail(table, "", f"entry {n} is {type(name).__name__}; a list of names is text")
                entries.append((self.name(table, name), 1.0))
        elif isinstance(value, dict):
            entries = [(self.name(table, k), self.weight(table, k, v, zero=False)) for k, v in value.items()]
        else:
            raise self.fail(table, "", f"a table of name = weight, or a list of names; got {type(value).__name__}")
        if not entries:
            raise self.fail(table, "", "empty: give at least one name, or leave the table out")
        names = [name for name, _ in entries]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise self.fail(table, repeated[0], "given twice")
        return tuple(entries)

    def types(self, value: Any) -> tuple[dict[str, float], bool]:
        if not isinstance(value, dict) or not value:
            raise self.fail("types", "", "a table of type = share or count, with at least one type")
        out: dict[str, float] = {}
        kinds = set()
        for key, v in value.items():
            if key not in TYPES:
                raise self.fail("types", key, f"no such item type{did_you_mean(key, TYPES)} (types: "
                                              f"{', '.join(TYPES)})")
            out[key] = self.weight("types", key, v, zero=True)
            kinds.add("count" if isinstance(v, int) else "share")
        if len(kinds) > 1:
            raise self.fail("types", "", "counts (whole numbers) and shares (decimals) mixed; write all of one "
                                         "kind (fact = 0.5 or fact = 50)")
        if not any(out.values()):
            raise self.fail("types", "", "every type is 0: nothing would be generated")
        counts = kinds == {"count"}
        total = sum(out.values())
        if not counts and abs(total - 1.0) > SHARE_TOLERANCE:
            raise self.fail("types", "", f"the shares sum to {total:g}, not 1 (write counts as whole numbers)")
        return out, counts


def read_mix(path: str | os.PathLike) -> MixFile:
    """The mix in ``path``; :class:`MixFileError` naming the file, line and key for anything that is not one."""
    shown = os.fspath(path)
    try:
        data = read_limited(path, MAX_BYTES, "mix file")
    except (Refused, OSError) as exc:
        raise MixFileError(f"{shown}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise MixFileError(f"{shown}, line {line}: not UTF-8 text (byte {exc.start})") from None
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = _AT_LINE.search(str(exc))
        where = f"{shown}, line {at.group(1)}" if at else shown
        raise MixFileError(f"{where}: not TOML: {_AT_LINE.sub('', str(exc)).strip()}") from None
    reader = _Reader(shown, text)
    for key in parsed:
        if key not in TABLES:
            raise reader.fail(key, "", f"no such table{did_you_mean(key, TABLES)} (a mix has {', '.join(TABLES)})")
    types, counts = reader.types(parsed["types"]) if "types" in parsed else ({}, False)
    axes = {axis: reader.axis(axis, parsed[axis]) for axis in AXES if axis in parsed}
    return MixFile(types=types, counts=counts, source=shown, **axes)
