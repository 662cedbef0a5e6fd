"""Cases: issue52j (issue 52, points 1 and 10g): the surfaces the "not in the answer" decision and the project
scope of ``--baseline latest`` added.

* **Version 3 stores migrated to version 4** (the decisions table rebuilt, since SQLite cannot alter the CHECK that
  lists the decision values), each a real version 3 file (tests/data/review_v3.sqlite) edited as a person or
  another tool might: rows a CHECK would refuse (kept, skipped and counted when read, as before), a trigger on the
  table (put back after the rebuild), a leftover table of the rebuild's working name or a view over the table (the
  migration cannot finish: the server refuses the store naming it, rolled back to version 3, never half migrated),
  a decisions table made by hand without the CHECK (left as it is). Export reads every one without migrating it.
* **Projects**: a history whose ``project`` column holds no text (a number, a blob, 100 KB of text) and an input
  folder whose ``.git`` is a FIFO, a folder of nothing or a file pointing nowhere: ``--baseline latest`` answers
  (a baseline or a refusal naming it) well inside its limit, never a traceback or a hang.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, good_jsonl

CLS = "issue52j"
MOD = '__import__("hostile.cases_issue52j", fromlist=["_"])'
V3 = Path(__file__).resolve().parents[1] / "data" / "review_v3.sqlite"
STORE = "review.sqlite"
NOT_IN_ANSWER = {"reviewer": "ann", "system": "default", "sample_id": "q1", "claim": 0, "decision": "not_in_answer",
                 "note": ""}


# ------------------------------------------------------------------ version 3 stores, edited

def _v3(out: Path, *statements: str, checks: bool = True) -> None:
    from support.review_server import annotate_run

    annotate_run(out)
    shutil.copy(V3, out / STORE)
    db = sqlite3.connect(out / STORE)
    # the fixture's queue names answers of the demo run, not of this one: a queue-less version 3 store
    db.execute("DELETE FROM queue")
    db.execute("DELETE FROM queue_strata")
    if not checks:
        db.execute("PRAGMA ignore_check_constraints = ON")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


_INSERT = ("INSERT INTO decisions (reviewer, time, system, sample_id, claim_index, digest, decision, note, blind) "
           "VALUES ")
STORES = {
    # slug: (statements, whether the CHECKs apply while they run, whether the server can open it)
    "bad-rows": ((_INSERT + "('cy', 't', 'default', 'q1', 0, 'd', 'maybe', '', 0)",
                  _INSERT + "('', 't', 'default', 'q1', 0, 'd', 'confirmed', '', 0)",
                  _INSERT + "('dee', 't', 'default', 'q1', 0, 'd', 'confirmed', '', 7)"), False, True),
    "trigger": (("CREATE TRIGGER no_unsure BEFORE INSERT ON decisions WHEN NEW.decision = 'unsure' "
                 "BEGIN SELECT RAISE(ABORT, 'no unsure here'); END",), True, True),
    "leftover-table": (("CREATE TABLE decisions_v4 (x)", "INSERT INTO decisions_v4 VALUES (1)"), True, False),
    "view": (("CREATE VIEW mine AS SELECT * FROM decisions WHERE reviewer = 'ann'",), True, False),
    "no-check": (("DROP INDEX decisions_sample", "ALTER TABLE decisions RENAME TO old",
                  "CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, reviewer, time, system, sample_id, "
                  "claim_index, span_start, span_end, digest, decision, note, blind)",
                  "INSERT INTO decisions SELECT * FROM old", "DROP TABLE old"), True, True),
}
SETUPS = {f"issue52j_store_{slug}": (lambda folder, out, inp, s=s, c=c: _v3(out, *s, checks=c))
          for slug, (s, c, _) in STORES.items()}


def decide(tmp: str, skipped: int, trigger: bool = False) -> dict:
    """A "not in the answer" decision on the run in ``TMP/out`` (its version 3 store migrated by the server's
    first open), then the state: RuntimeError unless the decision is stored, the store is at the current version and sound,
    ``skipped`` rows were counted, every version 3 row is still there, and (``trigger``) the trigger still holds."""
    from support.review_server import hostile_get, hostile_post

    from genevals.review.schema import SCHEMA_VERSION
    from genevals.review.store import read_store

    run = Path(tmp) / "out"
    before = sqlite3.connect(V3).execute("SELECT count(*) FROM decisions").fetchone()[0]
    reply = hostile_post(run, json.dumps(NOT_IN_ANSWER))
    state = hostile_get(run, "/api/state")
    db = sqlite3.connect(run / STORE)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        # the rows a CHECK refuses were in the file before, and stay: SQLite's integrity check lists them
        sound = "; ".join(r[0] for r in db.execute("PRAGMA integrity_check")
                          if not r[0].startswith("CHECK constraint failed")) or "ok"
        rows = db.execute("SELECT count(*) FROM decisions").fetchone()[0]
        triggers = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0]
    finally:
        db.close()
    if version != SCHEMA_VERSION or sound != "ok":  # migrated through every version to the current one
        raise RuntimeError(f"version {version}, integrity {sound}")
    if state.get("skipped") != skipped:
        raise RuntimeError(f"skipped {state.get('skipped')!r}, expected {skipped}")
    if rows < before + skipped + 1 or not any(d.decision == "not_in_answer" for d in read_store(run).decisions):
        raise RuntimeError(f"{rows} rows after the migration and the decision ({before} before)")
    if trigger and triggers != 1:
        raise RuntimeError("the store's trigger did not survive the rebuild")
    return {"reply": reply, "rows": rows}


def _store_cases() -> list[Case]:
    out = []
    export = ("review", "export", "{out}", "-o", "{tmp}/labels.jsonl")
    for slug, (_, _, opens) in STORES.items():
        setup = f"issue52j_store_{slug}"
        out.append(Case(id=f"{CLS}-store-{slug}-export", cls=CLS, expect=OK, argv=export, setup=setup, limit=15.0))
        out.append(Case(id=f"{CLS}-store-{slug}-report", cls=CLS, expect=OK, argv=("report", "{out}"), setup=setup,
                        limit=15.0))
        if opens:
            skipped = 3 if slug == "bad-rows" else 0
            api = f"{MOD}.decide(TMP, {skipped}, trigger={slug == 'trigger'})"
            out.append(Case(id=f"{CLS}-store-{slug}-decide", cls=CLS, expect=OK, api=api, setup=setup, limit=20.0))
        else:  # refused by name, and left at version 3 (the runner finds no server to hang on)
            out.append(Case(id=f"{CLS}-store-{slug}-serve", cls=CLS, expect=REFUSED, where=(STORE,), setup=setup,
                            argv=("review", "{out}", "--port", "0"), limit=15.0))
            out.append(Case(id=f"{CLS}-store-{slug}-still-v3", cls=CLS, expect=OK, setup=setup, limit=20.0,
                            api=f"{MOD}.refused_and_v3(TMP)"))
    return out


def refused_and_v3(tmp: str) -> dict:
    """The server refuses the store (a StoreError naming it) and the file is still version 3 with its rows."""
    from genevals.review.store import ReviewStore, StoreError

    run = Path(tmp) / "out"
    try:
        ReviewStore(run).close()
    except StoreError as exc:
        if STORE not in str(exc):
            raise RuntimeError(f"the refusal does not name the store: {exc}") from None
    else:
        raise RuntimeError("the store was opened for writing")
    db = sqlite3.connect(run / STORE)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        db.close()
    if version != 3 or "decisions" not in tables:
        raise RuntimeError(f"left at version {version} with tables {sorted(tables)}")
    return {"version": version}


# ------------------------------------------------------------------ projects

def _history_with(project_sql: str):
    """A history holding one run of in.jsonl (q1..q3, token_f1), its project column set by ``project_sql``."""
    def make(folder: Path, out: Path, inp: Path) -> None:
        import numpy as np

        from genevals.history.store import History, RunRecord
        from genevals.keys import id_digest

        keys = np.sort(np.array([id_digest(q) for q in ("q1", "q2", "q3")], dtype=np.uint64))
        record = RunRecord(started="t", finished="t", seconds=None, out_dir=None, input="in.jsonl",
                           input_digest="not-this-one", input_rows=3, n_samples=3, git_commit=None,
                           genevals_version="0", seed=1, systems=("default",), summary={}, signatures={},
                           thresholds={}, headline=("token_f1",),
                           values={"default": (keys, {"token_f1": np.array([1.0, 1.0, 1.0])})})
        with History(folder / "h.sqlite") as history:
            history.add(record)
        db = sqlite3.connect(folder / "h.sqlite")
        db.execute(f"UPDATE runs SET project = {project_sql}")
        db.commit()
        db.close()
    return make


PROJECTS = {"number": "42", "blob": "x'00ff'", "long-text": "'" + "p" * 100_000 + "'", "empty": "''",
            "this-folder-with-nul": "'x' || char(0) || 'y'"}
SETUPS.update({f"issue52j_project_{slug}": _history_with(sql) for slug, sql in PROJECTS.items()})


def _git_here(kind: str):
    def make(folder: Path, out: Path, inp: Path) -> None:
        dotgit = folder / ".git"
        if kind == "fifo":
            os.mkfifo(dotgit)
        elif kind == "empty-folder":
            dotgit.mkdir()
        elif kind == "pointing-nowhere":
            dotgit.write_text("gitdir: /nonexistent/52j\n")
        elif kind == "huge-file":
            dotgit.write_bytes(b"gitdir: " + b"a" * 5_000_000)
        _history_with("NULL")(folder, out, inp)
    return make


GITS = ("fifo", "empty-folder", "pointing-nowhere", "huge-file")
SETUPS.update({f"issue52j_git_{kind}": _git_here(kind) for kind in GITS})


def _project_cases() -> list[Case]:
    argv = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--history", "{tmp}/h.sqlite", "--baseline",
            "latest")
    out = [Case(id=f"{CLS}-project-{slug}", cls=CLS, expect=ANY, argv=argv, setup=f"issue52j_project_{slug}",
                files=(("in.jsonl", good_jsonl()),), limit=20.0) for slug in PROJECTS]
    out += [Case(id=f"{CLS}-git-{kind}", cls=CLS, expect=ANY, argv=argv, setup=f"issue52j_git_{kind}",
                 files=(("in.jsonl", good_jsonl()),), limit=20.0) for kind in GITS]
    return out


def cases() -> list[Case]:
    return [*_store_cases(), *_project_cases()]
