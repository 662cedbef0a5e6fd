"""Damaged, foreign and hand-edited review stores and hostile request fields, through genevals in real processes
(issue 34, point 8): ``genevals report`` still writes the report and says why the store could not be read;
``review export`` and ``genevals review`` refuse such a store with exit 2 naming it, and never add their tables
to a foreign SQLite file; a bad row is skipped and counted; a request field of the wrong type is a 4xx naming
the field, never a 500."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from http.client import HTTPConnection
from pathlib import Path

import pytest
from support.review_server import REPO, ReviewProcess, annotate_run
from support.runs import embedded

from genevals.api import evaluate

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
ROWS = [{"id": "q1", "question": "What is the capital of France?", "answer": "Paris is the capital of France.",
         "contexts": ["Paris is the capital and largest city of France.", "Lyon is a city in France."],
         "references": ["Paris"]},
        {"id": "q2", "question": "Who wrote Hamlet?", "answer": "Shakespeare wrote Hamlet.",
         "contexts": ["Hamlet is a tragedy written by William Shakespeare."], "references": ["Shakespeare"]}]
#: the version 1 decisions table without its CHECK constraints: what a file edited by hand can hold
V1 = ("CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, reviewer TEXT, time TEXT, system TEXT, "
      "sample_id TEXT, claim_index INTEGER, span_start INTEGER, span_end INTEGER, digest TEXT, decision TEXT, "
      "note TEXT DEFAULT '')")
INSERT = ("INSERT INTO decisions (reviewer, time, system, sample_id, claim_index, digest, decision, note) "
          "VALUES (?, '2026-01-01T00:00:00Z', 'default', 'q1', 0, 'd', ?, '')")


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile-store") / "run"
    evaluate(ROWS, ["exact_match", "token_f1"], out_dir=out)
    annotate_run(out)
    return out


@pytest.fixture
def run(scored, tmp_path) -> Path:
    import shutil

    return shutil.copytree(scored, tmp_path / "run")


def genevals(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-m", "genevals", *argv], capture_output=True, text=True, env=ENV,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"genevals {' '.join(argv)} ran past {timeout} s (served, or blocked, instead of refusing)")


def sql(path: Path, *statements: tuple, version: int) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(*statement)
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


def truncated(path: Path) -> None:
    sql(path, (V1,), *((INSERT, ("r" * 60, "unsure")) for _ in range(400)), version=1)
    os.truncate(path, path.stat().st_size // 2)


UNREADABLE = {
    "garbage": lambda p: p.write_bytes(bytes(range(256)) * 8),
    "truncated": truncated,
    "folder": lambda p: p.mkdir(),
    "v1-without-decisions": lambda p: sql(p, ("CREATE TABLE other (x)",), version=1),
    "v1-decisions-different": lambda p: sql(p, ("CREATE TABLE decisions (id INTEGER PRIMARY KEY, foo TEXT)",),
                                            version=1),
}


@pytest.mark.parametrize("kind", list(UNREADABLE))
def test_the_report_is_written_over_a_store_it_cannot_read_and_says_why(run, kind):
    UNREADABLE[kind](run / "review.sqlite")
    done = genevals("report", str(run))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "warning" in done.stderr and str(run / "review.sqlite") in done.stderr
    review = embedded((run / "report.html").read_text(encoding="utf-8"))["review"]
    assert "review.sqlite" in review["unreadable"] and review["decisions"] == []


@pytest.mark.parametrize("kind", ["garbage", "truncated", "folder", "v1-decisions-different"])
def test_export_and_the_server_refuse_a_store_they_cannot_read_naming_it(run, kind, tmp_path):
    UNREADABLE[kind](run / "review.sqlite")
    for argv in (("review", "export", str(run), "-o", str(tmp_path / "labels.jsonl")),
                 ("review", str(run), "--port", "0")):
        done = genevals(*argv, timeout=30)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (argv, done.stderr)
        assert "error" in done.stderr and str(run / "review.sqlite") in done.stderr, (argv, done.stderr)


@pytest.mark.parametrize("tables", [("CREATE TABLE cache (key TEXT PRIMARY KEY, value BLOB)",),
                                    ("CREATE TABLE runs (id INTEGER PRIMARY KEY)",)])
def test_a_foreign_sqlite_file_is_refused_and_left_as_it_was(run, tables):
    """A judge cache or a run history copied to review.sqlite: never migrated into a review store."""
    path = run / "review.sqlite"
    sql(path, *((t,) for t in tables), version=1 if "runs" in tables[0] else 0)
    before = path.read_bytes()
    done = genevals("review", str(run), "--port", "0", timeout=30)
    assert done.returncode == 2 and "not a genevals review store" in done.stderr, done.stderr
    assert path.read_bytes() == before


def test_a_bad_row_is_skipped_and_counted_by_report_export_and_server(run, tmp_path):
    sql(run / "review.sqlite", (V1,), (INSERT, ("ann", "confirmed")), (INSERT, ("bob", "maybe")),
        (INSERT.replace("'d'", "X'00'"), ("cy", "confirmed")), version=1)
    done = genevals("report", str(run))
    assert done.returncode == 0 and "2 row(s)" in done.stderr, done.stderr
    review = embedded((run / "report.html").read_text(encoding="utf-8"))["review"]
    assert review["skipped"] == 2 and [d["reviewer"] for d in review["decisions"]] == ["ann"]
    done = genevals("review", "export", str(run), "-o", str(tmp_path / "labels.jsonl"))
    assert done.returncode == 0 and "2 row(s)" in done.stderr, done.stderr
    server = ReviewProcess(run)
    try:
        status, state = server.call("GET", "/api/state")
        assert status == 200 and state["skipped"] == 2 and len(state["decisions"]) == 1
    finally:
        server.stop()
    assert "Traceback" not in server.stderr


def raw_request(server: ReviewProcess, method: str, headers: dict, body: bytes = b"") -> tuple[int, dict]:
    port = int(server.url.rstrip("/").rsplit(":", 1)[1])
    conn = HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest(method, "/api/decisions", skip_accept_encoding=True)
    for key, value in {"X-Genevals-Token": server.token, "Content-Type": "application/json", **headers}.items():
        conn.putheader(key, value)
    conn.endheaders(body)
    response = conn.getresponse()
    reply = response.status, json.loads(response.read())
    conn.close()
    return reply


def test_hostile_request_fields_get_a_4xx_naming_the_field(run):
    server = ReviewProcess(run)
    cite = {"reviewer": "ann", "system": "default", "sample_id": "q1", "decision": "confirmed",
            "citation": {"sentence": 0, "context": 0}}
    try:
        for field in ("context", "sentence"):
            for value in ([], {}, 0.0, "0", None, True):
                status, reply = server.call("POST", "/api/decisions",
                                            {**cite, "citation": {**cite["citation"], field: value}})
                assert status == 400 and reply["error"].startswith(f"citation.{field}:"), (field, value, reply)
        for field, value in (("claim", []), ("claim", 0.5), ("system", ["default"]), ("sample_id", {}),
                             ("span", [0.0, 3])):
            body = {"reviewer": "ann", "system": "default", "sample_id": "q1", "decision": "confirmed", "claim": 0,
                    **({"claim": None, "decision": "missed"} if field == "span" else {}), field: value}
            status, reply = server.call("POST", "/api/decisions", body)
            assert status == 400 and reply["error"].startswith(field), (field, value, reply)
        status, reply = server.call("POST", "/api/decisions", data=b'{"system": "default", "sample_id": "q1", '
                                    b'"citation": {"sentence": 0, "context": ' + b"7" * 5000 + b"}}")
        assert status == 400 and reply["error"].startswith("citation.context"), reply
        assert server.call("POST", "/api/decisions", cite)[0] == 201
        body = json.dumps(cite).encode()
        for length in ("\u00b2", "9" * 5000):
            status, reply = raw_request(server, "POST", {"Content-Length": length.encode("utf-8").decode("latin-1")},
                                        body)
            assert status in (411, 413) and reply["error"].startswith("Content-Length"), (length[:5], reply)
        status, reply = raw_request(server, "PUT", {"Content-Length": str(len(body))}, body)
        assert status == 405 and "PUT" in reply["error"], reply
    finally:
        server.stop()
    assert "Traceback" not in server.stderr and "error:" not in server.stderr, server.stderr


def test_a_store_that_refuses_writes_is_a_clear_server_error_naming_it(run):
    """A store edited by hand with a trigger that aborts every insert: the server's own failure (500), said in
    JSON with the file's name, no traceback; reading it still works."""
    sql(run / "review.sqlite", (V1,), ("CREATE TABLE citation_decisions (id INTEGER PRIMARY KEY, reviewer, time, "
                                       "system, sample_id, sentence, context, digest, shown, decision, corrected, "
                                       "note)",),
        ("CREATE TRIGGER no_writes BEFORE INSERT ON decisions BEGIN SELECT RAISE(ABORT, 'read only by policy'); "
         "END",), version=2)
    server = ReviewProcess(run)
    try:
        assert server.call("GET", "/api/state")[0] == 200
        status, reply = server.call("POST", "/api/decisions", {"reviewer": "ann", "system": "default",
                                                               "sample_id": "q1", "claim": 0,
                                                               "decision": "confirmed"})
        assert status == 500 and "review.sqlite" in reply["error"] and "read only by policy" in reply["error"]
    finally:
        server.stop()
    assert "Traceback" not in server.stderr
