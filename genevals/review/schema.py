"""The tables of ``review.sqlite``, version by version (:mod:`genevals.review.store` opens, checks and migrates
them): what each version adds to the one before, and the columns each table must have to be read."""
from __future__ import annotations

import sqlite3

from genevals.review.records import (CITATION_DECISIONS, CITATION_VERDICTS, DECISIONS, ITEM_DECISIONS, ITEM_REASONS,
                                     MAX_NOTE, MAX_REVIEWER)

SCHEMA_VERSION = 5

#: the columns every table of decisions starts with: the row, who decided, when, and on which answer
_DECIDED_COLUMNS = ("id", "reviewer", "time", "system", "sample_id")
_DECIDED = """    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    reviewer    TEXT NOT NULL CHECK (length(reviewer) BETWEEN 1 AND {max_reviewer}),
    time        TEXT NOT NULL,
    system      TEXT NOT NULL,
    sample_id   TEXT NOT NULL,""".format(max_reviewer=MAX_REVIEWER)


def _decisions_table(name: str, decisions: tuple[str, ...], blind: bool, anew: bool = False) -> str:
    """The claim decisions' table as version 1 made it (``blind``: with version 3's column), its CHECK on the
    decision values listing ``decisions``; ``anew``: an error if a table of that name is there already."""
    blind_column = "\n    blind       INTEGER NOT NULL DEFAULT 0 CHECK (blind IN (0, 1))," if blind else ""
    return """CREATE TABLE {exists}{name} (
{decided}
    claim_index INTEGER,
    span_start  INTEGER,
    span_end    INTEGER,
    digest      TEXT NOT NULL,
    decision    TEXT NOT NULL CHECK (decision IN ({decisions})),
    note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= {max_note}),{blind}
    CHECK (claim_index IS NOT NULL OR (span_start IS NOT NULL AND span_end IS NOT NULL))
)""".format(name=name, exists="" if anew else "IF NOT EXISTS ", decided=_DECIDED, max_note=MAX_NOTE,
            decisions=", ".join(f"'{d}'" for d in decisions), blind=blind_column)


#: the decision values versions 1 to 3 accepted (a migration builds what its version built, whatever came later)
_DECISIONS_V1 = ("confirmed", "false_alarm", "unsure", "missed", "withdrawn")
_INDEX = "CREATE INDEX IF NOT EXISTS decisions_sample ON decisions (system, sample_id)"
_SCHEMA = f"{_decisions_table('decisions', _DECISIONS_V1, blind=False)};\n{_INDEX};\n"

#: added in version 2 (a version 1 file gets it when first opened for writing)
_CITATION_SCHEMA = """
CREATE TABLE IF NOT EXISTS citation_decisions (
{decided}
    sentence    INTEGER NOT NULL CHECK (sentence >= 0),
    context     INTEGER NOT NULL CHECK (context >= 0),
    digest      TEXT NOT NULL,
    shown       TEXT NOT NULL CHECK (shown IN ({verdicts})),
    decision    TEXT NOT NULL CHECK (decision IN ({decisions})),
    corrected   TEXT CHECK (corrected IS NULL OR corrected IN ({verdicts})),
    note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= {max_note})
);
CREATE INDEX IF NOT EXISTS citation_decisions_sample ON citation_decisions (system, sample_id);
""".format(decided=_DECIDED, max_note=MAX_NOTE, verdicts=", ".join(f"'{v}'" for v in CITATION_VERDICTS),
           decisions=", ".join(f"'{d}'" for d in CITATION_DECISIONS))
#: added in version 3: whether a decision was made blind (``genevals review --blind``), and the review queue
#: (``--queue N``: :mod:`genevals.review.queue`), drawn once per store
_QUEUE_SCHEMA = """
ALTER TABLE decisions ADD COLUMN blind INTEGER NOT NULL DEFAULT 0 CHECK (blind IN (0, 1));
CREATE TABLE IF NOT EXISTS queue (
    position    INTEGER PRIMARY KEY CHECK (position >= 0),
    system      TEXT NOT NULL,
    sample_id   TEXT NOT NULL,
    stratum     TEXT NOT NULL,
    inclusion_probability REAL NOT NULL CHECK (inclusion_probability > 0 AND inclusion_probability <= 1),
    UNIQUE (system, sample_id)
);
CREATE TABLE IF NOT EXISTS queue_strata (
    stratum     TEXT PRIMARY KEY,
    size        INTEGER NOT NULL CHECK (size >= 0),
    drawn       INTEGER NOT NULL CHECK (drawn >= 0 AND drawn <= size),
    seed        INTEGER NOT NULL,
    time        TEXT NOT NULL
);
"""
#: version 4: ``not_in_answer`` joins the decision values. SQLite cannot alter a CHECK, so a table that holds the
#: CHECK versions 1 to 3 wrote (:func:`rebuild_needed`) is rebuilt: created under another name, filled with every row
#: as it is (ids kept, so the order of decisions and each reviewer's latest one stay), the old one dropped (its
#: index, triggers and sqlite_sequence row with it) and the new one renamed (which renames its sqlite_sequence
#: row); the store runs every step of a migration in one transaction, so a crash leaves version 3 whole, and puts
#: back any trigger of the old table (:data:`REBUILT`). A table of the working name already there (left by hand)
#: stops the migration, rolled back, rather than having rows poured into it.
_ALL_COLUMNS = ("id, reviewer, time, system, sample_id, claim_index, span_start, span_end, digest, decision, note, "
                "blind")
_NOT_IN_ANSWER_SCHEMA = f"""
{_decisions_table('decisions_v4', DECISIONS, blind=True, anew=True)};
INSERT INTO decisions_v4 ({_ALL_COLUMNS}) SELECT {_ALL_COLUMNS} FROM decisions ORDER BY id;
DROP TABLE decisions;
ALTER TABLE decisions_v4 RENAME TO decisions;
{_INDEX};
"""
#: the step that rebuilds a table, and the table
REBUILT = (4, "decisions")
_OLD_CHECK = "decision IN ({})".format(", ".join(f"'{d}'" for d in _DECISIONS_V1))


def rebuild_needed(table_sql: str | None) -> bool:
    """Whether the decisions table (its ``CREATE TABLE`` as sqlite_master holds it) has the CHECK of versions 1 to
    3, which refuses ``not_in_answer``. A table made another way (by hand: no such CHECK) is left as it is."""
    return bool(table_sql) and _OLD_CHECK in table_sql


#: version 5: decisions on the items of a generated test set (``genevals review SET_DIR``): ``system`` is the file
#: the item is in (``kept``: testset.jsonl, ``rejected``: rejected.jsonl), ``sample_id`` the item's id, ``digest``
#: that of its question and reference when decided; an ``invalid`` one has a reason (``other`` with a note)
_ITEM_SCHEMA = """
CREATE TABLE IF NOT EXISTS item_decisions (
{decided}
    digest      TEXT NOT NULL,
    decision    TEXT NOT NULL CHECK (decision IN ({decisions})),
    reason      TEXT CHECK (reason IS NULL OR reason IN ({reasons})),
    note        TEXT NOT NULL DEFAULT '' CHECK (length(note) <= {max_note}),
    blind       INTEGER NOT NULL DEFAULT 0 CHECK (blind IN (0, 1)),
    CHECK ((decision = 'invalid') = (reason IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS item_decisions_item ON item_decisions (system, sample_id);
""".format(decided=_DECIDED, max_note=MAX_NOTE, decisions=", ".join(f"'{d}'" for d in ITEM_DECISIONS),
           reasons=", ".join(f"'{r}'" for r in ITEM_REASONS))

#: what each version adds to the one before (version 1: the claim decisions)
MIGRATIONS = {1: _SCHEMA, 2: _CITATION_SCHEMA, 3: _QUEUE_SCHEMA, 4: _NOT_IN_ANSWER_SCHEMA, 5: _ITEM_SCHEMA}
#: the columns each table must have to be read, from the version that added them on
COLUMNS = (("decisions", 1, (*_DECIDED_COLUMNS, "claim_index", "span_start", "span_end", "digest", "decision",
                              "note")),
            ("citation_decisions", 2, (*_DECIDED_COLUMNS, "sentence", "context", "digest", "shown", "decision",
                                       "corrected", "note")),
            ("decisions", 3, ("blind",)),
            ("queue", 3, ("position", "system", "sample_id", "stratum", "inclusion_probability")),
            ("queue_strata", 3, ("stratum", "size", "drawn", "seed", "time")),
            ("item_decisions", 5, (*_DECIDED_COLUMNS, "digest", "decision", "reason", "note", "blind")))


def steps(db: sqlite3.Connection, version: int) -> list[str]:
    """The statements that bring a store at ``version`` to :data:`SCHEMA_VERSION`, each version's in turn (run in
    one transaction by the store; ``executescript`` would commit between them). The rebuild of :data:`REBUILT`
    is left out when the table has no CHECK to rebuild (:func:`rebuild_needed`), and is followed by the old
    table's triggers, which dropping it dropped."""
    rebuilt_at, table = REBUILT
    out: list[str] = []
    for step in range(version + 1, SCHEMA_VERSION + 1):
        triggers: list[str] = []
        if step == rebuilt_at:
            found = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
            # a table the steps before this one create (a new store) has the old CHECK too
            if found is not None and not rebuild_needed(found[0] if isinstance(found[0], str) else None):
                continue
            triggers = [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND "
                                                 "tbl_name = ? AND sql IS NOT NULL", (table,))]
        out += [statement for statement in MIGRATIONS[step].split(";") if statement.strip()]
        out += triggers
    return out
