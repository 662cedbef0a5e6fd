"""The reviewers' decisions: append-only tables in ``review.sqlite`` in the run folder.

One row per decision (reviewer, UTC time, system, sample id, claim index or the marked span, the digest of the
claim's text, the decision and a note). A reviewer's latest row for a claim is their current decision
(:func:`current`); ``withdrawn`` takes one back. Rows are never updated or deleted, so two reviewers writing at
once cannot overwrite each other, and the history stays.

What each schema version added (:mod:`genevals.review.schema`): 2, the ``citation_decisions`` table (one citation
is (system, sample id, sentence index, cited context index); the verdict shown, ``confirmed`` or ``rejected`` with
the corrected verdict, or ``withdrawn``; the digests of the sentence and the cited chunk; a note); 3, whether a
decision was made ``blind`` (before the reviewer saw the judge's verdicts), and the tables ``queue`` and
``queue_strata`` of the review queue (:mod:`genevals.review.queue`: written once, in one transaction, never
changed, since a second draw would void the first one's inclusion probabilities; a queue whose rows disagree is
refused whole); 4, the claim decision ``not_in_answer`` (the judge invented the claim: no hallucination of the
answer's), for which the decisions table is rebuilt, rows and ids kept, as SQLite cannot alter a CHECK; 5, the
``item_decisions`` table of a generated test set's review (:mod:`genevals.review.set_review`). An older
file opened for writing is migrated in one transaction; read-only, it is read as it is.

Durability: WAL journal with ``synchronous=FULL`` and one short ``BEGIN IMMEDIATE`` transaction per insert, so a
process killed mid-write loses at most the row in flight and never leaves a corrupt file; writers from other
processes wait (``busy_timeout``) instead of failing. The schema version is SQLite's ``user_version``; a store
written by a newer genevals is refused rather than misread. Every value goes in as a parameter.

Reading what may be damaged: only a regular file is opened (a folder, FIFO or device would fail or block
SQLite); a file that is not SQLite, is cut short, or holds other tables (a foreign database, the run history)
is refused with a :class:`StoreError` naming it, never migrated; and a row that cannot be a decision (a value of
the wrong type, text that is not UTF-8, a decision the schema does not know) is skipped and counted
(:attr:`ReviewStore.skipped`), so one bad row never hides the others.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from genevals.review.records import (  # noqa: F401 (the store's public names, as before the split)
    CITATION_DECISIONS,
    CITATION_VERDICTS,
    CLAIM_DECISIONS,
    DECISIONS,
    MAX_NOTE,
    MAX_REVIEWER,
    NOT_HALLUCINATED,
    CitationDecision,
    Decision,
    StoreError,
    current,
    decision_from_request,
)

from genevals.review.schema import COLUMNS as _COLUMNS
from genevals.review.schema import steps
from genevals.review.schema import SCHEMA_VERSION

STORE_FILE = "review.sqlite"
BUSY_TIMEOUT_MS = 15_000

class _Undecodable(bytes):
    """Stored text that is not UTF-8: kept apart so the row holding it is skipped, not the whole read."""


def _text_factory(raw: bytes) -> str | bytes:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return _Undecodable(raw)


def _typed(row: sqlite3.Row, texts: tuple[str, ...], ints: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """StoreError unless each of ``texts`` is text and each of ``ints`` an integer (None allowed for the
    ``optional`` ones): what SQLite's loose typing lets a hand-made or damaged file hold."""
    for name in texts + ints:
        value = row[name]
        if value is None and name in optional:
            continue
        wanted = str if name in texts else int
        if type(value) is not wanted:
            raise StoreError(f"{name}: {type(value).__name__} in the store, not {wanted.__name__}")


def _row(row: sqlite3.Row) -> Decision:
    _typed(row, ("reviewer", "time", "system", "sample_id", "digest", "decision", "note"),
           ("id", "claim_index", "span_start", "span_end"), optional=("claim_index", "span_start", "span_end"))
    if (row["span_start"] is None) != (row["span_end"] is None):
        raise StoreError("span: a start without an end")
    span = (row["span_start"], row["span_end"]) if row["span_start"] is not None else None
    blind = row["blind"] if "blind" in row.keys() else 0  # a version 1 or 2 file read-only: none were blind
    if blind not in (0, 1) or type(blind) is not int:
        raise StoreError(f"blind: {blind!r} in the store, not 0 or 1")
    return Decision(reviewer=row["reviewer"], system=row["system"], sample_id=row["sample_id"],
                    decision=row["decision"], digest=row["digest"], claim_index=row["claim_index"], span=span,
                    note=row["note"], time=row["time"], id=row["id"], blind=bool(blind))


def _citation_row(row: sqlite3.Row) -> CitationDecision:
    _typed(row, ("reviewer", "time", "system", "sample_id", "digest", "shown", "decision", "corrected", "note"),
           ("id", "sentence", "context"), optional=("corrected",))
    return CitationDecision(**{k: row[k] for k in CitationDecision.__dataclass_fields__})


def check_file(path: Path) -> None:
    """StoreError unless ``path`` is absent or a regular file (through a link): SQLite would fail on a folder,
    and block on a FIFO or a device."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.lexists(path):
            raise StoreError(f"{path}: a link to nothing, not a review store") from None
        return
    except OSError as exc:  # a loop of links, a name too long, a folder that cannot be searched
        raise StoreError(f"{path}: cannot open the review store: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        raise StoreError(f"{path}: {kind}, not a review store")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Queue:
    """A stored review queue: (system, sample id) in review order with each one's stratum and inclusion
    probability, every stratum's size and count drawn, and the seed it was drawn with."""
    entries: list[tuple[str, str, str, float]]
    sizes: dict[str, int]
    drawn: dict[str, int]
    seed: int

    def position(self) -> dict[tuple[str, str], int]:
        return {(s, i): n for n, (s, i, _, _) in enumerate(self.entries)}


def _queue(rows: list[sqlite3.Row], strata: list[sqlite3.Row]) -> Queue:
    entries = []
    for row in rows:
        _typed(row, ("system", "sample_id", "stratum"), ("position",))
        p = row["inclusion_probability"]
        if type(p) not in (int, float) or not 0 < p <= 1:
            raise StoreError(f"inclusion_probability {p!r}")
        entries.append((row["system"], row["sample_id"], row["stratum"], float(p)))
    sizes, drawn, seeds = {}, {}, set()
    for row in strata:
        _typed(row, ("stratum", "time"), ("size", "drawn", "seed"))
        sizes[row["stratum"]], drawn[row["stratum"]] = row["size"], row["drawn"]
        seeds.add(row["seed"])
    counted: dict[str, int] = {}
    for _, _, stratum, _ in entries:
        counted[stratum] = counted.get(stratum, 0) + 1
    if any(drawn.get(h) != n for h, n in counted.items()) or len(seeds) != 1:
        raise StoreError("its entries do not match its strata")
    return Queue(entries, sizes, drawn, seeds.pop())


def store_path(run_dir: str | Path) -> Path:
    return Path(run_dir) / STORE_FILE


@dataclass(frozen=True)
class Stored:
    """What a run folder's store holds, read in one pass: the decisions that can be read, and how many rows
    could not (:attr:`ReviewStore.skipped`)."""
    decisions: list[Decision]
    citations: list[CitationDecision]
    skipped: int = 0
    #: the review queue, when one was drawn (``genevals review --queue N``)
    queue: Queue | None = None


class ReviewStore:
    """The decisions of one run folder. Open one per thread (or request); each call is its own transaction."""

    def __init__(self, run_dir: str | Path, readonly: bool = False) -> None:
        self.path = store_path(run_dir)
        #: rows the last :meth:`all` / :meth:`citations` skipped because they cannot be decisions
        self.skipped = 0
        check_file(self.path)
        if readonly and not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no review store")
        try:
            if readonly:
                self._db = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True,
                                           timeout=BUSY_TIMEOUT_MS / 1000)
            else:
                self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the review store: {exc}") from None
        try:
            self._open(readonly)
        except BaseException as exc:
            self._db.close()
            if isinstance(exc, sqlite3.Error):  # not SQLite, cut short, read-only when writing, locked ...
                raise StoreError(f"{self.path}: cannot {'read' if readonly else 'open'} the review store: "
                                 f"{exc}") from None
            raise

    def _open(self, readonly: bool) -> None:
        self._db.row_factory = sqlite3.Row
        self._db.text_factory = _text_factory
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version < 0:
            raise StoreError(f"{self.path}: not a genevals review store (schema version {version})")
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: schema version {version} is newer than this genevals reads "
                             f"({SCHEMA_VERSION}); upgrade genevals")
        self._check_schema(version)
        if not readonly:
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            if version < SCHEMA_VERSION:
                self._migrate(version)
        elif version == 0:
            raise StoreError(f"{self.path}: not a genevals review store (no schema version)")
        self.version = version if readonly else SCHEMA_VERSION

    def _migrate(self, version: int) -> None:
        """Each version's additions after ``version`` in turn (:func:`genevals.review.schema.steps`), in one
        transaction: a crash leaves the old version. CHECKs are not applied while rows are copied into a rebuilt
        table: a row of a hand-edited file that cannot be a decision stays, skipped and counted when read as
        before, rather than stopping the migration or being dropped."""
        self._db.execute("PRAGMA ignore_check_constraints = ON")
        try:
            with self._transaction():
                for statement in steps(self._db, version):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        finally:
            self._db.execute("PRAGMA ignore_check_constraints = OFF")

    def _check_schema(self, version: int) -> None:
        """StoreError for a file whose tables are not a review store's: another database (the run history, a
        judge cache: never migrated into one) or a damaged one. Reading sqlite_master also finds a file that
        is not SQLite."""
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version == 0:
            if tables - {"sqlite_sequence"}:
                raise StoreError(f"{self.path}: not a genevals review store (an SQLite file with other tables: "
                                 f"{', '.join(sorted(map(str, tables)))[:200]})")
            return
        for table, since, columns in _COLUMNS:
            if version < since:
                continue
            if table not in tables:
                raise StoreError(f"{self.path}: not a genevals review store (schema version {version}, but no "
                                 f"{table} table)")
            have = {r["name"] for r in self._db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in columns if c not in have]
            if missing:
                raise StoreError(f"{self.path}: its {table} table lacks the column(s) {', '.join(missing)}; "
                                 "not a genevals review store")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One ``BEGIN IMMEDIATE`` transaction: committed when the block ends, rolled back on any error. SQLite's
        refusals (locked past the busy timeout, a file that turned read-only, a trigger or constraint of a file
        edited by hand) become a StoreError naming the file."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot write the review store: {exc}") from None
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):  # nothing to roll back when the COMMIT itself ended it
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"{self.path}: cannot write the review store: {exc}") from None
            raise

    def add(self, decision: Decision) -> Decision:
        """Store ``decision`` (stamped with the current UTC time) and return it with its id and time."""
        when = _now()
        span = decision.span or (None, None)
        row = self.insert("decisions", reviewer=decision.reviewer, time=when, system=decision.system,
                          sample_id=decision.sample_id, claim_index=decision.claim_index, span_start=span[0],
                          span_end=span[1], digest=decision.digest, decision=decision.decision, note=decision.note,
                          blind=int(decision.blind))
        return Decision(**{**decision.__dict__, "time": when, "id": row})

    def insert(self, table: str, **values: object) -> int:
        """One row into ``table`` (a name of the schema's, never a user's) in its own transaction; its id."""
        with self._transaction():
            return self._db.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES "
                                    f"({', '.join('?' * len(values))})", tuple(values.values())).lastrowid

    def all(self) -> list[Decision]:
        """Every decision that can be read, oldest first (the rest skipped and counted in :attr:`skipped`)."""
        return self.rows("SELECT * FROM decisions ORDER BY id", _row)

    def rows(self, query: str, convert) -> list:
        """``convert`` of each row ``query`` reads; a row it refuses (StoreError) is skipped and counted."""
        out, self.skipped = [], 0
        try:
            for row in self._db.execute(query):
                try:
                    out.append(convert(row))
                except StoreError:
                    self.skipped += 1
        except sqlite3.Error as exc:  # a damaged page: the store cannot be read, not one row
            raise StoreError(f"{self.path}: cannot read the review store: {exc}") from None
        return out

    def add_citation(self, decision: CitationDecision) -> CitationDecision:
        """Store a decision on a citation verdict (stamped with the current UTC time); it with its id and time."""
        fields = {k: v for k, v in decision.__dict__.items() if k != "id"} | {"time": _now()}
        return CitationDecision(**fields, id=self.insert("citation_decisions", **fields))

    def citations(self) -> list[CitationDecision]:
        """Every decision on a citation verdict, oldest first ([] from a version 1 file opened read-only)."""
        if self.version < 2:
            self.skipped = 0
            return []
        return self.rows("SELECT * FROM citation_decisions ORDER BY id", _citation_row)

    def read(self, queue: bool = True) -> Stored:
        """Every decision of both kinds that can be read, how many rows could not, and (``queue``) the review
        queue: left out where only the decisions are shown, so a damaged queue stops only what uses it."""
        decisions = self.all()
        skipped = self.skipped
        cited = self.citations()
        return Stored(decisions, cited, skipped + self.skipped, self.queue() if queue else None)

    def queue(self) -> Queue | None:
        """The review queue drawn into this store (None when none was, or the file predates queues); StoreError
        when its rows are damaged: half a sampling design would bias every estimate made from it."""
        if self.version < 3:
            return None
        try:
            rows = self._db.execute("SELECT * FROM queue ORDER BY position").fetchall()
            strata = self._db.execute("SELECT * FROM queue_strata ORDER BY stratum").fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot read the review queue: {exc}") from None
        if not rows and not strata:
            return None
        try:
            return _queue(rows, strata)
        except StoreError as exc:
            raise StoreError(f"{self.path}: the review queue is damaged ({exc}); draw a new one in a new "
                             "store") from None

    def set_queue(self, entries: list, sizes: dict[str, int], seed: int) -> None:
        """Store a queue drawn by :func:`genevals.review.queue.draw` (``entries``) with every stratum's size
        (``sizes``, those with nothing drawn included); StoreError when the store already holds one."""
        drawn: dict[str, int] = {}
        for e in entries:
            drawn[e.stratum] = drawn.get(e.stratum, 0) + 1
        when = _now()
        with self._transaction():
            if self._db.execute("SELECT count(*) FROM queue_strata").fetchone()[0]:
                raise StoreError(f"{self.path}: already holds a review queue")
            for e in entries:
                self._db.execute("INSERT INTO queue (position, system, sample_id, stratum, inclusion_probability) "
                                 "VALUES (?, ?, ?, ?, ?)", (e.position, e.system, e.sample_id, e.stratum,
                                                            e.inclusion_probability))
            for stratum, size in sizes.items():
                self._db.execute("INSERT INTO queue_strata (stratum, size, drawn, seed, time) VALUES (?, ?, ?, ?, ?)",
                                 (stratum, size, drawn.get(stratum, 0), seed, when))

    def integrity(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``ok`` for a sound file."""
        return "; ".join(r[0] for r in self._db.execute("PRAGMA integrity_check"))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_store(run_dir: str | Path, queue: bool = True) -> Stored:
    """The decisions of a run folder (none when it has no store) and, with ``queue``, its review queue;
    StoreError, naming the file, when it cannot be read at all."""
    if not os.path.lexists(store_path(run_dir)):
        return Stored([], [])
    with ReviewStore(run_dir, readonly=True) as store:
        return store.read(queue)


def read_decisions(run_dir: str | Path) -> list[Decision]:
    """Every stored decision of a run folder ([] when it has no store)."""
    return read_store(run_dir, queue=False).decisions


def read_citation_decisions(run_dir: str | Path) -> list[CitationDecision]:
    """Every stored decision on a citation verdict of a run folder ([] when it has no store)."""
    return read_store(run_dir, queue=False).citations
