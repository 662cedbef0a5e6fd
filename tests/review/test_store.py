"""The decision store: a real SQLite file in a run folder (schema version, WAL, append-only rows, hostile text
kept as data)."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from genevals.review.store import (
    SCHEMA_VERSION,
    CitationDecision,
    Decision,
    ReviewStore,
    StoreError,
    current,
    read_citation_decisions,
    read_decisions,
    store_path,
)

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


V1_STORE = Path(__file__).resolve().parents[1] / "data" / "review_v1.sqlite"


def citation(reviewer="ann", sentence=0, context=1, decision="confirmed", shown="supported", **kw) -> CitationDecision:
    return CitationDecision(reviewer=reviewer, system="dense", sample_id="q1", sentence=sentence, context=context,
                            shown=shown, decision=decision, digest="c" * 64, **kw)


def test_citation_decisions_round_trip_and_the_latest_per_citation_counts(tmp_path):
    with ReviewStore(tmp_path) as store:
        store.add(decision("ann", 0, "confirmed"))
        stored = store.add_citation(citation(note=HOSTILE))
        assert stored.id == 1 and stored.time.endswith("Z")
        store.add_citation(citation(decision="rejected", corrected="not_supported", note="the chunk is about 1999"))
        store.add_citation(citation("bob", context=2, shown="not_supported"))
        store.add_citation(citation("bob", context=2, shown="not_supported", decision="withdrawn"))
        assert len(store.all()) == 1  # the claim table is untouched
    back = read_citation_decisions(tmp_path)
    assert len(back) == 4 and back[0].note == HOSTILE
    [now] = current(back)
    assert (now.reviewer, now.decision, now.corrected, now.label) == ("ann", "rejected", "not_supported",
                                                                      "not_supported")
    assert citation(shown="not_supported").label == "not_supported"


def test_bad_citation_decisions_are_refused(tmp_path):
    for bad in ({"decision": "false_alarm"}, {"shown": "relevant"}, {"sentence": -1}, {"context": True},
                {"decision": "rejected"}, {"decision": "rejected", "corrected": "supported"},
                {"corrected": "not_supported"}, {"reviewer": ""}, {"note": "\x00"}):
        with pytest.raises(StoreError):
            citation(**bad)


def test_a_version_1_store_is_migrated_in_place_and_keeps_its_decisions(tmp_path):
    """review_v1.sqlite was written by genevals' version 1 store (two decisions: ann confirmed claim 0 of q1,
    bob marked answer text 0-4 missed)."""
    shutil.copy(V1_STORE, store_path(tmp_path))
    assert read_citation_decisions(tmp_path) == []  # read-only, a version 1 file has none (and is not changed)
    db = sqlite3.connect(store_path(tmp_path))
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()
    with ReviewStore(tmp_path) as store:
        assert store.integrity() == "ok"
        store.add_citation(citation())
        old = store.all()
    assert [(d.reviewer, d.decision, d.claim_index, d.span, d.note) for d in old] == [
        ("ann", "confirmed", 0, None, "v1 note"), ("bob", "missed", None, (0, 4), "")]
    db = sqlite3.connect(store_path(tmp_path))
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    [back] = read_citation_decisions(tmp_path)
    assert (back.sentence, back.context, back.decision) == (0, 1, "confirmed")
