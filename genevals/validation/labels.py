"""Labelled answers for ``genevals validate``: read and check the rows, and their human labels.

Rows carry ``context`` (a string, or a list of strings), ``response``, optional ``question``, the human
label ``hallucinated`` (bool) and optional ``spans: [{start, end}, ...]`` (character offsets into the response;
the RAGTruth schema). ``hallucinated`` may be left out when ``spans`` is given (any span = hallucinated).
A conversation's turn may carry ``history`` (``[{role, content}]``, earlier turns oldest first), ``conversation_id``
and ``turn``: its judges see the history, as in a run.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from genevals.files import refusal
from genevals.types import Context, Sample
from genevals.validation.spans import merge_spans


class LabelledInputError(ValueError):
    pass


#: the roles of a conversation turn's ``history`` messages
HISTORY_ROLES = ("user", "assistant", "system")


# -- input ---------------------------------------------------------------------------------------------------
def load_labelled(path: str | Path, limit: int | None = None, task_type: str | None = None,
                  check=None) -> list[dict[str, Any]]:
    """Read and check a labelled JSONL file (each row by ``check``, by default :func:`check_row`); every bad row
    is named with its line number."""
    check = check or check_row
    rows, errors = [], []
    path = Path(path)
    if path.exists() and (problem := refusal(path)) is not None:  # a pipe or a device: a hang, no end
        raise LabelledInputError(f"{path}: {problem}")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark, as Windows editors write it, as the row readers
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelledInputError(f"{path}: cannot read: {exc}") from None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{lineno}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            errors.append(f"{where}: malformed JSON: {exc}")
            continue
        except RecursionError:  # json's decoder recurses once per level: "[[[[..." would end in a traceback
            errors.append(f"{where}: malformed JSON: nested too deeply")
            continue
        problem = check(row)
        if problem:
            errors.append(f"{where}: {problem}")
            continue
        row = dict(row)
        row.setdefault("id", str(lineno))
        row["_origin"] = where
        rows.append(row)
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise LabelledInputError(f"{len(errors)} bad row(s) in {path}:\n  {shown}")
    if task_type:
        rows = [r for r in rows if str(r.get("task_type")) == task_type]
    if limit is not None:
        rows = rows[:max(0, limit)]
    return rows


def check_row(row: Any) -> str | None:
    if not isinstance(row, dict):
        return "expected a JSON object"
    if not isinstance(row.get("response"), str):
        return "field 'response': missing or not a string"
    ctx = row.get("context")
    if not (isinstance(ctx, str) or (isinstance(ctx, list) and all(isinstance(c, str) for c in ctx))):
        return "field 'context': missing, or not a string / list of strings"
    if row.get("question") is not None and not isinstance(row["question"], str):
        return "field 'question': not a string"
    spans = row.get("spans")
    if spans is not None:
        if not isinstance(spans, list):
            return "field 'spans': expected a list of {start, end}"
        for s in spans:
            if not (isinstance(s, dict) and isinstance(s.get("start"), int) and isinstance(s.get("end"), int)
                    and not isinstance(s.get("start"), bool) and 0 <= s["start"] <= s["end"] <= len(row["response"])):
                return f"field 'spans': bad span {json.dumps(s)[:80]} (need 0 <= start <= end <= len(response))"
    problem = _history_problem(row.get("history"))
    if problem:
        return problem
    label = row.get("hallucinated")
    if label is None and spans is None:
        return "no label: give 'hallucinated' (true/false) or 'spans'"
    if label is not None and not isinstance(label, bool):
        return "field 'hallucinated': expected true or false"
    return None


def _history_problem(history: Any) -> str | None:
    """What is wrong with a row's ``history`` (None: nothing, or no history)."""
    if history is None:
        return None
    if not isinstance(history, list):
        return f"field 'history': expected a list of {{role, content}} messages, got {type(history).__name__}"
    for i, m in enumerate(history):
        if not isinstance(m, dict):
            return f"field 'history[{i}]': expected an object {{role, content}}, got {json.dumps(m)[:80]}"
        if m.get("role") not in HISTORY_ROLES:
            return (f"field 'history[{i}].role': expected one of {', '.join(HISTORY_ROLES)}, "
                    f"got {json.dumps(m.get('role'))[:80]}")
        if not isinstance(m.get("content"), str):
            return f"field 'history[{i}].content': expected text, got {json.dumps(m.get('content'))[:80]}"
    return None


def gold_label(row: Mapping[str, Any]) -> bool:
    if row.get("hallucinated") is not None:
        return bool(row["hallucinated"])
    return bool(row.get("spans"))


def gold_spans(row: Mapping[str, Any]) -> list[tuple[int, int]]:
    return merge_spans((int(s["start"]), int(s["end"])) for s in row.get("spans") or [])


def row_to_sample(row: Mapping[str, Any]) -> Sample:
    ctx = row["context"]
    texts = [ctx] if isinstance(ctx, str) else list(ctx)
    turn = row.get("turn")
    return Sample(id=str(row["id"]), answer=row["response"], question=row.get("question") or "",
                  contexts=tuple(Context(text=t, rank=i + 1) for i, t in enumerate(texts)),
                  system=str(row.get("model") or "default"), origin=row.get("_origin", ""),
                  # a conversation's turn (`genevals review export`): judged with the history the run judged it with
                  history=tuple((m["role"], m["content"]) for m in row.get("history") or ()),
                  conversation_id=None if row.get("conversation_id") is None else str(row["conversation_id"]),
                  turn=turn if isinstance(turn, int) and not isinstance(turn, bool) else None)


def scored(rows: Sequence[dict[str, Any]], metric: Any, to_sample: Callable[[Mapping[str, Any]], Sample],
           batch_size: int, progress: Callable[[int, int], None] | None = None) -> Iterator[tuple[dict, dict]]:
    """(row, the metric's results for it) for each labelled row, scored ``batch_size`` rows to a call;
    ``progress(rows just scored, all rows)`` after each call."""
    for start in range(0, len(rows), batch_size):
        chunk = rows[start:start + batch_size]
        yield from zip(chunk, metric.score([to_sample(r) for r in chunk]))
        if progress:
            progress(len(chunk), len(rows))
