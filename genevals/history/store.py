"""The run history's one file: a SQLite database that every ``genevals run`` adds one row to.

Where it is: ``--history PATH``, else ``$GENEVALS_HISTORY``, else ``$XDG_DATA_HOME/genevals/history.sqlite``
(``~/.local/share/genevals/history.sqlite`` when XDG_DATA_HOME is unset).

Safe for concurrent runs and for runs killed at any moment: the database is in WAL mode, a writer waits up to
:data:`BUSY_SECONDS` for another (``busy_timeout``), and a run is written in one ``BEGIN IMMEDIATE`` transaction
(its row and its per-sample values together or not at all), so a process killed mid-write leaves the last
committed state. The schema's version is ``PRAGMA user_version``; a file written by a newer genevals is refused
rather than misread.

Tables: ``runs`` (one row per run: when, where, input digest, git commit, systems, the summary's means and
intervals as JSON) and ``sample_values`` (per run, system and stored metric: the samples' 64-bit id digests in
ascending order and their values, NaN where unscored, each packed little-endian and zlib-compressed): what a
later ``--baseline`` pairs on.
"""
from __future__ import annotations

import json
import os
import sqlite3
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: the schema this genevals writes (``PRAGMA user_version``)
SCHEMA_VERSION = 1
#: how long a writer waits for another process's transaction before giving up
BUSY_SECONDS = 60.0
ENV = "GENEVALS_HISTORY"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    finished TEXT NOT NULL,
    seconds REAL,
    out_dir TEXT,
    input TEXT,
    input_digest TEXT,
    input_rows INTEGER,
    n_samples INTEGER,
    git_commit TEXT,
    genevals_version TEXT,
    seed INTEGER,
    systems TEXT NOT NULL,
    summary TEXT NOT NULL,
    signatures TEXT NOT NULL,
    thresholds TEXT NOT NULL,
    headline TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sample_values (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    system TEXT NOT NULL,
    metric TEXT NOT NULL,
    n INTEGER NOT NULL,
    keys BLOB NOT NULL,
    vals BLOB NOT NULL,
    PRIMARY KEY (run_id, system, metric)
);
"""


class HistoryError(ValueError):
    """A history that cannot be used (a newer schema, not a SQLite file, no such run); the message names it."""


def default_path() -> Path:
    """``$GENEVALS_HISTORY``, else ``$XDG_DATA_HOME/genevals/history.sqlite`` (XDG default ~/.local/share)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "genevals" / "history.sqlite"


@dataclass(frozen=True)
class RunRecord:
    """One run as the history keeps it. ``summary``: system -> metric -> {mean, ci95, scored, total, coverage};
    ``values``: system -> (sorted uint64 id digests, metric -> float64 values aligned to them, NaN unscored)."""

    started: str
    finished: str
    seconds: float | None
    out_dir: str | None
    input: str | None
    input_digest: str | None
    input_rows: int | None
    n_samples: int
    git_commit: str | None
    genevals_version: str
    seed: int | None
    systems: tuple[str, ...]
    summary: Mapping[str, Mapping[str, Mapping[str, Any]]]
    signatures: Mapping[str, str]
    thresholds: Mapping[str, Mapping[str, float]]
    headline: tuple[str, ...]
    values: Mapping[str, tuple[np.ndarray, Mapping[str, np.ndarray]]] = field(default_factory=dict, repr=False)
    #: set when read back from the history
    id: int | None = None


_JSON_COLUMNS = ("systems", "summary", "signatures", "thresholds", "headline")
_COLUMNS = ("id", "started", "finished", "seconds", "out_dir", "input", "input_digest", "input_rows", "n_samples",
            "git_commit", "genevals_version", "seed") + _JSON_COLUMNS


def _pack(array: np.ndarray, dtype: str) -> bytes:
    return zlib.compress(np.ascontiguousarray(array, dtype=dtype).tobytes(), 1)  # level 1: values are mostly noise


def _unpack(blob: bytes, dtype: str) -> np.ndarray:
    return np.frombuffer(zlib.decompress(blob), dtype=dtype)


class History:
    """The history at ``path``, opened (and created, with its folder) on construction; use as a context manager
    or :meth:`close`."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise HistoryError(f"{self.path}: no run history there (a `genevals run` writes one)")
        if self.path.is_dir():
            raise HistoryError(f"{self.path}: is a folder; --history names the history's SQLite file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are begun here, explicitly (BEGIN IMMEDIATE takes the write lock
        # up front, so two writers queue on busy_timeout instead of failing on a lock upgrade).
        self.db = sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None)
        try:
            self._prepare()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise HistoryError(f"{self.path}: not a genevals history ({exc})") from None

    def _prepare(self) -> None:
        self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        self.db.execute("PRAGMA foreign_keys = ON")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise HistoryError(f"{self.path}: written by a newer genevals (schema {version}; this one reads up to "
                               f"{SCHEMA_VERSION}); upgrade genevals or use another --history")
        if self.db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            self.db.execute("PRAGMA journal_mode = WAL")
        if version < SCHEMA_VERSION:
            with self.transaction():
                if self.db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:  # another process won
                    for statement in _SCHEMA.split(";"):  # not executescript: it would commit first
                        if statement.strip():
                            self.db.execute(statement)
                    self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    class _Transaction:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> None:
            self.db.execute("BEGIN IMMEDIATE")

        def __exit__(self, kind: Any, *exc: object) -> None:
            self.db.execute("COMMIT" if kind is None else "ROLLBACK")

    def transaction(self) -> _Transaction:
        return History._Transaction(self.db)

    def add(self, record: RunRecord) -> int:
        """Write ``record`` (its row and per-sample values, in one transaction) and return its run id."""
        row = {name: getattr(record, name) for name in _COLUMNS if name != "id"}
        for name in _JSON_COLUMNS:
            row[name] = json.dumps(row[name], ensure_ascii=False, allow_nan=False, sort_keys=name != "systems")
        if isinstance(row["seed"], int) and not -2**63 <= row["seed"] < 2**63:  # past SQLite's INTEGER: as text
            row["seed"] = str(row["seed"])
        with self.transaction():
            cursor = self.db.execute(f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                                     tuple(row.values()))
            run_id = int(cursor.lastrowid)
            self.db.executemany(
                "INSERT INTO sample_values (run_id, system, metric, n, keys, vals) VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, system, metric, len(keys), _pack(keys, "<u8"), _pack(values, "<f8"))
                 for system, (keys, columns) in record.values.items() for metric, values in columns.items()])
        return run_id

    def _record(self, row: tuple) -> RunRecord:
        d = dict(zip(_COLUMNS, row))
        for name in _JSON_COLUMNS:
            d[name] = json.loads(d[name])
        d["systems"], d["headline"] = tuple(d["systems"]), tuple(d["headline"])
        if isinstance(d["seed"], str):
            d["seed"] = int(d["seed"])
        return RunRecord(**d)

    def runs(self, limit: int | None = None) -> list[RunRecord]:
        """The runs, oldest first (the last ``limit`` of them), without their per-sample values."""
        query = f"SELECT {', '.join(_COLUMNS)} FROM runs ORDER BY id DESC"
        rows = self.db.execute(query + (f" LIMIT {int(limit)}" if limit else "")).fetchall()
        return [self._record(row) for row in reversed(rows)]

    def ids(self) -> list[int]:
        return [row[0] for row in self.db.execute("SELECT id FROM runs ORDER BY id")]

    def get(self, ref: str | int, *, values: bool = False) -> RunRecord:
        """Run ``ref``: its id, ``latest``, or ``latest~N`` (N runs before the latest); HistoryError naming the
        runs there are when there is none. ``values``: with its per-sample values."""
        run_id = self.resolve(ref)
        record = self._record(self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM runs WHERE id = ?",
                                              (run_id,)).fetchone())
        if not values:
            return record
        found: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
        for system, metric, keys, vals in self.db.execute(
                "SELECT system, metric, keys, vals FROM sample_values WHERE run_id = ? ORDER BY system, metric",
                (run_id,)):
            held = found.setdefault(system, (_unpack(keys, "<u8"), {}))
            held[1][metric] = _unpack(vals, "<f8")
        return RunRecord(**{**record.__dict__, "values": found})

    def resolve(self, ref: str | int) -> int:
        ids = self.ids()
        text = str(ref).strip()
        back = 0
        if text.startswith("latest"):
            rest = text[len("latest"):]
            if rest and not (rest.startswith("~") and rest[1:].isdigit()):
                raise HistoryError(f"run '{ref}': expected a run id, latest or latest~N")
            back = int(rest[1:]) if rest else 0
            if back < len(ids):
                return ids[-1 - back]
        elif text.isdigit() and int(text) in ids:
            return int(text)
        elif not text.isdigit():
            raise HistoryError(f"run '{ref}': expected a run id, latest or latest~N")
        shown = (f"runs {ids[0]} to {ids[-1]}" if len(ids) > 1 else f"run {ids[0]}") if ids else "no runs"
        raise HistoryError(f"run '{ref}': not in the history {self.path} ({shown})")

    def __iter__(self) -> Iterator[RunRecord]:
        return iter(self.runs())
