"""How a raw row is checked and turned into a ``Sample`` (:class:`RowValidator`): the fields renamed (``--map``, the
aliases), CSV cells decoded, the ``contexts[].PART`` columns lined up, each field read by
:mod:`~genevals.input.rows.values`, and duplicate (system, id) pairs caught."""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from genevals.conversations.history import HISTORY_TOKENS
from genevals.input import mapping
from genevals.input.fields import FieldTracker
from genevals.input.rows import values
from genevals.input.rows.raw import ALIASES, KNOWN_FIELDS, InputError, RawRow
from genevals.input.rows.values import _MAX_ID, _check_names, _check_unicode, _is_missing, _number, _preview, _shown_number
from genevals.input.turn_fields import conversation_fields
from genevals.keys import sample_key_digest
from genevals.types import Sample


class RowValidator:
    """Turns raw rows into Samples; remembers (system, id) pairs to catch duplicates.

    A pair is remembered as a 64-bit BLAKE2b digest with its line number, not as strings, so a
    100,000-row file costs a few MB here (two different pairs share a digest with odds near 2^-64/pair).
    """

    def __init__(self, column_map: Mapping[str, str] | None = None, tracker: FieldTracker | None = None,
                 history_tokens: int = HISTORY_TOKENS.default):
        self.column_map = dict(column_map or {})
        self.history_tokens = history_tokens
        self.fields = {target: column for target, column in self.column_map.items() if target in KNOWN_FIELDS}
        #: ``contexts[].PART`` targets: part -> column
        self.parts = mapping.parts(self.column_map)
        self.tracker = tracker
        self.seen: dict[int, int | str] = {}
        self._source: str | None = None

    def _origin_of(self, seen: int | str) -> str:
        return seen if isinstance(seen, str) else f"{self._source}:{seen}"

    def __call__(self, row: RawRow) -> Sample:
        err = lambda field, msg: InputError(row.source, row.line, field, msg)  # noqa: E731
        if row.turn is not None:
            err = lambda field, msg: InputError(row.source, row.line, f"{row.turn}.{field}" if field  # noqa: E731
                                                else row.turn, msg)
        if not isinstance(row.data, Mapping):
            raise err(None, f"expected an object per row, got {type(row.data).__name__}")
        _check_names(row.data, err)
        if self.tracker is not None:
            self.tracker.see(f"{row.source}:{row.line}", row.data)
        data, columns = self._rename(row.data)
        if row.text_cells:
            decode = lambda value, name: self._cell(value, name, columns.get(name, name), row, err)  # noqa: E731
        else:
            decode = lambda value, name: value  # noqa: E731
        for name in ("answer", "question", "system", "id", "language"):
            _check_unicode(data.get(name), name, err)

        answer = data.get("answer")
        if _is_missing(answer):
            hint = (self.tracker or FieldTracker(KNOWN_FIELDS, ALIASES, self.column_map)).hint("answer", row.data)
            raise err("answer", f"missing answer{hint}")
        if not isinstance(answer, str):
            raise err("answer", f"expected a string, got {type(answer).__name__}")

        question = data.get("question")
        question = "" if _is_missing(question) else question
        if not isinstance(question, str):
            raise err("question", f"expected a string, got {type(question).__name__}")

        system = data.get("system")
        system = "default" if _is_missing(system) or system == "" else system
        if not isinstance(system, str):
            raise err("system", f"expected a string, got {type(system).__name__}")

        sample_id = data.get("id")
        if _is_missing(sample_id) or sample_id == "":
            sample_id = str(row.line)
        elif isinstance(sample_id, bool) or not isinstance(sample_id, (str, numbers.Integral)):
            raise err("id", f"expected a string or integer, got {type(sample_id).__name__}")
        elif not isinstance(sample_id, str):  # numpy's integers too (a DataFrame's id column, np.int64 ids)
            if not -_MAX_ID < sample_id < _MAX_ID:  # str() of a 5,000-digit int is itself an error
                raise err("id", f"expected an id of at most 1,000 digits, got {_shown_number(sample_id)}")
            sample_id = int(sample_id)
        sample_id = str(sample_id)
        key = sample_key_digest(system, sample_id)
        if key in self.seen:
            raise err("id", f"duplicate id '{sample_id}' for system '{system}' "
                            f"(first seen at {self._origin_of(self.seen[key])})")

        sample = Sample(
            id=sample_id,
            answer=answer,
            question=question,
            contexts=self._contexts(self._mapped_contexts(row, err) if self.parts
                                    else decode(data.get("contexts"), "contexts"), err, row.text_cells),
            references=self._references(decode(data.get("references"), "references"), err),
            relevant=self._relevant(decode(data.get("relevant"), "relevant"), err),
            system=system,
            origin=f"{row.source}:{row.line}",
            citations=self._citations(decode(data.get("citations"), "citations"), err),
            language=self._language(data.get("language"), err, columns.get("language", "language")),
            trace=row.trace,
            **conversation_fields(data, decode, self.history_tokens, err),
        )
        if self._source is None:
            self._source = row.source
        self.seen[key] = row.line if row.source == self._source and row.line is not None else sample.origin
        return sample

    def renamed(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """The row's fields by the names genevals reads (``--map`` and the aliases applied)."""
        return self._rename(data)[0]

    def _rename(self, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The row's fields by the names genevals reads, and the column each came from."""
        out: dict[str, Any] = {}
        columns: dict[str, str] = {}
        for new, old in self.fields.items():
            if old in data:
                out[new], columns[new] = data[old], old
        for name, value in data.items():
            target = name if name in KNOWN_FIELDS else ALIASES.get(name)
            if target and target not in out:
                out[target], columns[target] = value, name
        return out, columns

    def _cell(self, value: Any, field: str, column: str, row: RawRow, err) -> Any:
        """A CSV cell of a field that may hold a list or mapping: its list or mapping, read from JSON or from a
        Python literal (noted once per column); else the text itself where text is a value (a reference, one
        relevant id). Text that starts like a list but is neither is refused, naming the forms accepted."""
        if not isinstance(value, str):
            return value
        found = mapping.literal(value)
        if found is None:
            if field != "references" and value.strip()[:1] in ("[", "{"):
                raise err(field, f"column '{column}': cannot read {_preview(value)} as a list or mapping; a cell "
                                 f"holds one as {mapping.LIST_FORMS}")
            return value
        if found[1] and self.tracker is not None:
            self.tracker.literal(column, f"{row.source}:{row.line}")
        return found[0]

    def _mapped_contexts(self, row: RawRow, err) -> list[dict[str, Any]] | None:
        """The contexts the ``contexts[].PART`` columns make: a column holding a list gives one context per
        element, one holding a single value one context; the columns line up by position."""
        values: dict[str, list[Any]] = {}
        for part, column in self.parts.items():
            value = mapping.as_list(row.data.get(column))
            if _is_missing(value) or value == "":
                continue
            if row.text_cells and isinstance(value, str):
                found = mapping.literal(value)
                if found is not None and isinstance(found[0], list):
                    if found[1] and self.tracker is not None:
                        self.tracker.literal(column, f"{row.source}:{row.line}")
                    value = found[0]
                elif part != "text" and value.strip()[:1] in ("[", "{"):  # a chunk's text may start with "["
                    raise err(f"contexts[].{part}", f"column '{column}': cannot read {_preview(value)} as a list; "
                                                    f"a cell holds one value, or a list as {mapping.LIST_FORMS}")
            values[part] = value if isinstance(value, list) else [value]
        if not values:
            return None
        lengths = {len(v) for v in values.values()}
        if len(lengths) > 1:
            shown = ", ".join(f"'{self.parts[p]}' ({p}) {len(v)}" for p, v in values.items())
            raise err("contexts[]", f"the mapped columns line up by position, but their lists differ in length: "
                                    f"{shown}")
        contexts = [{part: v[i] for part, v in values.items()} for i in range(lengths.pop())]
        if row.text_cells and "score" in values:  # CSV numbers are text
            for rank, context in enumerate(contexts, start=1):
                context["score"] = _number(context["score"], rank, err)
        return contexts

    # each field is read by genevals.input.rows.values; the names stay on the class, where they have always been
    _contexts = staticmethod(values.contexts)
    _references = staticmethod(values.references)
    _language = staticmethod(values.language)
    _citations = staticmethod(values.citations)
    _relevant = staticmethod(values.relevant)
