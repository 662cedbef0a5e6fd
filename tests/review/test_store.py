"""The decision store: a real SQLite file in a run folder (schema version, WAL, append-only rows, hostile text
kept as data)."""
from __future__ import annotations

import sqlite3

import pytest

from genevals.review.store import SCHEMA_VERSION, Decision, ReviewStore, StoreError, current, read_decisions, store_path

HOSTILE = "Robert'); DROP TABLE decisions;-- <script>window.__xss=1</script>"


def decision(reviewer="ann", claim=0, decision="confirmed", **kw) -> Decision:
    return Decision(reviewer=reviewer, system="dense", sample_id="q1", decision=decision, digest="d" * 64,
                    claim_index=claim, **kw)


def test_a_new_store_is_wal_with_a_schema_version(tmp_path):
    with ReviewStore(tmp_path) as store:
        stored = store.add(decision(note=HOSTILE, reviewer=HOSTILE))
        assert stored.id == 1 and stored.time.endswith("Z")
        assert store.integrity() == "ok"
    db = sqlite3.connect(store_path(tmp_path))
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT count(*) FROM decisions").fetchone()[0] == 1
    db.close()
    [back] = read_decisions(tmp_path)
    assert back.note == HOSTILE and back.reviewer == HOSTILE and back.digest == "d" * 64


def test_rows_are_appended_and_the_latest_per_reviewer_and_claim_counts(tmp_path):
    with ReviewStore(tmp_path) as store:
        store.add(decision("ann", 0, "confirmed"))
        store.add(decision("ann", 0, "false_alarm", note="on second thought"))
        store.add(decision("bob", 0, "unsure"))
        store.add(decision("ann", 1, "confirmed"))
        store.add(decision("ann", 1, "withdrawn"))
        store.add(decision("ann", None, "missed", span=(3, 9)))
        rows = store.all()
    assert len(rows) == 6  # nothing is overwritten
    now = current(rows)
    assert [(d.reviewer, d.claim_index, d.span, d.decision) for d in now] == [
        ("ann", 0, None, "false_alarm"), ("bob", 0, None, "unsure"), ("ann", None, (3, 9), "missed")]


def test_bad_decisions_are_refused_before_they_reach_the_file(tmp_path):
    for bad in ({"reviewer": " "}, {"decision": "maybe"}, {"claim": None}, {"note": "x" * 5000},
                {"reviewer": "r" * 81}, {"claim": None, "decision": "missed", "span": (5, 5)}):
        with pytest.raises(StoreError):
            decision(**bad)
    with pytest.raises(StoreError, match="span"):
        Decision(reviewer="a", system="s", sample_id="i", decision="missed", digest="x", claim_index=2)


def test_a_newer_schema_is_refused_and_a_foreign_file_is_not_read(tmp_path):
    ReviewStore(tmp_path).close()
    db = sqlite3.connect(store_path(tmp_path))
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer"):
        ReviewStore(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    sqlite3.connect(store_path(other)).close()
    with pytest.raises(StoreError, match="not a genevals review store"):
        read_decisions(other)
    assert read_decisions(tmp_path / "none") == []
