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
from typing import Any, Iterator

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.records import Located, by_trace, documents, expect, lookup, system_of, text_in

QUESTION_KEYS = ("question", "query", "input", "user_input")
ANSWER_KEYS = ("answer", "output", "response", "result", "text", "content")


class _Run:
    def __init__(self, data: dict, line: int, field: str, trace: str | None) -> None:
        self.data, self.line, self.field = data, line, field
        self.id = str(data.get("id"))
        self.parent = data.get("parent_run_id")
        self.trace = str(data.get("trace_id") or trace or (self.id if self.parent is None else ""))
        self.order = str(data.get("dotted_order") or data.get("start_time") or "")


def _flatten(run: Any, source: str, line: int, field: str, trace: str | None, out: list[_Run]) -> None:
    run = expect(run, dict, source, line, field or None, "a LangSmith run object")
    if "run_type" not in run or "id" not in run:
        keys = ", ".join(repr(k) for k in list(run)[:6]) or "no keys"
        raise Located(source, line, field or None, "expected a LangSmith run (an object with 'id', 'run_type', "
                                                   f"'inputs', 'outputs', 'trace_id'), got an object with {keys}")
    flat = _Run(run, line, field, trace)
    if not flat.trace:
        raise Located(source, line, f"{field}.trace_id" if field else "trace_id",
                      "a child run needs its 'trace_id' (the id of its trace's root run)")
    out.append(flat)
    children = run.get("child_runs") or []
    children = expect(children, list, source, line, f"{field}.child_runs" if field else "child_runs", "a list of runs")
    for index, child in enumerate(children):
        _flatten(child, source, line, f"{field}.child_runs[{index}]" if field else f"child_runs[{index}]",
                 flat.trace, out)


def _sample(trace: str, runs: list[_Run], source: str, system_from: str | None) -> dict[str, Any]:
    runs.sort(key=lambda r: r.order)
    ids = {r.id for r in runs}
    root = next((r for r in runs if r.parent is None or str(r.parent) not in ids), runs[0])
    line = root.line
    at = (lambda f: f"{root.field}.{f}" if root.field else f)
    answer = text_in(root.data.get("outputs"), ANSWER_KEYS)
    if answer is None:
        raise Located(source, line, at("outputs"), f"trace {trace}: no answer: expected the root run's 'outputs' "
                      f"to hold text under {'/'.join(ANSWER_KEYS)}")
    contexts = []
    for run in runs:
        if str(run.data.get("run_type", "")).lower() == "retriever" and run.data.get("outputs") is not None:
            contexts += documents(run.data["outputs"], source, run.line,
                                  f"{run.field}.outputs" if run.field else "outputs")
    row = {"id": trace, "question": text_in(root.data.get("inputs"), QUESTION_KEYS), "answer": answer,
           "contexts": contexts}
    metadata = lookup(root.data, "extra.metadata") or {}
    metadata = {"metadata": metadata, **metadata} if isinstance(metadata, dict) else {}
    system = system_of(system_from, [("the root run", root.data), ("its extra.metadata", metadata)], source, line)
    if system is not None:
        row["system"] = system
    return row


def _runs(value: Any, source: str, line: int) -> list[_Run]:
    """A record's runs, its nested child runs included; none of them if one cannot be read."""
    found: list[_Run] = []
    _flatten(value, source, line, "", None, found)
    return found


def rows(path: str | Path, digest: Any, system_from: str | None) -> Iterator[RawRow | InputError]:
    return by_trace(path, digest, "langsmith", _runs, _sample, system_from)
