"""Input mistakes that concern a field rather than one value, named once for the whole input.

:class:`FieldTracker` watches every raw row's field names during the planning pass
(:func:`genevals.engine.plan.plan_run`) and says, once:

* which fields no reader knows (``refrences``), each with where it first appeared and a did-you-mean; they
  are ignored with a warning, or refused with ``strict``; the columns the user names as ignored
  (``--ignore-fields``, a mapping file's ``ignore``) are neither, and one of them that no row has is a warning;
* which ``--map`` source column no row has (an error: the mapping would silently read nothing);
* which CSV column holds lists as Python literals rather than JSON (read, with one warning per column);
* for a file with a header (CSV, Parquet), that a required column is missing, at the header, with the columns
  found: one error instead of one per row.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from genevals.quote import clip, quoted
from genevals.suggest import closest, did_you_mean

#: the fields a row must provide (after ``--map`` and the aliases)
REQUIRED = ("answer",)
#: distinct field names remembered, so a row with a million keys costs nothing more
MAX_COLUMNS = 1000
#: words of a column name that say it holds the reference answers (``gold``, ``answer_gold``, ``expected``), for
#: an input whose rows have no references field
REFERENCE_WORDS = frozenset({"gold", "golden", "expected", "reference", "references", "truth", "truths", "ideal",
                             "correct", "target", "targets", "answers", "label", "labels"})
#: what the hint says, so that the command line can repeat it where the missing references are noticed
REFERENCES_HINT = "it may hold the references: "


class FieldTracker:
    def __init__(self, known: tuple[str, ...], aliases: Mapping[str, str],
                 column_map: Mapping[str, str] | None = None, ignore: Iterable[str] = ()) -> None:
        self.column_map = dict(column_map or {})
        self.aliases = dict(aliases)
        self.names = set(known) | set(aliases)
        #: the columns named as ignored: known to be unread, so no warning names them
        self.ignore = tuple(ignore)
        self.known = self.names | set(self.column_map.values()) | set(self.ignore)
        #: field name -> "file:line" where it first appeared
        self.unknown: dict[str, str] = {}
        self.columns: dict[str, None] = {}  # every field name seen, in first-seen order
        #: CSV column holding Python literal lists -> "file:line" of the first
        self.literals: dict[str, str] = {}
        #: whether some row provides references (itself, an alias or its --map source)
        self.references = False

    def see(self, origin: str, data: Any) -> None:
        if type(data) is not dict and not isinstance(data, Mapping):
            return
        if not self.references:
            self.references = self.provides(data, "references")
        for name in data:
            if not isinstance(name, str):
                continue
            if name not in self.columns and len(self.columns) < MAX_COLUMNS:
                self.columns[name] = None
            if name not in self.known and name not in self.unknown and len(self.unknown) < MAX_COLUMNS:
                self.unknown[name] = origin

    def provides(self, columns: Any, field: str) -> bool:
        """Whether a row with ``columns`` has ``field``: itself, an alias of it, or its ``--map`` source."""
        source = self.column_map.get(field)
        return (field in columns or (source is not None and source in columns)
                or any(alias in columns for alias, target in self.aliases.items() if target == field))

    def hint(self, field: str, columns: Any) -> str:
        """``; did you mean 'answr'? (--map answer=answr reads it)`` for a column close to ``field``."""
        found = closest(field, [c for c in columns if isinstance(c, str) and c not in self.names])
        return f"; did you mean {quoted(found)}? (--map {field}={clip(found)} reads it)" if found else ""

    def header_problem(self, columns: Any) -> str | None:
        """The message for a header without a required column, or None."""
        for field in REQUIRED:
            if not self.provides(columns, field):
                found = ", ".join(clip(str(c)) for c in list(columns)[:30]) or "none"
                return (f"no '{field}' column (columns found: {found}){self.hint(field, columns)}; "
                        f"every row needs one (or --map {field}=COLUMN)")
        return None

    def literal(self, column: str, origin: str) -> None:
        """Remember that ``column`` held a Python literal list or mapping (first at ``origin``)."""
        if column not in self.literals and len(self.literals) < MAX_COLUMNS:
            self.literals[column] = origin

    def warnings(self) -> list[str]:
        """One line per unknown field (where it first appeared, and the field it may have meant), one per
        column read from Python literals, and one per ignored column that no row has (a misspelt name, most
        likely: the column meant still warns)."""
        return [f"{origin}: unknown field {quoted(name)} is ignored"
                f"{self._references_hint(name) or did_you_mean(clip(name), self.names)}"
                for name, origin in self.unknown.items()] + [
                f"{origin}: column {quoted(name)} holds Python literals (['a', 'b']), not JSON ([\"a\", \"b\"]); read "
                "them as lists (parsed, never evaluated)" for name, origin in self.literals.items()] + [
                f"ignored field {quoted(name)}: no row has it{did_you_mean(clip(name), self._unread())}"
                for name in self.ignore if name not in self.columns]

    def _references_hint(self, name: str) -> str:
        """``; it may hold the references: --map references=gold reads it`` for a column named like reference
        answers when no row has references (lexical metrics would score nothing)."""
        if self.references or "references" in self.column_map:
            return ""
        words = {w for w in re.split(r"[^a-z]+", name.lower()) if w}
        return f"; {REFERENCES_HINT}--map references={clip(name)} reads it" if words & REFERENCE_WORDS else ""

    def _unread(self) -> list[str]:
        """The columns seen that no field reads (ignored or not)."""
        mapped = set(self.column_map.values())
        return [c for c in self.columns if c not in self.names and c not in mapped]

    def unmapped(self) -> list[str]:
        """The ``--map NEW=OLD`` whose OLD no row has, as messages."""
        return [f"--map {new}={clip(old)}: no row has a field {quoted(old)}{did_you_mean(clip(old), self.columns)}"
                f" (fields found: {', '.join(clip(str(c)) for c in list(self.columns)[:30]) or 'none'})"
                for new, old in self.column_map.items() if old not in self.columns]
