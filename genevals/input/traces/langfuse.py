"""Langfuse trace exports: one sample per trace.

Read: a trace as the Langfuse UI's "Download JSON" writes it or the public API's ``GET /api/public/traces/{id}``
returns it (https://langfuse.com/faq/all/export-single-trace-or-session, https://api.reference.langfuse.com:
``id``, ``name``, ``input``, ``output``, ``release``, ``version``, ``userId``, ``sessionId``, ``tags``,
``metadata``, and ``observations``, each with ``id``, ``type``, ``name``, ``startTime``,
``parentObservationId``, ``input``, ``output``, ``metadata``); a download that wraps it as ``{"trace": {...},
"observations": [...]}``; a JSON array or JSON Lines of them (the table export); or an API page
``{"data": [...], "meta": {...}}``.

- question: the trace's ``input`` (text, or an object's ``question``/``query``/``input``, or the last chat
  message's ``content``), else its root observation's;
- answer: the trace's ``output`` (text, or an object's ``answer``/``output``/``response``/``content``), else its
  root observation's;
- contexts: the ``output`` of each observation of type ``RETRIEVER`` (Langfuse's observation type for retrieval
  steps), in start order: a list of documents or an object holding one under ``documents`` (or ``docs``,
  ``context``, ``contexts``, ``output``); a document is a string or an object with ``page_content``/``content``/
  ``text`` and, on it or in its ``metadata``, ``id`` and ``score``;
- id: the trace's ``id``; system: ``--system-from PATH``, a dotted path into the trace (``release``,
  ``metadata.system``).

Observations given only as ids (the API's trace list) give no contexts.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.grouping import LINK, link
from genevals.input.traces.records import (Located, documents, expect, keys_of, kind, records, system_of,
                                           text_in)
from genevals.input.traces.sessions import SESSION, START

QUESTION_KEYS = ("question", "query", "input", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "content", "text")


def _traces(value: Any, source: str, line: int) -> list[tuple[str, dict]]:
    """The traces a record holds, each with its field path."""
    if isinstance(value, dict) and isinstance(value.get("data"), list) and "meta" in value:
        return [(f"data[{i}]", t) for i, t in enumerate(value["data"])]
    if isinstance(value, dict) and isinstance(value.get("trace"), dict):
        return [("", {**value["trace"], "observations": value.get("observations",
                                                                  value["trace"].get("observations"))})]
    return [("", value)]


def _sample(trace: Any, source: str, line: int, where: str, system_from: str | None) -> dict[str, Any]:
    def at(f: str) -> str:
        return f"{where}.{f}" if where else f

    trace = expect(trace, dict, source, line, where or None, "a Langfuse trace object")
    if "id" not in trace or not ("input" in trace or "observations" in trace):
        keys = keys_of(trace)
        raise Located(source, line, where or None, "expected a Langfuse trace (an object with 'id', 'input', "
                                                   f"'output' and 'observations'), got an object with {keys}")
    trace_id = trace["id"]
    if isinstance(trace_id, bool) or not isinstance(trace_id, (str, int)) or trace_id == "":
        raise Located(source, line, at("id"), f"expected the trace id, got {kind(trace_id)}")
    observations = trace.get("observations") or []
    observations = expect(observations, list, source, line, at("observations"), "a list of observations")
    full = [(i, o) for i, o in enumerate(observations) if isinstance(o, dict)]
    full.sort(key=lambda io: io[1]["startTime"] if isinstance(io[1].get("startTime"), str) else "")
    roots = [o for _, o in full if not o.get("parentObservationId")]
    question = text_in(trace.get("input"), QUESTION_KEYS)
    answer = text_in(trace.get("output"), ANSWER_KEYS)
    if roots:
        question = question if question is not None else text_in(roots[0].get("input"), QUESTION_KEYS)
        answer = answer if answer is not None else text_in(roots[-1].get("output"), ANSWER_KEYS)
    if answer is None:
        raise Located(source, line, at("output"), f"trace {trace_id}: no answer: expected the trace's 'output' (text, "
                      f"or an object with {'/'.join(ANSWER_KEYS)}), or its root observation's")
    contexts = []
    for index, obs in full:
        if str(obs.get("type", "")).upper() == "RETRIEVER" and obs.get("output") is not None:
            contexts += documents(obs["output"], source, line, at(f"observations[{index}].output"))
    row = {"id": str(trace_id), "question": question, "answer": answer, "contexts": contexts,
           LINK: link(trace_id, roots[0].get("id") if roots else None)}
    if trace.get("sessionId") is not None:
        start = trace.get("timestamp") if isinstance(trace.get("timestamp"), str) else None
        if start is None and full and isinstance(full[0][1].get("startTime"), str):
            start = full[0][1]["startTime"]
        row.update({SESSION: trace["sessionId"], START: start})
    system = system_of(system_from, [("the trace", trace)], source, line)
    if system is not None:
        row["system"] = system
    return row


def rows(path: str | Path, digest: Any, system_from: str | None) -> Iterator[RawRow | InputError]:
    source = str(path)
    for record in records(path, digest, "langfuse"):
        if isinstance(record, InputError):
            yield record
            continue
        line, value = record
        for where, trace in _traces(value, source, line):
            try:
                row = _sample(trace, source, line, where, system_from)
                yield RawRow(source, line, row, trace=row.pop(LINK))
            except Located as exc:
                yield exc
