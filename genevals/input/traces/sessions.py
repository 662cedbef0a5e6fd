"""Traces grouped into conversations by session: OpenInference's ``session.id`` span attribute, Langfuse's
``sessionId`` on a trace, LangSmith's thread (``session_id``, ``thread_id`` or ``conversation_id`` in a run's
``extra.metadata``, the keys LangSmith groups threads by). Each trace is one exchange (its question and its
answer); the traces of one session, ordered by their start time, are its turns, so each is scored with the
earlier ones as its history, exactly as the same exchanges given as flat rows with ``conversation_id`` and
``turn`` (:mod:`genevals.conversations.flat`).

A session's traces may lie anywhere in an export, so the rows of sessions wait until the last one is read
(the readers of OpenInference and LangSmith hold every trace until then anyway); a trace without a session
passes at once, unchanged.
"""
from __future__ import annotations

import numbers
from typing import Any, Iterable, Iterator

from genevals.input.rows import InputError, RawRow
from genevals.input.traces.records import kind

#: the keys under which a reader's row holds its session and its start (taken off here)
SESSION, START = "_session", "_start"
#: LangSmith's thread keys in a run's metadata, in the order LangSmith tries them
THREAD_KEYS = ("session_id", "thread_id", "conversation_id")


def session_id(value: Any) -> str | None:
    """A session id as text (an integer written as text); None for none or an empty one."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    return None


def grouped(raws: Iterable[RawRow | InputError]) -> Iterator[RawRow | InputError]:
    """``raws`` with the rows of each session made the turns of one conversation: ``conversation_id`` the
    session, ``turn`` 1, 2, ... in start order (ties in file order), id ``SESSION:TURN``; the sessions in the
    order they first appear, after the rows without one."""
    held: dict[tuple[str, str], list[tuple[Any, int, int, RawRow]]] = {}
    count = 0
    for raw in raws:
        if isinstance(raw, InputError) or not isinstance(raw.data, dict):
            yield raw
            continue
        given, start = raw.data.pop(SESSION, None), raw.data.pop(START, None)
        if given is None:
            yield raw
            continue
        session = session_id(given)
        if session is None:
            got = "a blank one (whitespace only)" if isinstance(given, str) else kind(given)
            yield InputError(raw.source, raw.line, "session", f"expected a session id (text or an integer), "
                                                               f"got {got}; a trace of no session has none")
            continue
        system = raw.data.get("system") if isinstance(raw.data.get("system"), str) else "default"
        count += 1
        held.setdefault((system, session), []).append((start, raw.line, count, raw))
    for (_, session), rows in held.items():
        # one reader gives one kind of start (nanoseconds, or ISO text): missing ones sort first, in file order
        rows.sort(key=lambda r: (r[0] is not None, r[0] if r[0] is not None else 0, r[1], r[2]))
        for turn, (_, _, _, raw) in enumerate(rows, 1):
            data = {**raw.data, "conversation_id": session, "turn": turn, "id": f"{session}:{turn}"}
            yield RawRow(raw.source, raw.line, data, raw.text_cells, trace=raw.trace, turn=raw.turn)
