"""The decision log, ``DIR/decisions.jsonl``: one line per received trace, saying what became of it, so "why was
this trace not scored" has an answer. Each line::

    {"seq": 17, "trace_id": "5b8a...", "decision": "sampled_out", "reason": "hash 0.731 >= --sample 0.1",
     "window": null, "time": "2026-12-02T18:40:01.250Z"}

``decision`` is one of :data:`~genevals.watch.config.DECISIONS`; ``window`` the window folder's number for
``scored`` and ``failed``. The queue (:mod:`~genevals.watch.store`) numbers the decisions (``seq``) in the
transaction that makes them; :func:`sync` appends those after the last ``seq`` the file holds, so a kill between
the append and the queue forgetting them writes no line twice, and a line cut by the kill is completed.
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from genevals.watch.store import Store

NAME = "decisions.jsonl"


def last_seq(path: Path) -> int:
    """The ``seq`` of the file's last complete line (0 for none); a partial last line (a kill mid-write) is cut
    off, so the next append starts on a line of its own."""
    if not path.exists():
        return 0
    with open(path, "rb+") as handle:
        size = handle.seek(0, os.SEEK_END)
        tail = b""
        step = 4096
        while size and b"\n" not in tail[:-1] and len(tail) < size:
            start = max(0, size - len(tail) - step)
            handle.seek(start)
            tail = handle.read(size - start)
        if tail and not tail.endswith(b"\n"):
            keep = size - len(tail) + tail.rfind(b"\n") + 1
            handle.truncate(keep)
            tail = tail[:tail.rfind(b"\n") + 1]
    lines = tail.rstrip(b"\n").split(b"\n")
    if not lines or not lines[-1]:
        return 0
    return int(json.loads(lines[-1])["seq"])


def line(seq: int, trace: str, decision: str, reason: str, window: int | None, time: float) -> str:
    stamp = datetime.fromtimestamp(time, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return json.dumps({"seq": seq, "trace_id": trace, "decision": decision, "reason": reason, "window": window,
                       "time": stamp}, ensure_ascii=False) + "\n"


def sync(store: Store, out: Path) -> int:
    """Appends the queue's decisions not yet in ``out/decisions.jsonl`` (flushed to disk), then lets the queue
    forget them; returns how many lines were written."""
    path = out / NAME
    done = last_seq(path)
    rows = store.decisions_after(done)
    if rows:
        with open(path, "a", encoding="utf-8") as handle:
            handle.writelines(line(*row) for row in rows)
            handle.flush()
            os.fsync(handle.fileno())
        done = rows[-1][0]
    store.forget_decisions(done)
    return len(rows)


def read(out: Path) -> list[dict]:
    """The log's lines (for the tests and for ``why`` questions)."""
    path = out / NAME
    if not path.exists():
        return []
    return [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
