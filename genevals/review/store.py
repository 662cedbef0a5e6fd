"""The reviewers' decisions: append-only tables in ``review.sqlite`` in the run folder.

One row per decision (reviewer, UTC time, system, sample id, claim index or the marked span, the digest of the
claim's text, the decision and a note). A reviewer's latest row for a claim is their current decision
(:func:`current`); ``withdrawn`` takes one back. Rows are never updated or deleted, so two reviewers writing at
once cannot overwrite each other, and the history stays.

Since schema version 2 a second table, ``citation_decisions``, holds decisions on the citation check's verdicts:
one citation is (system, sample id, sentence index, cited context index); the row keeps the verdict shown
(``supported`` / ``not_supported``), ``confirmed`` or ``rejected`` (with the corrected verdict) or
``withdrawn``, the digest of the sentence and the cited chunk, and a note. A version 1 file is migrated in place
when opened for writing (the new table is added; nothing else changes); read-only, it reads as having no
citation decisions.

Durability: WAL journal with ``synchronous=FULL`` and one short ``BEGIN IMMEDIATE`` transaction per insert, so a
process killed mid-write loses at most the row in flight and never leaves a corrupt file; writers from other
processes wait (``busy_timeout``) instead of failing. The schema version is SQLite's ``user_version``; a store
written by a newer genevals is refused rather than misread. Every value goes in as a parameter.
"""
from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

STORE_FILE = "review.sqlite"
SCHEMA_VERSION = 2
#: What a reviewer can say about a claim; ``missed`` marks answer text the judge did not flag.
DECISIONS = ("confirmed", "false_alarm", "unsure", "missed", "withdrawn")
#: Verdict-like decisions (the rest are marks of text, or take a decision back).
CLAIM_DECISIONS = ("confirmed", "false_alarm", "unsure")
#: A citation verdict: does the cited chunk support the sentence (the report's "relevant" / "not relevant")?
CITATION_VERDICTS = ("supported", "not_supported")
CITATION_DECISIONS = ("confirmed", "rejected", "withdrawn")
MAX_REVIEWER = 80
MAX_NOTE = 4000
BUSY_TIMEOUT_MS = 15_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer    TEXT NOT NULL CHECK (length(reviewer) BETWEEN 1 AND {max_reviewer}),
    time        TEXT NOT NULL,
    system      TEXT NOT NULL,
    sample_id   TEXT NOT NULL,
    claim_index INTEGER,
    span_start  INTEGER,
    span_end    INTEGER,
    digest      TEXT NOT NULL,
    decision    TEXT NOT NULL CHECK (decision IN ({decisions})),
    note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= {max_note}),
    CHECK (claim_index IS NOT NULL OR (span_start IS NOT NULL AND span_end IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS decisions_sample ON decisions (system, sample_id);
""".format(max_reviewer=MAX_REVIEWER, max_note=MAX_NOTE, decisions=", ".join(f"'{d}'" for d in DECISIONS))

#: added in version 2 (a version 1 file gets it when first opened for writing)
_CITATION_SCHEMA = """
CREATE TABLE IF NOT EXISTS citation_decisions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer    TEXT NOT NULL CHECK (length(reviewer) BETWEEN 1 AND {max_reviewer}),
    time        TEXT NOT NULL,
    system      TEXT NOT NULL,
    sample_id   TEXT NOT NULL,
    sentence    INTEGER NOT NULL CHECK (sentence >= 0),
    context     INTEGER NOT NULL CHECK (context >= 0),
    digest      TEXT NOT NULL,
    shown       TEXT NOT NULL CHECK (shown IN ({verdicts})),
    decision    TEXT NOT NULL CHECK (decision IN ({decisions})),
    corrected   TEXT CHECK (corrected IS NULL OR corrected IN ({verdicts})),
    note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= {max_note})
);
CREATE INDEX IF NOT EXISTS citation_decisions_sample ON citation_decisions (system, sample_id);
""".format(max_reviewer=MAX_REVIEWER, max_note=MAX_NOTE, verdicts=", ".join(f"'{v}'" for v in CITATION_VERDICTS),
           decisions=", ".join(f"'{d}'" for d in CITATION_DECISIONS))
#: what each version adds to the one before (version 1: the claim decisions)
_MIGRATIONS = {1: _SCHEMA, 2: _CITATION_SCHEMA}


class StoreError(ValueError):
    """A decision that cannot be stored, or a store this version cannot read."""


@dataclass(frozen=True)
class Decision:
    """One reviewer's decision on a claim (``claim_index``) or on marked answer text (``span``, code point
    offsets into the answer, for ``missed``); ``digest`` is :func:`genevals.review.claims.digest` of the claim's
    (or the marked) text when the decision was made."""
    reviewer: str
    system: str
    sample_id: str
    decision: str
    digest: str
    claim_index: int | None = None
    span: tuple[int, int] | None = None
    note: str = ""
    time: str = ""
    id: int | None = None

    def __post_init__(self) -> None:
        _check_reviewer_and_note(self.reviewer, self.note)
        if self.decision not in DECISIONS:
            raise StoreError(f"decision: one of {', '.join(DECISIONS)}, not {str(self.decision)[:40]!r}")
        if self.claim_index is None and self.span is None:
            raise StoreError("a decision names a claim or a span of the answer")
        if self.decision == "missed" and self.span is None:
            raise StoreError("a missed hallucination is marked by a span of the answer")
        if self.span is not None and not (0 <= self.span[0] < self.span[1]):
            raise StoreError("span: need 0 <= start < end")

    @property
    def key(self) -> tuple:
        """What the decision is about: one reviewer, one sample, one claim or one marked span."""
        target = ("claim", self.claim_index) if self.claim_index is not None else ("span", *self.span)
        return (self.reviewer, self.system, self.sample_id, target)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["span"] = list(self.span) if self.span else None
        return out


@dataclass(frozen=True)
class CitationDecision:
    """One reviewer's decision on the citation check's verdict for one citation: sentence ``sentence`` (0-based,
    as in ``citation_recall``'s details) cites context ``context`` (0-based); ``shown`` is the verdict the
    reviewer saw; ``rejected`` carries the verdict the reviewer gives instead (``corrected``). ``digest`` is
    :func:`genevals.review.citations.citation_digest` of the sentence and the chunk when the decision was made."""
    reviewer: str
    system: str
    sample_id: str
    sentence: int
    context: int
    shown: str
    decision: str
    digest: str
    corrected: str | None = None
    note: str = ""
    time: str = ""
    id: int | None = None

    def __post_init__(self) -> None:
        _check_reviewer_and_note(self.reviewer, self.note)
        for name in ("sentence", "context"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise StoreError(f"{name}: a 0-based index, not {str(value)[:40]!r}")
        if self.shown not in CITATION_VERDICTS:
            raise StoreError(f"shown: one of {', '.join(CITATION_VERDICTS)}, not {str(self.shown)[:40]!r}")
        if self.decision not in CITATION_DECISIONS:
            raise StoreError(f"decision: one of {', '.join(CITATION_DECISIONS)} for a citation, "
                             f"not {str(self.decision)[:40]!r}")
        wanted = ({v for v in CITATION_VERDICTS if v != self.shown} if self.decision == "rejected" else {None})
        if self.corrected not in wanted:
            raise StoreError("corrected: the other verdict when rejecting, none otherwise" if self.decision ==
                             "rejected" else f"corrected: only with a rejected verdict, not with {self.decision}")

    @property
    def key(self) -> tuple:
        return (self.reviewer, self.system, self.sample_id, ("citation", self.sentence, self.context))

    @property
    def label(self) -> str | None:
        """The reviewer's verdict on the citation: the one shown when confirmed, the corrected one when rejected."""
        return {"confirmed": self.shown, "rejected": self.corrected}.get(self.decision)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_reviewer_and_note(reviewer: Any, note: Any) -> None:
    if not isinstance(reviewer, str) or not reviewer.strip():
        raise StoreError("reviewer: a name is needed")
    if len(reviewer) > MAX_REVIEWER:
        raise StoreError(f"reviewer: at most {MAX_REVIEWER} characters")
    _check_text("reviewer", reviewer, allowed="")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise StoreError(f"note: text of at most {MAX_NOTE} characters")
    _check_text("note", note, allowed="\t\n\r")


def _check_text(field: str, text: str, allowed: str) -> None:
    """StoreError for text SQLite and UTF-8 cannot hold as given: a lone surrogate (not encodable) or a control
    character other than ``allowed`` (a NUL would end the text for SQLite's ``length`` and fail its CHECK)."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            raise StoreError(f"{field}: character {i + 1} is a lone surrogate (U+{ord(ch):04X}), not text")
        if (ch < " " or "\x7f" <= ch <= "\x9f") and ch not in allowed:
            raise StoreError(f"{field}: character {i + 1} is a control character (U+{ord(ch):04X})")


def _row(row: sqlite3.Row) -> Decision:
    span = (row["span_start"], row["span_end"]) if row["span_start"] is not None else None
    return Decision(reviewer=row["reviewer"], system=row["system"], sample_id=row["sample_id"],
                    decision=row["decision"], digest=row["digest"], claim_index=row["claim_index"], span=span,
                    note=row["note"], time=row["time"], id=row["id"])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def store_path(run_dir: str | Path) -> Path:
    return Path(run_dir) / STORE_FILE


class ReviewStore:
    """The decisions of one run folder. Open one per thread (or request); each call is its own transaction."""

    def __init__(self, run_dir: str | Path, readonly: bool = False) -> None:
        self.path = store_path(run_dir)
        if readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"{self.path}: no review store")
            self._db = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True,
                                       timeout=BUSY_TIMEOUT_MS / 1000)
        else:
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            self._db.close()
            raise StoreError(f"{self.path}: schema version {version} is newer than this genevals reads "
                             f"({SCHEMA_VERSION}); upgrade genevals")
        if not readonly:
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            if version < SCHEMA_VERSION:
                # each version's additions in turn, in one transaction: a crash leaves the old version
                with self._transaction():
                    for step in range(version + 1, SCHEMA_VERSION + 1):
                        for statement in filter(str.strip, _MIGRATIONS[step].split(";")):  # executescript commits
                            self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version == 0:
            self._db.close()
            raise StoreError(f"{self.path}: not a genevals review store (no schema version)")
        self.version = version if readonly else SCHEMA_VERSION

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One ``BEGIN IMMEDIATE`` transaction: committed when the block ends, rolled back on any error."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def add(self, decision: Decision) -> Decision:
        """Store ``decision`` (stamped with the current UTC time) and return it with its id and time."""
        when = _now()
        span = decision.span or (None, None)
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO decisions (reviewer, time, system, sample_id, claim_index, span_start, span_end, "
                "digest, decision, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (decision.reviewer, when, decision.system, decision.sample_id, decision.claim_index, span[0],
                 span[1], decision.digest, decision.decision, decision.note))
        return Decision(**{**decision.__dict__, "time": when, "id": cursor.lastrowid})

    def all(self) -> list[Decision]:
        """Every decision, oldest first."""
        return [_row(r) for r in self._db.execute("SELECT * FROM decisions ORDER BY id")]

    def add_citation(self, decision: CitationDecision) -> CitationDecision:
        """Store a decision on a citation verdict (stamped with the current UTC time); it with its id and time."""
        when = _now()
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO citation_decisions (reviewer, time, system, sample_id, sentence, context, digest, "
                "shown, decision, corrected, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (decision.reviewer, when, decision.system, decision.sample_id, decision.sentence, decision.context,
                 decision.digest, decision.shown, decision.decision, decision.corrected, decision.note))
        return CitationDecision(**{**decision.__dict__, "time": when, "id": cursor.lastrowid})

    def citations(self) -> list[CitationDecision]:
        """Every decision on a citation verdict, oldest first ([] from a version 1 file opened read-only)."""
        if self.version < 2:
            return []
        keys = CitationDecision.__dataclass_fields__
        return [CitationDecision(**{k: r[k] for k in keys})
                for r in self._db.execute("SELECT * FROM citation_decisions ORDER BY id")]

    def integrity(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``ok`` for a sound file."""
        return "; ".join(r[0] for r in self._db.execute("PRAGMA integrity_check"))

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_decisions(run_dir: str | Path) -> list[Decision]:
    """Every stored decision of a run folder ([] when it has no store)."""
    if not store_path(run_dir).exists():
        return []
    with ReviewStore(run_dir, readonly=True) as store:
        return store.all()


def read_citation_decisions(run_dir: str | Path) -> list[CitationDecision]:
    """Every stored decision on a citation verdict of a run folder ([] when it has no store)."""
    if not store_path(run_dir).exists():
        return []
    with ReviewStore(run_dir, readonly=True) as store:
        return store.citations()


def current(decisions: Iterable[Any]) -> list[Any]:
    """Each reviewer's latest decision per claim, marked span or citation (:class:`Decision` or
    :class:`CitationDecision`), in the order they were made; a ``withdrawn`` one takes the decision back."""
    latest: dict[tuple, Any] = {}
    for d in sorted(decisions, key=lambda d: d.id or 0):
        latest.pop(d.key, None)
        if d.decision != "withdrawn":
            latest[d.key] = d
    return sorted(latest.values(), key=lambda d: d.id or 0)


def decision_from_request(body: Mapping[str, Any], digest: str, claim_index: int | None,
                          span: tuple[int, int] | None) -> Decision:
    """A :class:`Decision` from a request's fields (already resolved against the run); StoreError when bad."""
    reviewer, note = body.get("reviewer"), body.get("note", "")
    if not isinstance(reviewer, str):
        raise StoreError("reviewer: a name is needed")
    if not isinstance(note, str):
        raise StoreError("note: expected text")
    return Decision(reviewer=reviewer.strip(), system=str(body.get("system")), sample_id=str(body.get("sample_id")),
                    decision=str(body.get("decision")), digest=digest, claim_index=claim_index, span=span,
                    note=note)
