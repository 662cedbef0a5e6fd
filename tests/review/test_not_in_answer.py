"""A reviewer can say a claim is *not in the answer* (issue 52, point 1): the judge invented it, so it is no
hallucination of the answer's, as faithfulness never counts a claim it finds ``invented`` against the answer.
The decision needs schema version 4 (the decisions table's CHECK lists the decision values, and SQLite cannot
alter a CHECK): a real version 3 ``review.sqlite``, written by genevals' version 3 store
(tests/data/review_v3.sqlite, made on the demo run with the fixture judge of tests/support/runs.py: ann confirmed
claim 0 of dense/q01 blind, bob called it a false alarm, ann withdrew hers, bob marked text 0-4 of sparse/q03
missed blind, ann confirmed a citation, and a two-answer queue drawn with seed 7), is migrated in place by a real
``genevals review`` process, and the decision then flows through the
server's tally, agreement between reviewers, the judge's precision, ``review export`` (what ``genevals validate``
and the agreement gate read) and the report."""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.review_server import REPO, ReviewProcess
from support.runs import add_judge, embedded, make_run

from genevals.review.claims import load_samples
from genevals.review.store import StoreError, read_store, store_path

V3_STORE = Path(__file__).resolve().parents[1] / "data" / "review_v3.sqlite"


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))


def genevals(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=REPO)


def flagged(run: Path) -> list[tuple[str, str, int]]:
    """(system, sample id, claim index) of every claim the judge flagged, in results order."""
    return [(s.system, s.id, c.index) for s in sorted(load_samples(run).values(), key=lambda s: s.line)
            for c in s.claims if c.flagged]


def test_a_version_3_store_is_migrated_and_takes_not_in_the_answer(judged, tmp_path):
    run = shutil.copytree(judged, tmp_path / "run")
    shutil.copy(V3_STORE, store_path(run))
    before = read_store(run)  # read-only: read as it is, never migrated
    assert sqlite3.connect(store_path(run)).execute("PRAGMA user_version").fetchone()[0] == 3
    system, sample_id, claim = flagged(run)[0]
    server = ReviewProcess(run)
    try:
        status, reply = server.call("POST", "/api/decisions", {"reviewer": "cy", "system": system,
                                                               "sample_id": sample_id, "claim": claim,
                                                               "decision": "not_in_answer", "note": "invented"})
        assert status == 201, reply
        status, reply = server.call("POST", "/api/decisions", {"reviewer": "cy", "system": system,
                                                               "sample_id": sample_id, "claim": claim,
                                                               "decision": "invented"})
        assert status == 400 and "not_in_answer" in reply["error"], reply  # the values it takes, named
    finally:
        server.stop()
    assert "Traceback" not in server.stderr
    after = read_store(run)
    db = sqlite3.connect(store_path(run))
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 5  # migrated through version 4 to the current one
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with pytest.raises(sqlite3.IntegrityError):  # the rebuilt table still checks its values
            db.execute("INSERT INTO decisions (reviewer, time, system, sample_id, claim_index, digest, decision) "
                       "VALUES ('x', 't', 's', 'q', 0, 'd', 'maybe')")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
        assert "decisions_sample" in tables and "decisions_v4" not in tables
    finally:
        db.close()
    # every row of version 3 kept with its id, blind flag and note; the queue and the citation decision too
    assert [d.to_dict() for d in after.decisions[:4]] == [d.to_dict() for d in before.decisions]
    assert [d.id for d in after.decisions] == [1, 2, 3, 4, 5]
    assert [(d.reviewer, d.decision, d.blind) for d in after.decisions] == [
        ("ann", "confirmed", True), ("bob", "false_alarm", False), ("ann", "withdrawn", False),
        ("bob", "missed", True), ("cy", "not_in_answer", False)]
    assert after.citations == before.citations and after.queue == before.queue and after.queue.seed == 7


def test_a_store_newer_than_this_genevals_is_refused_naming_it(judged, tmp_path):
    run = shutil.copytree(judged, tmp_path / "run")
    shutil.copy(V3_STORE, store_path(run))
    db = sqlite3.connect(store_path(run))
    db.execute("PRAGMA user_version = 6")
    db.commit()
    db.close()
    done = genevals("review", "export", run, "-o", tmp_path / "labels.jsonl")
    assert done.returncode == 2 and "schema version 6 is newer than this genevals reads (5)" in done.stderr
    assert "Traceback" not in done.stderr
    with pytest.raises(StoreError):
        read_store(run)


def test_not_in_the_answer_is_never_a_hallucination_and_agrees_with_a_false_alarm(judged, tmp_path):
    run = shutil.copytree(judged, tmp_path / "run")
    claims = flagged(run)
    (s1, q1, c1) = claims[0]
    answers = {(s, q) for s, q, _ in claims}
    server = ReviewProcess(run)
    try:
        def decide(reviewer, system, sample_id, claim, decision):
            status, reply = server.call("POST", "/api/decisions", {"reviewer": reviewer, "system": system,
                                                                   "sample_id": sample_id, "claim": claim,
                                                                   "decision": decision})
            assert status == 201, reply
            return reply
        # every flagged claim of the first answer: ann says not in the answer, bob a false alarm
        first = [(s, q, c) for s, q, c in claims if (s, q) == (s1, q1)]
        for s, q, c in first:
            decide("ann", s, q, c, "not_in_answer")
            state = decide("bob", s, q, c, "false_alarm")
        # a second answer's flagged claims: both confirm
        second = [(s, q, c) for s, q, c in claims if (s, q) == sorted(answers - {(s1, q1)})[0]]
        for s, q, c in second:
            decide("ann", s, q, c, "confirmed")
            state = decide("bob", s, q, c, "confirmed")
    finally:
        server.stop()
    assert "Traceback" not in server.stderr
    n = len(first) + len(second)
    [pair] = state["agreement"]  # both say "no hallucination of the answer's" on the first: they agree
    assert (pair["a"], pair["b"], pair["n"], pair["agree"]) == ("ann", "bob", n, n)
    precision = state["precision"]  # a tie of not_in_answer and false_alarm is "not confirmed" either way
    assert (precision["n"], precision["confirmed"]) == (n, len(second))
    assert precision["precision"] == pytest.approx(len(second) / n)
    # the export: the first answer is not hallucinated (what `validate` and the agreement gate compare with the
    # judge's faithfulness, which leaves out a claim it finds invented); the second is
    done = genevals("review", "export", run, "-o", tmp_path / "labels.jsonl")
    assert done.returncode == 0, done.stderr
    rows = {(r["model"], r["id"]): r for r in map(json.loads, (tmp_path / "labels.jsonl").open(encoding="utf-8"))}
    assert rows[(s1, q1)]["hallucinated"] is False and rows[(s1, q1)]["spans"] == []
    assert rows[second[0][:2]]["hallucinated"] is True
    # three reviewers' strict majority says not in the answer: counted as such, and said in the report
    server = ReviewProcess(run)
    try:
        for s, q, c in first:
            status, _ = server.call("POST", "/api/decisions", {"reviewer": "cy", "system": s, "sample_id": q,
                                                               "claim": c, "decision": "not_in_answer"})
            assert status == 201
        status, state = server.call("GET", "/api/state")
    finally:
        server.stop()
    assert state["precision"]["not_in_answer"] == len(first) and state["precision"]["confirmed"] == len(second)
    done = genevals("report", run)
    assert done.returncode == 0, done.stderr
    review = embedded((run / "report.html").read_text(encoding="utf-8"))["review"]
    assert review["precision"]["not_in_answer"] == len(first)
    assert {d["decision"] for d in review["decisions"]} == {"not_in_answer", "false_alarm", "confirmed"}
