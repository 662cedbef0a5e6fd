"""On-disk cache of judge replies (sqlite), so re-running the same evaluation makes no calls.

The key is a sha256 built by :meth:`JudgeClient.cache_key` over backend, model, base URL, prompt hash,
generation parameters, schema and the messages. The API key is never part of the key or the stored value.
Only successful replies are stored (a parse failure is stored too: the reply is what the model said, and
re-asking with identical inputs at temperature 0 would say it again).
"""
from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


class JudgeCache:
    FILE = "judge_cache.sqlite"

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory).expanduser()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / self.FILE
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # a commit without fsync: WAL keeps the file consistent, and what a power cut can lose is only the
            # last replies, which a re-run asks again (a fsync per reply cost ~10 ms: 400 batch answers, 3.9 s)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self._conn.commit()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM replies WHERE key = ?", (key,)).fetchone()
        if not row:
            return None
        try:
            return json.loads(row[0])
        except (TypeError, ValueError):  # a damaged entry is a miss: the judge is asked again
            return None

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO replies (key, value) VALUES (?, ?)",
                               (key, json.dumps(value, ensure_ascii=False)))
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __getstate__(self):  # picklable: reopen on the other side
        return {"directory": str(self.directory)}

    def __setstate__(self, state):
        self.__init__(state["directory"])
