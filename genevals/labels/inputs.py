"""What ``genevals label`` reads: runs (TREC run files, or genevals JSONL/CSV/Parquet rows whose contexts are the
ranking), topics and documents (JSONL ``{id, text}`` or TSV ``id<TAB>text``, as Cranfield's ``queries.tsv`` and
``docs.jsonl``). Every problem is an :class:`~genevals.input.rows.InputError` naming the file, line and field.

A genevals file may hold several systems (``system``): each is one run, named after it. Its rows also give the
topics' text (``question``) and the documents' (each context's ``text``), used where ``--topics`` / ``--docs``
do not give them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from genevals.input import kinds
from genevals.input.rows import InputError

#: the keys read for an id and a text, in order of preference
ID_KEYS = ("id", "_id", "doc_id", "docno", "qid", "query_id")
TEXT_KEYS = ("text", "contents", "body", "query", "question", "title")
#: errors listed before "... and N more"
SHOWN = 20


@dataclass
class Runs:
    """``rankings``: {run name: {topic: [doc ids, best first]}}; ``where``: (run name, topic) -> (file, line of the
    topic's first document); ``topics`` / ``documents``: texts the run files themselves give."""

    rankings: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    where: dict[tuple[str, str], tuple[str, int]] = field(default_factory=dict)
    topics: dict[str, str] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)


def _name(runs: Runs, wanted: str, path: str) -> str:
    # two files named run.trec in different folders are two runs: the second is named after its path
    return wanted if wanted not in runs.rankings else f"{path}:{wanted}"


def _read_trec(path: str, runs: Runs, errors: list[InputError]) -> None:
    from genevals.input.trec import read_run

    found = read_run(path, what="RUN")
    errors.extend(found.errors)
    if not found.rankings and not found.errors:
        errors.append(InputError(path, None, None, "RUN: no topics (the file is empty or blank)"))
    name = _name(runs, Path(path).stem, path)
    ranking = runs.rankings.setdefault(name, {})
    for topic, docs in found.rankings.items():
        ranking[topic] = [doc for doc, _ in docs]
        runs.where[(name, topic)] = (path, found.first_line[topic])


def _read_genevals(path: str, runs: Runs, errors: list[InputError]) -> None:
    from genevals.input.readers import iter_samples

    names: dict[str, str] = {}
    for item in iter_samples(path):
        if isinstance(item, InputError):
            errors.append(item)
            continue
        name = names.setdefault(item.system, _name(runs, item.system, path))
        line = int(item.origin.rpartition(":")[2] or 0)
        keys = []
        for context in sorted(item.contexts, key=lambda c: c.rank):
            key = context.id if context.id is not None else context.doc_id
            if key is None:
                errors.append(InputError(path, line, f"contexts[{context.rank - 1}]",
                                         "a context needs an id or a doc_id to be judged (qrels name documents)"))
                break
            keys.append(key)
            if context.text.strip():
                runs.documents.setdefault(key, context.text)
        runs.rankings.setdefault(name, {})[item.id] = keys
        runs.where[(name, item.id)] = (path, line)
        if item.question.strip():
            runs.topics.setdefault(item.id, item.question)
    if not names and not errors:
        errors.append(InputError(path, None, None, "RUN: no rows (the file is empty or blank)"))


def read_runs(paths: list[str]) -> tuple[Runs, list[InputError]]:
    """The runs in ``paths``, and every problem found in them (a file that cannot be opened raises)."""
    runs, errors = Runs(), []
    for path in paths:
        if kinds.is_row_file(path):  # a row file of any kind genevals reads; any other is a TREC run
            _read_genevals(path, runs, errors)
        else:
            _read_trec(path, runs, errors)
    return runs, errors


def _lines(path: str, what: str) -> Iterator[tuple[int, str]]:
    from genevals.input.source import open_file

    with open_file(path, what) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(path, number, None, f"{what}: invalid UTF-8 at byte {exc.start}") from None
            yield number, text.removeprefix("\ufeff") if number == 1 else text


def _pick(row: dict, keys: tuple[str, ...]) -> tuple[str | None, object]:
    for key in keys:
        if key in row:
            return key, row[key]
    return None, None


def read_texts(path: str, what: str) -> tuple[dict[str, str], list[InputError]]:
    """``{id: text}`` from a JSONL file (``{"id": ..., "text": ...}``; also ``_id``/``doc_id``/``docno`` and
    ``contents``/``body``/``query``/``question``; a ``title`` is put before the text) or a TSV file
    (``id<TAB>text``, by suffix .tsv/.txt or any file whose lines are not JSON objects)."""
    texts: dict[str, str] = {}
    errors: list[InputError] = []
    kind = kinds.kind_of(path)
    jsonl = kind is not None and kind.name == "jsonl"
    for number, line in _lines(path, what):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if jsonl:
            try:
                row = json.loads(line)
            except ValueError as exc:
                errors.append(InputError(path, number, None, f"{what}: not a JSON object ({exc})"))
                continue
            if not isinstance(row, dict):
                errors.append(InputError(path, number, None, f"{what}: expected a JSON object, got "
                                                             f"{type(row).__name__}"))
                continue
            id_key, key = _pick(row, ID_KEYS)
            text_key, text = _pick(row, TEXT_KEYS[:-1] if "title" in row else TEXT_KEYS)
            if id_key is None or not isinstance(key, (str, int)) or isinstance(key, bool) or not str(key).strip():
                errors.append(InputError(path, number, id_key or "id", f"{what}: every line needs an id "
                                         f"(a non-empty string or number under one of {', '.join(ID_KEYS)})"))
                continue
            if text_key is None and "title" in row:
                text_key, text = "title", row["title"]
            if text_key is None or not isinstance(text, str):
                errors.append(InputError(path, number, text_key or "text", f"{what}: every line needs a text "
                                         f"(a string under one of {', '.join(TEXT_KEYS)})"))
                continue
            title = row.get("title") if text_key != "title" else None
            if isinstance(title, str) and title.strip() and not text.startswith(title.strip()):
                text = f"{title.strip()}. {text}"
            key = str(key).strip()
        else:
            key, tab, text = line.rstrip("\r\n").partition("\t")
            key = key.strip()
            if not tab or not key:
                errors.append(InputError(path, number, None, f"{what}: expected 'id<TAB>text', got "
                                         f"{line.strip()[:40]!r}{' (no tab)' if not tab else ''}"))
                continue
        if key in texts:
            errors.append(InputError(path, number, "id", f"{what}: id {key!r} is given twice"))
            continue
        texts[key] = text
    if not texts and not errors:
        errors.append(InputError(path, None, None, f"{what}: no entries (the file is empty or blank)"))
    return texts, errors
