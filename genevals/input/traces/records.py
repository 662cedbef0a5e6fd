"""What the trace readers share: the records of an export file (a JSON document, a JSON array of records, or
JSON Lines), each with the line it starts on, and the pieces of a sample found in them (text, documents, a
dotted attribute path). Every problem is an :class:`~genevals.input.rows.InputError` naming the file, the line and
the field."""
from __future__ import annotations

import json
import numbers
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from genevals.input.rows import InputError
from genevals.input.source import open_file
from genevals.input.traces import stream


class Located(InputError):
    """An InputError raised while one record is read: the reader yields it as that record's error."""


def records(path: str | Path, digest: Any, what: str) -> Iterator[tuple[int, Any] | InputError]:
    """The export's records, each ``(line, value)``, read as a stream (:mod:`~genevals.input.traces.stream`):
    the elements of a top-level JSON array, the one JSON document the file holds, or each line of a JSON Lines
    file. ``what`` names the format for errors."""
    with open_file(path, f"--from {what}") as handle:
        yield from stream.records(handle, digest, str(path), what)


def kind(value: Any) -> str:
    """A JSON value's kind, for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, numbers.Number):
        return "a number"
    return {str: "a string", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def expect(value: Any, want: type, source: str, line: int, field: str, expected: str) -> Any:
    """``value`` when it is a ``want``; else a :class:`Located` error saying what was expected there."""
    if not isinstance(value, want) or isinstance(value, bool) and want is not bool:
        raise Located(source, line, field, f"expected {expected}, got {kind(value)}")
    return value


def lookup(obj: Any, path: str) -> Any:
    """``obj``'s value at the dotted ``path`` (``metadata.system``), or None when it has none. A key may itself
    hold dots (OpenTelemetry attributes are flat: ``{"metadata.system": ...}``), and a string holding a JSON
    object is looked into (OpenInference keeps ``metadata`` as JSON text). The keys tried at each level are those
    of the object that begin the path, longest first: the work follows the object, not the number of parts in
    the path (``--system-from`` of 30,000 parts); depth first without recursion."""
    todo = [(obj, path)]
    while todo:
        obj, path = todo.pop()
        if isinstance(obj, str) and obj.lstrip().startswith("{"):
            try:
                obj = json.loads(obj)
            except (ValueError, RecursionError):
                continue
        if not isinstance(obj, Mapping):
            continue
        if path in obj:
            if obj[path] is not None:
                return obj[path]
            continue
        heads = sorted((key for key in obj if type(key) is str and path.startswith(key)
                        and path[len(key):len(key) + 1] == "."), key=len)
        todo.extend((obj[head], path[len(head) + 1:]) for head in heads)  # the longest is taken first
    return None


def text_in(value: Any, keys: Sequence[str]) -> str | None:
    """The text ``value`` holds: itself when a string; in an object, its first of ``keys`` that is a string,
    else its only value when that is a string; in a list of chat messages (``role``/``content``), the last
    one's content. None when there is none."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key in keys:
            if isinstance(value.get(key), str):
                return value[key]
        if "content" in value and "role" in value and isinstance(value["content"], str):
            return value["content"]
        strings = [v for v in value.values() if isinstance(v, str)]
        if len(value) == 1 and strings:
            return strings[0]
    if isinstance(value, list) and value and all(isinstance(m, Mapping) and "content" in m for m in value):
        return text_in(value[-1], ("content",))
    return None


#: where a retrieved document keeps its text, in the order tried (LangChain's Document, then common names)
DOC_TEXT = ("page_content", "pageContent", "content", "text")
#: where an object holding a list of documents keeps it
DOC_LISTS = ("documents", "docs", "context", "contexts", "output")


def documents(value: Any, source: str, line: int, field: str) -> list[dict[str, Any]]:
    """Retrieved documents as genevals contexts (text, id, score): ``value`` is a list of documents, or an
    object holding one under one of :data:`DOC_LISTS`. A document is a string, or an object with its text under
    one of :data:`DOC_TEXT` and its ``id`` and ``score`` on it or in its ``metadata``."""
    if isinstance(value, Mapping):
        found = next((k for k in DOC_LISTS if isinstance(value.get(k), list)), None)
        if found is None:
            raise Located(source, line, field, "expected a list of documents, or an object holding one under "
                                               f"{' or '.join(repr(k) for k in DOC_LISTS)}; got an object with "
                                               f"{keys_of(value)}")
        value, field = value[found], f"{field}.{found}"
    value = expect(value, list, source, line, field, "a list of documents")
    contexts = []
    for index, doc in enumerate(value):
        where = f"{field}[{index}]"
        if isinstance(doc, str):
            contexts.append({"text": doc})
            continue
        doc = expect(doc, dict, source, line, where, "a document (a string or an object)")
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
        text = next((doc[k] for k in DOC_TEXT if isinstance(doc.get(k), str)), None)
        doc_id = doc.get("id") if doc.get("id") is not None else meta.get("id")
        score = doc.get("score") if doc.get("score") is not None else meta.get("score")
        if text is None and doc_id is None:
            raise Located(source, line, where, f"expected the document's text under {' or '.join(DOC_TEXT)} "
                                               "(or at least an 'id')")
        context = {"text": text, "id": doc_id if doc_id is None or isinstance(doc_id, str) else str(doc_id),
                   "score": score}
        contexts.append({k: v for k, v in context.items() if v is not None})
    return contexts


def system_of(path: str | None, places: Sequence[tuple[str, Any]], source: str, line: int) -> str | None:
    """The system named at the dotted ``path`` (``--system-from``) in the first of ``places`` (label, object)
    holding it; None without a path. A path found nowhere, or not holding text, is an error naming it."""
    if path is None:
        return None
    return pick_system(path, [(label, lookup(obj, path)) for label, obj in places], source, line)


#: places named in a "not found" message, at most
_NAMED = 8


def pick_system(path: str, found: Sequence[tuple[str, Any]], source: str, line: int) -> str:
    """The first value found at ``path`` (``--system-from``) in ``found`` (label, value or None) as the
    system's name; an error naming the path when none holds one, or the first one found is not text."""
    named = path if len(path) <= 80 else f"{path[:80]}..."  # a path of 30,000 parts is not quoted whole
    for _, value in found:
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise Located(source, line, named, f"--system-from: expected text, got {kind(value)}")
        return str(value)
    labels = [label for label, _ in found]
    if len(labels) > _NAMED:  # a trace of 10^5 spans is not listed whole either
        labels = labels[:_NAMED - 1] + [f"{len(labels) - _NAMED} more spans", labels[-1]]
    raise Located(source, line, named, f"--system-from: no attribute '{named}' in {', '.join(labels)}")


def keys_of(obj: Mapping) -> str:
    """An object's first keys, as a message names them (each cut to 40 characters)."""
    return ", ".join(repr(k if len(k) <= 40 else k[:40] + "...") for k in list(obj)[:6]) or "no keys"


def shown(value: Any, limit: int = 60) -> str:
    """A value as a message quotes it: its JSON text, cut to ``limit`` characters, non-ASCII escaped."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = kind(value)
    return text if len(text) <= limit else text[:limit] + "..."
