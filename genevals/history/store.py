"""The run history's one file: a SQLite database that every ``genevals run`` adds one row to.

Where it is: ``--history PATH``, else ``$GENEVALS_HISTORY``, else ``$XDG_DATA_HOME/genevals/history.sqlite``
(``~/.local/share/genevals/history.sqlite`` when XDG_DATA_HOME is unset).

Safe for concurrent runs and for runs killed at any moment: the database is in WAL mode, a writer waits up to
:data:`BUSY_SECONDS` for another (``busy_timeout``), and a run is written in one ``BEGIN IMMEDIATE`` transaction
(its row and its per-sample values together or not at all), so a process killed mid-write leaves the last
committed state. The schema's version is ``PRAGMA user_version``; a file written by a newer genevals is refused
rather than misread.

What is not a history is refused before anything is written to it, by name: a path that is empty, a folder, a
FIFO or device, a symbolic link to nothing or a loop; a file that is not SQLite; a SQLite file of something else
(genevals' judge cache, a review store, any file with tables of its own: genevals adds its tables only to an
empty file or to its own history, which it marks with :data:`APPLICATION_ID`). A history is only read by
``genevals history``, ``--baseline`` and ``report --history``, so they open it read-only and can read a file
they may not write. A damaged file or row is a :class:`HistoryError` naming it (``runs`` leaves a damaged row out
and says which in :attr:`History.damaged`).

Tables: ``runs`` (one row per run: when, where, input digest, git commit, systems, the summary's means and
intervals as JSON, and its project folder: :mod:`genevals.history.project`) and ``sample_values`` (per run,
system and stored metric: the samples' 64-bit id digests in ascending order and their values, NaN where
unscored, each packed little-endian and zlib-compressed): what a later ``--baseline`` pairs on.

The ``project`` column came later than schema version 1: a history opened for writing gains it (``ALTER TABLE``,
nullable), and the version stays 1, because a genevals that predates it names the columns it reads and writes,
so it still reads such a history and records its runs without a project. Read-only, a history without the column
reads as runs without a project.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from genevals.history.inputs import Entry
from genevals.history.rows import COLUMNS, JSON_COLUMNS, RowError, RunRecord, pack, record_of, values_of
from genevals.output.terminal import visible

__all__ = ["APPLICATION_ID", "BUSY_SECONDS", "ENV", "SCHEMA_VERSION", "History", "HistoryError", "RunRecord",
           "default_path"]

#: the schema this genevals writes (``PRAGMA user_version``)
SCHEMA_VERSION = 1
#: ``PRAGMA application_id`` of a history ("GEvH"): what tells a history from any other SQLite file
APPLICATION_ID = 0x47457648
#: how long a writer waits for another process's transaction before giving up
BUSY_SECONDS = 60.0
ENV = "GENEVALS_HISTORY"
#: the first bytes of every SQLite database file
_MAGIC = b"SQLite format 3\x00"

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
    headline TEXT NOT NULL,
    project TEXT
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
#: what other SQLite files genevals writes hold, to say which one was given instead of a history
_KNOWN = ((("decisions",), "a genevals review store (the reviewers' decisions of a run folder)"),
          (("citation_decisions",), "a genevals review store (the reviewers' decisions of a run folder)"),
          (("replies",), "genevals' judge cache"))


class HistoryError(ValueError):
    """A history that cannot be used (a newer schema, not a SQLite file, no such run); the message names it."""


def default_path() -> Path:
    """``$GENEVALS_HISTORY``, else ``$XDG_DATA_HOME/genevals/history.sqlite`` (XDG default ~/.local/share)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "genevals" / "history.sqlite"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_path(path: Path, *, create: bool) -> None:
    """HistoryError unless ``path`` (and its -wal, -shm and -journal companions) is a regular file, or, with
    ``create``, nothing yet; its first bytes must be SQLite's (an empty file is a new history)."""
    shown = visible(path)
    try:
        found = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise HistoryError(f"{shown}: a symbolic link to nothing ({visible(os.readlink(path))})") from None
        if not create:
            raise HistoryError(f"{shown}: no run history there (a `genevals run` writes one)") from None
        return
    except OSError as exc:  # a loop of links, a name too long, a file where a folder should be
        raise HistoryError(f"{shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(found.st_mode):
        raise HistoryError(f"{shown}: is a folder; --history names the history's SQLite file")
    if not stat.S_ISREG(found.st_mode):
        raise HistoryError(f"{shown}: is {_kind(found.st_mode)}, not a history file")
    for suffix in ("-wal", "-shm", "-journal"):
        companion = Path(f"{path}{suffix}")
        try:
            mode = companion.lstat().st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            raise HistoryError(f"{visible(companion)}: is {_kind(mode)}; SQLite keeps its {suffix[1:]} file there")
    try:  # O_NONBLOCK: a file that turned into a FIFO since the stat cannot hang the open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            head = os.read(fd, len(_MAGIC))
        finally:
            os.close(fd)
    except OSError as exc:
        if create and isinstance(exc, PermissionError):
            return  # SQLite says it better: the file cannot be opened
        raise HistoryError(f"{shown}: cannot be read ({exc.strerror or exc})") from None
    if head and head != _MAGIC:  # /proc's files say they are empty, and hold text
        raise HistoryError(f"{shown}: not a genevals history (not a SQLite file)")
    if create:  # a run records itself at its end: say now, before scoring, that it could not
        try:
            os.close(os.open(path, os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)))
        except OSError as exc:
            raise HistoryError(f"{shown}: cannot be written ({exc.strerror or exc}); --no-history runs without "
                               "recording") from None


class History:
    """The history at ``path``: with ``create`` opened for writing (created, with its folder, when missing),
    else read-only (HistoryError when there is none). Use as a context manager or :meth:`close`."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        if not str(path).strip():
            raise HistoryError("an empty path: --history names the history's SQLite file")
        self.path = Path(path)
        self.shown = visible(self.path)
        #: the runs :meth:`runs` left out, damaged: "#id (column: why)"
        self.damaged: list[str] = []
        check_path(self.path, create=create)
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HistoryError(f"{self.shown}: cannot create its folder ({exc.strerror or exc})") from None
        if create:  # created here, not by SQLite (0644 whatever the umask): the mode a run folder's files get
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                                 0o666))
            except OSError as exc:
                raise HistoryError(f"{self.shown}: cannot be created ({exc.strerror or exc})") from None
        try:
            self.db = self._connect(create)
        except sqlite3.Error as exc:
            raise HistoryError(self._why(exc)) from None
        try:
            self._prepare(create)
        except sqlite3.Error as exc:
            self.db.close()
            raise HistoryError(self._why(exc)) from None
        except HistoryError:
            self.db.close()
            raise

    def _connect(self, create: bool) -> sqlite3.Connection:
        # isolation_level=None: transactions are begun here, explicitly (BEGIN IMMEDIATE takes the write lock
        # up front, so two writers queue on busy_timeout instead of failing on a lock upgrade).
        if create:
            return sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None)
        uri = f"file:{quote(os.fsencode(self.path.absolute()))}?mode=ro"
        db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
        try:
            db.execute("PRAGMA user_version").fetchone()
            return db
        except sqlite3.OperationalError:
            # a WAL file in a folder this user cannot write (no -shm to share): read it as it stands
            db.close()
            return sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)

    def _why(self, exc: sqlite3.Error) -> str:
        text = str(exc)
        if "not a database" in text:
            return f"{self.shown}: not a genevals history (not a SQLite file)"
        if "malformed" in text or "corrupt" in text:
            return f"{self.shown}: the history is damaged ({text}); move it aside and a run starts a new one"
        return f"{self.shown}: cannot be used as the history ({text})"

    def _identify(self) -> tuple[int, bool]:
        """(its schema version, whether it is empty); HistoryError when it is another program's file."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        application = self.db.execute("PRAGMA application_id").fetchone()[0]
        tables = {name for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        ours = application == APPLICATION_ID or (application == 0 and {"runs", "sample_values"} <= tables)
        if not ours and (tables or application):
            what = next((name for marks, name in _KNOWN if set(marks) <= tables), None)
            listed = ", ".join(visible(t) for t in sorted(tables)[:6]) + (", ..." if len(tables) > 6 else "")
            raise HistoryError(f"{self.shown}: not a genevals history: "
                               + (f"{what}" if what else "a SQLite file of something else")
                               + (f" (tables: {listed})" if tables else f" (application id {application})")
                               + "; give --history a file of its own")
        if version > SCHEMA_VERSION:
            raise HistoryError(f"{self.shown}: written by a newer genevals (schema {version}; this one reads up to "
                               f"{SCHEMA_VERSION}); upgrade genevals or use another --history")
        if version == SCHEMA_VERSION:
            for table, needed in (("runs", COLUMNS), ("sample_values", ("run_id", "system", "metric", "n", "keys",
                                                                         "vals"))):
                held = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
                if not set(needed) <= held:
                    raise HistoryError(f"{self.shown}: the history is damaged (its table {table} lacks "
                                       f"{', '.join(sorted(set(needed) - held))})")
        return version, not tables

    def _prepare(self, create: bool) -> None:
        self.db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        version, empty = self._identify()
        if not create:
            self.empty = version < SCHEMA_VERSION and empty  # nothing written yet: no runs
            return
        self.empty = False
        self.db.execute("PRAGMA foreign_keys = ON")
        if self.db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            self.db.execute("PRAGMA journal_mode = WAL")
        if version < SCHEMA_VERSION:
            with self.transaction():
                if self.db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:  # another process won
                    self._identify()  # what another process wrote meanwhile is checked again
                    for statement in _SCHEMA.split(";"):  # not executescript: it would commit first
                        if statement.strip():
                            self.db.execute(statement)
                    self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if not self._has_project():
            with self.transaction():
                if not self._has_project():  # another process may have added it meanwhile
                    self.db.execute("ALTER TABLE runs ADD COLUMN project TEXT")

    def _has_project(self) -> bool:
        """Whether the runs table has the ``project`` column (a history written before it was kept has not)."""
        return any(row[1] == "project" for row in self.db.execute("PRAGMA table_info(runs)"))

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
        row = {name: getattr(record, name) for name in COLUMNS if name != "id"}
        row["project"] = record.project
        for name in JSON_COLUMNS:
            row[name] = json.dumps(row[name], ensure_ascii=False, allow_nan=False, sort_keys=name != "systems")
        if isinstance(row["seed"], int) and not -2**63 <= row["seed"] < 2**63:  # past SQLite's INTEGER: as text
            row["seed"] = str(row["seed"])
        with self.transaction():
            cursor = self.db.execute(f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                                     tuple(row.values()))
            run_id = int(cursor.lastrowid)
            self.db.executemany(
                "INSERT INTO sample_values (run_id, system, metric, n, keys, vals) VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, system, metric, len(keys), pack(keys, "<u8"), pack(values, "<f8"))
                 for system, (keys, columns) in record.values.items() for metric, values in columns.items()])
        return run_id

    def forget_folder(self, out_dir: str) -> int:
        """Delete the runs recorded with run folder ``out_dir`` (as recorded: resolved) and their values; how many.
        For a watch window scored again after a killed attempt recorded it: the history holds each window once."""
        with self.transaction():
            self.db.execute("DELETE FROM sample_values WHERE run_id IN (SELECT id FROM runs WHERE out_dir = ?)",
                            (out_dir,))
            return self.db.execute("DELETE FROM runs WHERE out_dir = ?", (out_dir,)).rowcount

    def _rows(self, query: str, args: tuple = ()) -> list[tuple]:
        """Every row of ``query``; a damaged file is a HistoryError saying so."""
        if self.empty:
            return []
        try:
            return self.db.execute(query, args).fetchall()
        except sqlite3.Error as exc:
            raise HistoryError(self._why(exc)) from None

    def runs(self, limit: int | None = None) -> list[RunRecord]:
        """The runs, oldest first (the last ``limit`` of them), without their per-sample values; a damaged row is
        left out and named in :attr:`damaged`."""
        query = f"SELECT {', '.join(COLUMNS)} FROM runs ORDER BY id DESC"
        rows = self._rows(query + " LIMIT ?", (limit,)) if limit and limit < 2**62 else self._rows(query)
        found = []
        self.damaged = []
        for row in reversed(rows):
            try:
                found.append(record_of(row))
            except RowError as exc:
                self.damaged.append(f"#{row[0]} ({visible(exc)})")
        return found

    def inputs(self) -> list[Entry]:
        """Each run's id and input keys, oldest first: read alone, so a run whose other columns are damaged is
        still found (and refused by name when :meth:`get` reads it)."""
        try:
            project = "project" if not self.empty and self._has_project() else "NULL"
        except sqlite3.Error as exc:
            raise HistoryError(self._why(exc)) from None
        return [Entry(int(run_id), given if isinstance(given, str) else None,
                      digest if isinstance(digest, str) else None, where if isinstance(where, str) else None)
                for run_id, given, digest, where in self._rows(f"SELECT id, input, input_digest, {project} FROM runs "
                                                               "ORDER BY id")]

    def ids(self) -> list[int]:
        return [row[0] for row in self._rows("SELECT id FROM runs ORDER BY id")]

    def get(self, ref: str | int, *, values: bool = False) -> RunRecord:
        """Run ``ref``: its id, ``latest``, or ``latest~N`` (N runs before the latest); HistoryError naming the
        runs there are when there is none, or the column of its row that is damaged. ``values``: with its
        per-sample values."""
        run_id = self.resolve(ref)
        try:
            record = record_of(self._rows(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE id = ?", (run_id,))[0])
            if not values:
                return record
            found = values_of(self._rows("SELECT system, metric, n, keys, vals FROM sample_values WHERE run_id = ? "
                                         "ORDER BY system, metric", (run_id,)))
        except RowError as exc:
            raise HistoryError(f"{self.shown}: run #{run_id} is damaged ({visible(exc)})") from None
        return RunRecord(**{**record.__dict__, "values": found})

    def resolve(self, ref: str | int) -> int:
        """The id of run ``ref`` (an id, ``latest`` or ``latest~N``)."""
        text = str(ref).strip()
        quoted = visible(text if len(text) <= 40 else text[:40] + "...")
        match = re.fullmatch(r"latest(?:~([0-9]+))?|([0-9]+)", text, re.ASCII)
        if match is None:
            raise HistoryError(f"run '{quoted}': expected a run id, latest or latest~N")
        ids = self.ids()
        back, number = match.groups()
        if number is not None and len(number) < 19 and int(number) in ids:
            return int(number)
        if number is None and (back is None or len(back) < 19):
            back_n = int(back) if back else 0
            if back_n < len(ids):
                return ids[-1 - back_n]
        shown = (f"runs {ids[0]} to {ids[-1]}" if len(ids) > 1 else f"run {ids[0]}") if ids else "no runs"
        raise HistoryError(f"run '{quoted}': not in the history {self.shown} ({shown})")

    def __iter__(self) -> Iterator[RunRecord]:
        return iter(self.runs())
