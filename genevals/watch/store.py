"""The durable queue of ``genevals watch``: one SQLite file in WAL mode, ``DIR/queue.sqlite``.

Tables: ``spans`` (the spans of traces not yet decided, and of sessions that may continue), ``traces`` (one row
per trace seen: ``waiting``, ``assigned`` to a window, or ``done``), ``decisions`` (each trace's one decision, in
order, until the decision log has them), ``windows`` (``open`` while collecting, ``running`` once closed,
``done`` when scored), ``sessions`` (when each was last seen) and ``follow`` (a followed file's offsets).

The guarantees, each held by one transaction:

- a batch of spans is committed before :meth:`Store.add` returns (the receiver answers 200 after it): a kill -9
  afterwards loses none of them;
- the queue is bounded: a batch that would take the waiting spans past ``limit`` is refused whole
  (:class:`QueueFull`, the receiver's 429); a store that cannot write raises :class:`StoreError` (503);
- a trace gets one decision: deciding it marks it ``done`` in the same transaction, and spans arriving for a
  ``done`` trace are dropped (an exporter's retry, a late span);
- a window's traces are decided ``scored`` (or ``failed``) in the same transaction that marks the window
  ``done`` (:meth:`Store.finish_window`): a restart re-runs a window that was not done, and never one that was;
- a decided trace's spans are deleted, so the file stays the size of what waits (a session's are kept while
  it may continue: its earlier turns are carried into its next window).
"""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Callable, Iterable, Iterator

from genevals.watch.config import StoreError
from genevals.watch.otlp import SpanRecord

__all__ = ["QueueFull", "Store", "StoreError", "Triage"]

#: seconds a quiet session's spans (kept for carrying its turns) are kept after it was last seen
SESSION_KEEP = 24 * 3600.0
#: seconds a decided trace's row is kept (to drop its late spans) before it is purged
DONE_KEEP = 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS spans (trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_id TEXT,
    start_ns INTEGER, body TEXT NOT NULL, PRIMARY KEY (trace_id, span_id));
CREATE TABLE IF NOT EXISTS traces (trace_id TEXT PRIMARY KEY, first_seen REAL NOT NULL, root_at REAL,
    session TEXT, state TEXT NOT NULL, window INTEGER, decided_at REAL);
CREATE INDEX IF NOT EXISTS traces_by_state ON traces (state, window);
CREATE INDEX IF NOT EXISTS traces_by_session ON traces (session);
CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY AUTOINCREMENT, trace_id TEXT NOT NULL,
    decision TEXT NOT NULL, reason TEXT NOT NULL, window INTEGER, time REAL NOT NULL);
CREATE TABLE IF NOT EXISTS windows (number INTEGER PRIMARY KEY, opened REAL NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (session TEXT PRIMARY KEY, last_seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS follow (path TEXT PRIMARY KEY, state TEXT NOT NULL);
"""

#: (decision, reason) for a trace decided as it arrives (sampled out, out of shard), or None to keep it
Triage = Callable[[str], "tuple[str, str] | None"]


class QueueFull(RuntimeError):
    """The batch would take the waiting spans past the queue's limit: the receiver answers 429."""


class Store:
    """The queue at ``path``; one instance per process, shared by the receiver's threads and the loop (one
    connection behind a lock: SQLite serialises writers anyway). A write waits ``busy_timeout`` seconds for a
    lock another process holds on the file, then fails (:class:`StoreError`)."""

    def __init__(self, path: Path, limit: int, busy_timeout: float = 30.0) -> None:
        self.path, self.limit = Path(path), limit
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None,
                                       timeout=busy_timeout)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a commit survives the process being killed; only a power cut may lose the last
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self.waiting = self._db.execute("SELECT count(*) FROM spans").fetchone()[0]
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _tx(self, work: Callable[[sqlite3.Connection], object]) -> object:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    out = work(self._db)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
                return out
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: {exc}") from None

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: {exc}") from None

    def trace_spans(self, traces: list[str]) -> list[tuple[str, str]]:
        """(trace id, span body as JSON text) of every stored span of ``traces``, in start order within each
        query of at most 500 traces (SQLite's bound on a statement's parameters)."""
        rows: list[tuple[str, str]] = []
        for at in range(0, len(traces), 500):
            part = tuple(traces[at:at + 500])
            rows += self._read(f"SELECT trace_id, body FROM spans WHERE trace_id IN ({','.join('?' * len(part))}) "
                               "ORDER BY start_ns", part)
        return rows

    # ingest ----------------------------------------------------------------------------------------------------

    def add(self, records: Iterable[SpanRecord], triage: Triage, now: float) -> int:
        """Commits a batch; returns the spans kept (those of decided traces are dropped). A trace seen for the
        first time is triaged: a decision there and then (its spans never stored), or ``waiting``."""
        by_trace: dict[str, list[SpanRecord]] = {}
        for record in records:
            by_trace.setdefault(record.trace_id, []).append(record)

        def work(db: sqlite3.Connection) -> int:
            rows, roots, sessions = [], [], {}
            for trace, spans in by_trace.items():
                found = db.execute("SELECT state FROM traces WHERE trace_id = ?", (trace,)).fetchone()
                if found is None:
                    decided = triage(trace)
                    state = "waiting" if decided is None else "done"
                    db.execute("INSERT INTO traces (trace_id, first_seen, state, decided_at) VALUES (?, ?, ?, ?)",
                               (trace, now, state, None if decided is None else now))
                    if decided is not None:
                        db.execute("INSERT INTO decisions (trace_id, decision, reason, time) VALUES (?, ?, ?, ?)",
                                   (trace, decided[0], decided[1], now))
                        continue
                elif found[0] == "done":
                    continue
                for span in spans:
                    rows.append((trace, span.span_id, span.parent_id, span.start_ns,
                                 json.dumps(span.body, separators=(",", ":"))))
                    if span.parent_id is None:
                        roots.append(trace)
                    if span.session is not None:
                        sessions[trace] = span.session
            before = db.total_changes
            db.executemany("INSERT OR IGNORE INTO spans VALUES (?, ?, ?, ?, ?)", rows)
            kept = db.total_changes - before  # a retried span is there already: it takes no room
            if self.waiting + kept > self.limit:  # rolled back whole, the trace rows too
                raise QueueFull(f"the queue holds {self.waiting:,} spans; {kept:,} more would pass "
                                f"--queue-limit {self.limit:,}")
            db.executemany("UPDATE traces SET root_at = ? WHERE trace_id = ? AND root_at IS NULL",
                           [(now, t) for t in roots])
            for trace, session in sessions.items():
                db.execute("UPDATE traces SET session = ? WHERE trace_id = ?", (session, trace))
                db.execute("INSERT INTO sessions VALUES (?, ?) ON CONFLICT (session) DO UPDATE SET last_seen = "
                           "excluded.last_seen", (session, now))
            return kept

        kept = self._tx(work)
        self.waiting += kept
        return kept

    # the loop --------------------------------------------------------------------------------------------------

    def ready(self, now: float, grace: float, session_idle: float) -> list[tuple[str, str | None]]:
        """Waiting traces ready to decide, (trace id, session): out of a session, root arrived ``grace`` ago; in
        one, every trace of the session with a root, once the session has been quiet ``session_idle``."""
        return [(t, s) for t, s in self._read(
            "SELECT t.trace_id, t.session FROM traces t LEFT JOIN sessions s ON s.session = t.session "
            "WHERE t.state = 'waiting' AND t.root_at IS NOT NULL AND t.root_at <= ? "
            "AND (t.session IS NULL OR s.last_seen <= ?) ORDER BY t.root_at, t.trace_id",
            (now - grace, now - session_idle))]

    def rootless(self, now: float, max_wait: float) -> list[str]:
        """Waiting traces whose root span has not come ``max_wait`` after their first span did."""
        return [t for (t,) in self._read("SELECT trace_id FROM traces WHERE state = 'waiting' AND root_at IS NULL "
                                         "AND first_seen <= ?", (now - max_wait,))]

    def root_body(self, trace: str) -> dict | None:
        found = self._read("SELECT body FROM spans WHERE trace_id = ? AND parent_id IS NULL LIMIT 1", (trace,))
        return json.loads(found[0][0]) if found else None

    def decide(self, decided: Iterable[tuple[str, str, str]], now: float, window: int | None = None) -> None:
        """Records (trace, decision, reason) for each, marks the trace done, deletes its spans (not a session's)."""
        decided = list(decided)
        self._tx(lambda db: self._decide(db, decided, now, window))

    def _decide(self, db: sqlite3.Connection, decided: list, now: float, window: int | None) -> None:
        for trace, decision, reason in decided:
            db.execute("INSERT INTO decisions (trace_id, decision, reason, window, time) VALUES (?, ?, ?, ?, ?)",
                       (trace, decision, reason, window, now))
            db.execute("UPDATE traces SET state = 'done', decided_at = ? WHERE trace_id = ?", (now, trace))
            before = db.total_changes
            db.execute("DELETE FROM spans WHERE trace_id = ? AND trace_id NOT IN "
                       "(SELECT trace_id FROM traces WHERE trace_id = ? AND session IS NOT NULL)", (trace, trace))
            self.waiting -= db.total_changes - before

    def open_window(self, now: float) -> tuple[int, float, int]:
        """The window collecting traces (opened now when none is): (number, opened, traces assigned)."""
        def work(db: sqlite3.Connection) -> tuple[int, float, int]:
            found = db.execute("SELECT number, opened FROM windows WHERE state = 'open'").fetchone()
            if found is None:
                last = db.execute("SELECT coalesce(max(number), 0) FROM windows").fetchone()[0]
                db.execute("INSERT INTO windows VALUES (?, ?, 'open')", (last + 1, now))
                found = (last + 1, now)
            count = db.execute("SELECT count(*) FROM traces WHERE state = 'assigned' AND window = ?",
                               (found[0],)).fetchone()[0]
            return found[0], found[1], count
        return self._tx(work)  # type: ignore[return-value]

    def current_window(self) -> tuple[int, float, int] | None:
        """The window collecting traces, as :meth:`open_window` gives it; None when none is open."""
        found = self._read("SELECT w.number, w.opened, (SELECT count(*) FROM traces t WHERE t.state = 'assigned' "
                           "AND t.window = w.number) FROM windows w WHERE w.state = 'open'")
        return found[0] if found else None

    def assign(self, traces: Iterable[str], window: int) -> None:
        traces = [(window, t) for t in traces]
        self._tx(lambda db: db.executemany(
            "UPDATE traces SET state = 'assigned', window = ? WHERE trace_id = ? AND state = 'waiting'", traces))

    def close_window(self, number: int) -> None:
        self._tx(lambda db: db.execute("UPDATE windows SET state = 'running' WHERE number = ?", (number,)))

    def running(self) -> list[int]:
        """Windows closed but not scored (a restart after a kill finds them here), oldest first."""
        return [n for (n,) in self._read("SELECT number FROM windows WHERE state = 'running' ORDER BY number")]

    def window_traces(self, number: int) -> list[str]:
        return [t for (t,) in self._read("SELECT trace_id FROM traces WHERE state = 'assigned' AND window = ? "
                                         "ORDER BY rowid", (number,))]

    def window_spans(self, number: int) -> Iterator[tuple[str, dict]]:
        """(trace, span body) of every span the window scores: its traces', and the earlier traces of their
        sessions (carried, so each turn is scored with the turns before it)."""
        rows = self._read(
            "SELECT s.trace_id, s.body FROM spans s JOIN traces t ON t.trace_id = s.trace_id WHERE "
            "(t.state = 'assigned' AND t.window = ?) OR (t.state = 'done' AND t.session IN (SELECT session FROM "
            "traces WHERE state = 'assigned' AND window = ? AND session IS NOT NULL)) ORDER BY t.rowid, s.start_ns",
            (number, number))
        for trace, body in rows:
            yield trace, json.loads(body)

    def finish_window(self, number: int, decided: Iterable[tuple[str, str, str]], now: float) -> None:
        """The window's traces decided and the window ``done``, in one transaction."""
        decided = list(decided)

        def work(db: sqlite3.Connection) -> None:
            self._decide(db, decided, now, number)
            db.execute("UPDATE windows SET state = 'done' WHERE number = ?", (number,))
        self._tx(work)

    def purge(self, now: float) -> None:
        """Forgets what nothing needs: decided traces' rows after :data:`DONE_KEEP`, quiet sessions' spans after
        :data:`SESSION_KEEP`."""
        def work(db: sqlite3.Connection) -> None:
            quiet = "SELECT session FROM sessions WHERE last_seen < ?"
            before = db.total_changes
            db.execute(f"DELETE FROM spans WHERE trace_id IN (SELECT trace_id FROM traces WHERE state = 'done' "
                       f"AND session IN ({quiet}))", (now - SESSION_KEEP,))
            self.waiting -= db.total_changes - before
            db.execute(f"DELETE FROM traces WHERE state = 'done' AND decided_at < ? AND (session IS NULL OR "
                       f"session IN ({quiet}))", (now - DONE_KEEP, now - SESSION_KEEP))
            db.execute("DELETE FROM sessions WHERE last_seen < ?", (now - SESSION_KEEP,))
        self._tx(work)

    # the decision log and the followed file ---------------------------------------------------------------------

    def decisions_after(self, seq: int) -> list[tuple]:
        """(seq, trace, decision, reason, window, time) of the decisions after ``seq``, in order."""
        return self._read("SELECT seq, trace_id, decision, reason, window, time FROM decisions WHERE seq > ? "
                          "ORDER BY seq", (seq,))

    def forget_decisions(self, upto: int) -> None:
        self._tx(lambda db: db.execute("DELETE FROM decisions WHERE seq <= ?", (upto,)))

    def follow_state(self, path: str) -> dict | None:
        found = self._read("SELECT state FROM follow WHERE path = ?", (path,))
        return json.loads(found[0][0]) if found else None

    def save_follow_state(self, path: str, state: dict) -> None:
        self._tx(lambda db: db.execute("INSERT INTO follow VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET state = "
                                       "excluded.state", (path, json.dumps(state))))

    def counts(self) -> dict[str, int]:
        """Traces by state, and the spans waiting (for the status line and the tests)."""
        out = {state: n for state, n in self._read("SELECT state, count(*) FROM traces GROUP BY state")}
        out["spans"] = self._read("SELECT count(*) FROM spans")[0][0]
        return out
