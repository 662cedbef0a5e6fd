"""LangSmith run exports: one sample per trace.

Read: runs in LangSmith's run data format (https://docs.langchain.com/langsmith/run-data-format: ``id``,
``name``, ``run_type``, ``inputs``, ``outputs``, ``start_time``, ``trace_id``, ``parent_run_id``,
``dotted_order``, ``extra.metadata``, ``tags``), as a JSON array or JSON Lines of runs (``Client.list_runs``
written out) or one root run with its ``child_runs`` nested (``Client.read_run(..., load_child_runs=True)``).
Runs are grouped by ``trace_id`` (the id of the trace's root run; a nested child belongs to its root's trace)
and ordered by ``dotted_order``, else ``start_time``.

- question: the root run's ``inputs`` (``question``/``query``/``input``, or its only text value);
- answer: the root run's ``outputs`` (``answer``/``output``/``response``/``result``, or its only text value);
- contexts: the ``outputs`` of each run with ``run_type`` ``retriever``, in order: ``{"documents": [...]}``
  (LangChain retrievers), ``{"output": [...]}`` (a traced function returning a list) or a list; each document a
  LangChain ``Document`` (``page_content``, ``metadata``, and ``id`` on it or in its metadata), as LangSmith's
  retriever traces expect (https://docs.langchain.com/langsmith/log-retriever-trace);
- id: the trace id; system: ``--system-from PATH``, a dotted path into the root run (``name``), else into its
  ``extra.metadata`` (where ``metadata={...}`` of ``@traceable`` lands; ``system`` and ``metadata.system`` both
  name its ``system``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, NamedTuple

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.grouping import by_trace
from genevals.input.traces.records import Located, documents, expect, keys_of, kind, lookup, pick_system, text_in
from genevals.input.traces.sessions import SESSION, START, THREAD_KEYS

QUESTION_KEYS = ("question", "query", "input", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "result", "text", "content")


class _Run(NamedTuple):
    """What a trace's row needs from one run, read when the run is (its inputs and outputs are not kept whole)."""

    trace: str
    id: str
    parent: str | None
    order: str
    line: int
    field: str
    question: Any  # the text of its inputs
    answer: Any  # the text of its outputs
    contexts: list  # a retriever run's documents
    problem: tuple | None  # a retriever run's unreadable outputs, as Located's arguments (reported if in a row)
    system: Any  # the --system-from value in the run, and in its extra.metadata
    meta_system: Any
    session: Any  # its thread: session_id, thread_id or conversation_id in extra.metadata


def _text(value: Any, source: str, line: int, field: str, what: str, optional: bool = True) -> str | None:
    if (value is None or value == "") and optional:  # as LangSmith writes a root run's parent
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise Located(source, line, field, f"expected {what} (text), got {kind(value)}")
    if value == "":
        raise Located(source, line, field, f"expected {what}, got an empty string")
    return str(value)


def _run(run: dict, source: str, line: int, field: str, trace: str | None, system_from: str | None) -> _Run:
    def at(f: str) -> str:
        return f"{field}.{f}" if field else f

    run_id = _text(run.get("id"), source, line, at("id"), "the run id", optional=False)
    parent = _text(run.get("parent_run_id"), source, line, at("parent_run_id"), "the parent run's id")
    own_trace = _text(run.get("trace_id"), source, line, at("trace_id"), "the trace id")
    trace = own_trace or trace or (run_id if parent is None else None)
    if not trace:
        raise Located(source, line, at("trace_id"), "a child run needs its 'trace_id' (the id of its trace's root run)")
    order = run.get("dotted_order") or run.get("start_time") or ""
    if not isinstance(order, str):
        name = "dotted_order" if run.get("dotted_order") else "start_time"
        raise Located(source, line, at(name), f"expected text (an ISO time), got {kind(order)}")
    contexts, problem = [], None
    if isinstance(run.get("run_type"), str) and run["run_type"].lower() == "retriever" \
            and run.get("outputs") is not None:
        try:
            contexts = documents(run["outputs"], source, line, at("outputs"))
        except Located as exc:
            problem = (exc.source, exc.line, exc.field, exc.message)
    system = meta_system = None
    if system_from:
        system = lookup(run, system_from)
        metadata = lookup(run, "extra.metadata") or {}
        meta_system = lookup({"metadata": metadata, **metadata}, system_from) if isinstance(metadata, dict) else None
    metadata = lookup(run, "extra.metadata")
    thread = next((metadata[k] for k in THREAD_KEYS if metadata.get(k) is not None), None) \
        if isinstance(metadata, dict) else None
    return _Run(trace, run_id, parent, order, line, field, text_in(run.get("inputs"), QUESTION_KEYS),
                text_in(run.get("outputs"), ANSWER_KEYS), contexts, problem, system, meta_system, thread)


def _runs(value: Any, source: str, line: int, system_from: str | None) -> list[_Run]:
    """A record's runs, its nested child runs included (depth first, in order)."""
    found: list[_Run] = []
    stack: list[tuple[Any, str, str | None]] = [(value, "", None)]
    while stack:
        run, field, trace = stack.pop()
        run = expect(run, dict, source, line, field or None, "a LangSmith run object")
        if "run_type" not in run or "id" not in run:
            keys = keys_of(run)
            raise Located(source, line, field or None, "expected a LangSmith run (an object with 'id', 'run_type', "
                                                       f"'inputs', 'outputs', 'trace_id'), got an object with {keys}")
        flat = _run(run, source, line, field, trace, system_from)
        found.append(flat)
        at = f"{field}.child_runs" if field else "child_runs"
        children = expect(run.get("child_runs") or [], list, source, line, at, "a list of runs")
        stack += [(child, f"{at}[{index}]", flat.trace) for index, child in reversed(list(enumerate(children)))]
    return found


def _sample(trace: str, runs: list[_Run], source: str, system_from: str | None) -> dict[str, Any]:
    runs.sort(key=lambda r: r.order)
    ids = {r.id for r in runs}
    root = next((r for r in runs if r.parent is None or r.parent not in ids), runs[0])
    line = root.line
    if root.answer is None:
        raise Located(source, line, f"{root.field}.outputs" if root.field else "outputs", f"trace {trace}: no answer: "
                      f"expected the root run's 'outputs' to hold text under {'/'.join(ANSWER_KEYS)}")
    contexts = []
    for run in runs:
        if run.problem is not None:
            raise Located(*run.problem)
        contexts += run.contexts
    row = {"id": trace, "question": root.question, "answer": root.answer, "contexts": contexts}
    if root.session is not None:
        row.update({SESSION: root.session, START: root.order})
    if system_from is not None:
        row["system"] = pick_system(system_from, [("the root run", root.system),
                                                  ("its extra.metadata", root.meta_system)], source, line)
    return row


def rows(path: str | Path, digest: Any, system_from: str | None) -> Iterator[RawRow | InputError]:
    return by_trace(path, digest, "langsmith", _runs, _sample, system_from, _Run)
