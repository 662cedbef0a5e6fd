"""Cases: review (issue 34): the review store ``{out}/review.sqlite`` and the review server's API.

* **Stores** (a setup step each, ``review_store_<kind>``): files that cannot be a store (garbage, cut short,
  empty, a folder, a FIFO, links, a foreign SQLite, a run history, a newer or a negative schema version, tables
  missing or different) and stores with one bad row of a kind (values of the wrong type, text that is not UTF-8,
  decisions the schema does not know). ``genevals report {out}`` must still write the report (saying the store
  could not be read, or counting the rows skipped); ``review export`` and ``review {out}`` refuse an unreadable
  store with exit 2 naming review.sqlite, and read past bad rows.
* **Requests**: :func:`post`, :func:`get`, :func:`raw`, :func:`state` and :func:`concurrent` start the real
  review server (:class:`~genevals.review.server.ReviewServer`, in the case's process) on 127.0.0.1, port 0,
  over ``TMP/out`` (annotated by the ``review_annotated`` setup with claims and checked citations), send one
  hostile request with :mod:`http.client` and stop the server. A 4xx with a JSON error
  raises ValueError with the error (the runner checks it names the field); a 2xx returns the reply; a 5xx, a
  reply that is not JSON or a dropped connection raises RuntimeError, which the runner reports.
"""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from hostile.cases import ANY, OK, REFUSED, Case

MOD = '__import__("hostile.cases_review", fromlist=["_"])'
STORE = "review.sqlite"
#: the columns of the decision tables, as every genevals version wrote them, but without the CHECK constraints:
#: a file edited by hand (or by another tool) can hold anything SQLite's loose types allow
V1 = ("CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, reviewer TEXT, time TEXT, system TEXT, "
      "sample_id TEXT, claim_index INTEGER, span_start INTEGER, span_end INTEGER, digest TEXT, decision TEXT, "
      "note TEXT DEFAULT '')")
V2 = ("CREATE TABLE citation_decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, reviewer TEXT, time TEXT, "
      "system TEXT, sample_id TEXT, sentence INTEGER, context INTEGER, digest TEXT, shown TEXT, decision TEXT, "
      "corrected TEXT, note TEXT DEFAULT '')")
WHEN = "'2026-01-01T00:00:00.000Z'"
GOOD_ROW = f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''"
GOOD_CITATION = f"'ann', {WHEN}, 'default', 'q1', 0, 0, 'd', 'supported', 'confirmed', NULL, ''"


# ------------------------------------------------------------------ stores that cannot be read

def _sql(path: Path, *statements: str, version: int | None = None) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    if version is not None:
        db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()


def _big_store(path: Path) -> None:
    """A sound version 2 store with 300 decisions of 1,000-character notes (about 80 pages)."""
    rows = ", ".join(f"('r{i}', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'unsure', '{'n' * 1000}')"
                     for i in range(300))
    _sql(path, V1, V2, f"INSERT INTO decisions (reviewer, time, system, sample_id, claim_index, span_start, "
         f"span_end, digest, decision, note) VALUES {rows}", version=2)


def _history(path: Path) -> None:
    from genevals.history.store import History

    History(path).close() if hasattr(History, "close") else History(path)


UNREADABLE = {
    # kind: (what to put at out/review.sqlite, whether `review {out}` must refuse it too)
    "garbage": (lambda p: p.write_bytes(bytes(range(256)) * 16), True),
    "text": (lambda p: p.write_text("this is not a database\n" * 50), True),
    "sqlite-header-only": (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 84), True),
    "truncated-half": (lambda p: (_big_store(p), os.truncate(p, p.stat().st_size // 2)), True),
    "truncated-header": (lambda p: (_big_store(p), os.truncate(p, 100)), True),
    "empty-file": (lambda p: p.write_bytes(b""), False),  # a fresh store for a writer, none for a reader
    "folder": (lambda p: p.mkdir(), True),
    "folder-with-files": (lambda p: (p.mkdir(), (p / "x").write_text("x")), True),
    "fifo": (lambda p: os.mkfifo(p), True),
    "dangling-link": (lambda p: os.symlink(p.parent / "nowhere.sqlite", p), True),
    "link-loop": (lambda p: (os.symlink(p.parent / "loop.sqlite", p), os.symlink(p, p.parent / "loop.sqlite")),
                  True),
    "link-to-dev-zero": (lambda p: os.symlink("/dev/zero", p), True),
    "link-to-dev-null": (lambda p: os.symlink("/dev/null", p), True),
    "foreign-sqlite": (lambda p: _sql(p, "CREATE TABLE things (a, b)", "INSERT INTO things VALUES (1, 2)"), True),
    "judge-cache-like": (lambda p: _sql(p, "CREATE TABLE cache (key TEXT PRIMARY KEY, value BLOB)"), True),
    "run-history": (_history, True),
    "newer-version": (lambda p: _sql(p, V1, V2, version=3), True),
    "huge-version": (lambda p: _sql(p, V1, V2, version=2**31 - 1), True),
    "negative-version": (lambda p: _sql(p, V1, V2, version=-1), True),
    "v1-without-tables": (lambda p: _sql(p, version=1), True),
    "v1-decisions-different": (lambda p: _sql(p, "CREATE TABLE decisions (id INTEGER PRIMARY KEY, foo TEXT)",
                                              "INSERT INTO decisions VALUES (1, 'x')", version=1), True),
    "v1-decisions-without-note": (lambda p: _sql(p, V1.replace(", note TEXT DEFAULT ''", ""), version=1), True),
    "v1-decisions-a-view": (lambda p: _sql(p, "CREATE VIEW decisions AS SELECT 1 AS id", version=1), True),
    "v2-without-citation-table": (lambda p: _sql(p, V1, version=2), True),
    "v2-citation-table-different": (lambda p: _sql(p, V1, "CREATE TABLE citation_decisions (id INTEGER PRIMARY "
                                                          "KEY, sentence INTEGER)", version=2), True),
}
#: stores a reader can open (a writer too, as root): the report and export read them, nothing refuses
READABLE = {
    "wal-garbage": lambda p: (_sql(p, V1, V2, f"INSERT INTO decisions (reviewer, time, system, sample_id, "
                                               f"claim_index, span_start, span_end, digest, decision, note) VALUES "
                                               f"({GOOD_ROW})", version=2),
                              (p.parent / (p.name + "-wal")).write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 60)),
    "read-only-file": lambda p: (_sql(p, V1, V2, version=2), p.chmod(0o444)),
    "sound-v1-store": lambda p: _sql(p, V1, f"INSERT INTO decisions (reviewer, time, system, sample_id, claim_index, "
                                            f"span_start, span_end, digest, decision, note) VALUES ({GOOD_ROW})",
                                     version=1),
}

# ------------------------------------------------------------------ stores with one bad row

_COLUMNS = "reviewer, time, system, sample_id, claim_index, span_start, span_end, digest, decision, note"
BAD_ROWS = {
    # kind: the bad row's values (SQL), in the order of _COLUMNS
    "decision-unknown": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'maybe', ''",
    "decision-null": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', NULL, ''",
    "reviewer-blob": f"X'00ff', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "reviewer-null": f"NULL, {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "reviewer-empty": f"'', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "reviewer-control-char": f"'a' || char(27) || '[2J', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "reviewer-too-long": f"'{'r' * 500}', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "system-not-utf8": f"'ann', {WHEN}, CAST(X'fffe41' AS TEXT), 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "note-not-utf8": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', CAST(X'c0af' AS TEXT)",
    "note-too-long": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', '{'n' * 5000}'",
    "time-null": "'ann', NULL, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', ''",
    "digest-blob": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, X'00', 'confirmed', ''",
    "sample-id-blob": f"'ann', {WHEN}, 'default', X'7131', 0, NULL, NULL, 'd', 'confirmed', ''",
    "claim-index-text": f"'ann', {WHEN}, 'default', 'q1', 'abc', NULL, NULL, 'd', 'confirmed', ''",
    "claim-index-real": f"'ann', {WHEN}, 'default', 'q1', 1.5, NULL, NULL, 'd', 'confirmed', ''",
    "span-real": f"'ann', {WHEN}, 'default', 'q1', NULL, 1.5, 3, 'd', 'missed', ''",
    "span-text": f"'ann', {WHEN}, 'default', 'q1', NULL, 'a', 'b', 'd', 'missed', ''",
    "span-start-only": f"'ann', {WHEN}, 'default', 'q1', NULL, 0, NULL, 'd', 'missed', ''",
    "span-negative": f"'ann', {WHEN}, 'default', 'q1', NULL, -5, 3, 'd', 'missed', ''",
    "span-reversed": f"'ann', {WHEN}, 'default', 'q1', NULL, 5, 3, 'd', 'missed', ''",
    "no-claim-no-span": f"'ann', {WHEN}, 'default', 'q1', NULL, NULL, NULL, 'd', 'confirmed', ''",
    "missed-without-span": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'missed', ''",
}
#: rows that are odd but can be decisions: read (stale where nothing in the run matches), never skipped
ODD_ROWS = {
    "claim-index-huge": f"'ann', {WHEN}, 'default', 'q1', 9223372036854775807, NULL, NULL, 'd', 'confirmed', ''",
    "span-huge": f"'ann', {WHEN}, 'default', 'q1', NULL, 0, 9223372036854775807, 'd', 'missed', ''",
    "unknown-sample": f"'ann', {WHEN}, 'nobody', 'q9', 0, NULL, NULL, 'd', 'confirmed', ''",
    "script-in-note": f"'ann', {WHEN}, 'default', 'q1', 0, NULL, NULL, 'd', 'confirmed', '</script><b>x'",
}
_CITATION_COLUMNS = "reviewer, time, system, sample_id, sentence, context, digest, shown, decision, corrected, note"
BAD_CITATIONS = {
    "citation-context-text": f"'ann', {WHEN}, 'default', 'q1', 0, 'x', 'd', 'supported', 'confirmed', NULL, ''",
    "citation-context-real": f"'ann', {WHEN}, 'default', 'q1', 0, 0.5, 'd', 'supported', 'confirmed', NULL, ''",
    "citation-sentence-negative": f"'ann', {WHEN}, 'default', 'q1', -1, 0, 'd', 'supported', 'confirmed', NULL, ''",
    "citation-sentence-blob": f"'ann', {WHEN}, 'default', 'q1', X'00', 0, 'd', 'supported', 'confirmed', NULL, ''",
    "citation-shown-unknown": f"'ann', {WHEN}, 'default', 'q1', 0, 0, 'd', 'maybe', 'confirmed', NULL, ''",
    "citation-decision-unknown": f"'ann', {WHEN}, 'default', 'q1', 0, 0, 'd', 'supported', 'false_alarm', NULL, ''",
    "citation-rejected-uncorrected": f"'ann', {WHEN}, 'default', 'q1', 0, 0, 'd', 'supported', 'rejected', NULL, ''",
    "citation-corrected-int": f"'ann', {WHEN}, 'default', 'q1', 0, 0, 'd', 'supported', 'rejected', 5, ''",
    "citation-reviewer-null": f"NULL, {WHEN}, 'default', 'q1', 0, 0, 'd', 'supported', 'confirmed', NULL, ''",
}


def _bad_row_store(path: Path, row: str, citation: str | None = None) -> None:
    """A version 2 store: a good decision, the row under test, another good decision (and the same for the
    citation table when ``citation`` is given)."""
    insert = f"INSERT INTO decisions ({_COLUMNS}) VALUES "
    cite = f"INSERT INTO citation_decisions ({_CITATION_COLUMNS}) VALUES "
    statements = [V1, V2, insert + f"({GOOD_ROW})"]
    if citation is None:
        statements += [insert + f"({row})", insert + f"({GOOD_ROW.replace('ann', 'bob')})"]
    else:
        statements += [cite + f"({GOOD_CITATION})", cite + f"({citation})",
                       cite + f"({GOOD_CITATION.replace('ann', 'bob')})"]
    _sql(path, *statements, version=2)


def _all_bad_store(path: Path) -> None:
    insert = f"INSERT INTO decisions ({_COLUMNS}) VALUES "
    cite = f"INSERT INTO citation_decisions ({_CITATION_COLUMNS}) VALUES "
    _sql(path, V1, V2, insert + f"({GOOD_ROW})", *(insert + f"({r})" for r in BAD_ROWS.values()),
         *(cite + f"({r})" for r in BAD_CITATIONS.values()), version=2)


def _setup(make):
    return lambda folder, out, inp: make(out / STORE)


SETUPS = {f"review_store_{k}": _setup(v[0]) for k, v in UNREADABLE.items()}
SETUPS.update({f"review_store_{k}": _setup(v) for k, v in READABLE.items()})
SETUPS.update({f"review_row_{k}": _setup(lambda p, r=r: _bad_row_store(p, r)) for k, r in BAD_ROWS.items()})
SETUPS.update({f"review_row_{k}": _setup(lambda p, r=r: _bad_row_store(p, r)) for k, r in ODD_ROWS.items()})
SETUPS.update({f"review_row_{k}": _setup(lambda p, r=r: _bad_row_store(p, "", r)) for k, r in BAD_CITATIONS.items()})
SETUPS["review_row_all-bad-at-once"] = _setup(_all_bad_store)


def annotate(folder: Path, out: Path, inp: Path) -> None:
    from support.review_server import annotate_run

    annotate_run(out)


SETUPS["review_annotated"] = annotate


# ------------------------------------------------------------------ the server, one hostile request each

def post(tmp: str, body: str | bytes, **kw):
    """One hostile POST to a review server over ``TMP/out`` (:func:`support.review_server.hostile_post`)."""
    from support.review_server import hostile_post

    return hostile_post(Path(tmp) / "out", body, **kw)


def get(tmp: str, path: str, **kw):
    from support.review_server import hostile_get

    return hostile_get(Path(tmp) / "out", path, **kw)


def raw(tmp: str, data: bytes):
    from support.review_server import hostile_raw

    return hostile_raw(Path(tmp) / "out", data)


def state(tmp: str, skipped: int, decisions: int | None = None) -> dict:
    """``GET /api/state`` over a store with bad rows: answered, with ``skipped`` rows counted (and ``decisions``
    current claim decisions, when given); RuntimeError otherwise."""
    reply = get(tmp, "/api/state")
    if reply.get("skipped") != skipped:
        raise RuntimeError(f"skipped: {reply.get('skipped')!r}, expected {skipped}")
    if decisions is not None and len(reply["decisions"]) != decisions:
        raise RuntimeError(f"{len(reply['decisions'])} decisions, expected {decisions}")
    return reply


def concurrent(tmp: str, n: int = 16) -> dict:
    from support.review_server import hostile_concurrent

    return hostile_concurrent(Path(tmp) / "out", [{**CLAIM, "reviewer": f"r{i}"} for i in range(n)])


# ------------------------------------------------------------------ the cases

CLAIM = {"reviewer": "ann", "system": "default", "sample_id": "q1", "claim": 0, "decision": "confirmed", "note": ""}
CITE = {"reviewer": "ann", "system": "default", "sample_id": "q1", "citation": {"sentence": 0, "context": 0},
        "decision": "confirmed", "note": ""}
SPAN = {"reviewer": "ann", "system": "default", "sample_id": "q1", "span": [0, 5], "decision": "missed", "note": ""}
#: hostile JSON values: slug -> the literal
VALUES = {"list": "[]", "object": "{}", "float-zero": "0.0", "digit-text": '"0"', "true": "true", "null": "null",
          "nan": "NaN", "inf": "1e400", "5000-digits": "§BIG§", "negative": "-1", "long-text": '"§LONG§"'}
FIELDS = {
    # slug: (base body, path to the value, the name(s) the reply must give, values a sound request may carry)
    "citation-context": (CITE, ("citation", "context"), ("citation", "context"), ()),
    "citation-sentence": (CITE, ("citation", "sentence"), ("citation", "sentence"), ()),
    "citation": (CITE, ("citation",), "citation", ("null",)),
    "claim": (CLAIM, ("claim",), "claim", ()),
    "span": (SPAN, ("span",), "span", ()),
    "span-start": (SPAN, ("span", 0), "span", ()),
    "system": (CLAIM, ("system",), "system", ()),
    "sample-id": (CLAIM, ("sample_id",), "sample_id", ()),
    "reviewer": (CLAIM, ("reviewer",), "reviewer", ("digit-text",)),
    "note": (CLAIM, ("note",), "note", ("digit-text",)),
    "decision": (CLAIM, ("decision",), "decision", ()),
    "citation-note": (CITE, ("note",), "note", ("digit-text",)),
}
ANNOTATED = "review_annotated"


def _api(call: str, *args, **kw) -> str:
    params = ", ".join(["TMP", *map(repr, args), *(f"{k}={v!r}" for k, v in kw.items())])
    return f"{MOD}.{call}({params})"


def _request(slug: str, expect: str, where: tuple, call: str, *args, setup: str = ANNOTATED, **kw) -> Case:
    return Case(id=f"review-{slug}", cls="review", expect=expect, where=where, api=_api(call, *args, **kw),
                setup=setup, limit=15.0)


def field_cases() -> list[Case]:
    from hostile.cases import with_raw

    out = []
    for slug, (base, path, name, sound) in FIELDS.items():
        for value, literal in VALUES.items():
            if slug == "citation" and value in ("null",):  # no citation: a claim decision without a claim
                continue
            expect = ANY if value in sound else REFUSED
            where = name if isinstance(name, tuple) else (name,)
            out.append(_request(f"field-{slug}-{value}", expect, where, "post", with_raw(base, path, literal)))
    return out


HEADERS = {
    # slug: (expect, where, keyword arguments of post)
    "no-content-length": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": None}}),
    "content-length-superscript": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": "\u00b2"}}),
    "content-length-5000-digits": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": "9" * 5000}}),
    "content-length-huge": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": "9" * 20}}),
    "content-length-negative": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": "-1"}}),
    "content-length-hex": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": "0x40"}}),
    "content-length-float": (REFUSED, ("Content-Length",), {"headers": {"Content-Length": "12.0"}}),
    "content-length-longer-than-body": (REFUSED, ("Content-Length",),
                                        {"headers": {"Content-Length": "4000"}, "half_close": True}),
    "content-length-shorter-than-body": (REFUSED, ("JSON",), {"headers": {"Content-Length": "10"}}),
    "content-length-zero": (REFUSED, ("JSON",), {"headers": {"Content-Length": "0"}}),
    "chunked-without-length": (REFUSED, ("Content-Length",),
                               {"headers": {"Content-Length": None, "Transfer-Encoding": "chunked"}}),
    "content-type-text": (REFUSED, ("application/json",), {"headers": {"Content-Type": "text/plain"}}),
    "content-type-missing": (REFUSED, ("application/json",), {"headers": {"Content-Type": None}}),
    "content-type-form": (REFUSED, ("application/json",),
                          {"headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
    "content-type-json-uppercase": (OK, (), {"headers": {"Content-Type": "APPLICATION/JSON; charset=UTF-8"}}),
    "no-token": (REFUSED, ("token",), {"token": False}),
    "wrong-token": (REFUSED, ("token",), {"headers": {"X-Genevals-Token": "x" * 43}}),
    "token-latin1": (REFUSED, ("token",), {"headers": {"X-Genevals-Token": "\u00e9" * 43}}),
    "host-elsewhere": (REFUSED, ("loopback",), {"headers": {"Host": "evil.example"}}),
    "host-missing": (REFUSED, ("loopback",), {"headers": {"Host": None}}),
    "host-bad-ipv6": (REFUSED, ("loopback",), {"headers": {"Host": "[::1"}}),
    "origin-elsewhere": (REFUSED, ("cross-origin",), {"headers": {"Origin": "http://evil.example"}}),
    "origin-bad-ipv6": (REFUSED, ("Origin",), {"headers": {"Origin": "http://[::1"}}),
    "origin-bad-port": (REFUSED, ("Origin",), {"headers": {"Origin": "http://127.0.0.1:99999"}}),
    "origin-null": (REFUSED, ("cross-origin",), {"headers": {"Origin": "null"}}),
    "method-put": (REFUSED, ("PUT",), {"method": "PUT"}),
    "method-delete": (REFUSED, ("DELETE",), {"method": "DELETE"}),
    "method-patch": (REFUSED, ("PATCH",), {"method": "PATCH"}),
    "method-options": (REFUSED, ("OPTIONS",), {"method": "OPTIONS"}),
    "method-made-up": (REFUSED, ("FROB",), {"method": "FROB"}),
    "path-unknown": (REFUSED, ("not found",), {"path": "/api/nope"}),
    "path-state": (REFUSED, ("not found",), {"path": "/api/state"}),
    "path-long": (REFUSED, ("not found",), {"path": "/" + "a" * 8000}),
}
BODIES = {
    # slug: (expect, where, the body)
    "not-utf8": (REFUSED, ("UTF-8",), b'{"reviewer": "\xff\xfe"}'),
    "utf16": (REFUSED, ("UTF-8",), json.dumps(CLAIM).encode("utf-16")),
    "utf8-bom": (REFUSED, ("JSON",), b"\xef\xbb\xbf" + json.dumps(CLAIM).encode()),
    "a-list": (REFUSED, ("JSON object",), "[]"),
    "null": (REFUSED, ("JSON object",), "null"),
    "a-number": (REFUSED, ("JSON object",), "§BIG§"),
    "a-string": (REFUSED, ("JSON object",), '"§LONG§"'),
    "nested-5000-deep": (REFUSED, ("JSON",), "[" * 5000 + "]" * 5000),
    "over-the-limit": (REFUSED, ("Content-Length",), json.dumps({**CLAIM, "note": "x" * 20000})),
    "truncated-json": (REFUSED, ("JSON",), json.dumps(CLAIM)[:-3]),
    "empty-object": (REFUSED, ("system",), "{}"),
    "nul-in-key": (REFUSED, ("system",), '{"sys\\u0000tem": "default"}'),
    "duplicate-keys": (OK, (), json.dumps(CLAIM)[:-1] + ', "decision": "false_alarm"}'),
    "unknown-sample": (REFUSED, ("sample_id",), json.dumps({**CLAIM, "sample_id": "q99"})),
    "unknown-system": (REFUSED, ("system",), json.dumps({**CLAIM, "system": "nobody"})),
    "claim-out-of-range": (REFUSED, ("claim",), json.dumps({**CLAIM, "claim": 7})),
    "citation-not-checked": (REFUSED, ("citation",), json.dumps({**CITE, "citation": {"sentence": 0, "context": 1}})),
    "span-outside-answer": (REFUSED, ("span",), json.dumps({**SPAN, "span": [0, 5000]})),
    "span-empty": (REFUSED, ("span",), json.dumps({**SPAN, "span": [3, 3]})),
    "span-claim-decision": (REFUSED, ("decision",), json.dumps({**SPAN, "decision": "confirmed"})),
    "claim-missed-decision": (REFUSED, ("decision",), json.dumps({**CLAIM, "decision": "missed"})),
    "reviewer-lone-surrogate": (REFUSED, ("reviewer",), json.dumps({**CLAIM, "reviewer": "a\ud800"})),
    "reviewer-nul": (REFUSED, ("reviewer",), json.dumps({**CLAIM, "reviewer": "a\u0000b"})),
    "reviewer-escape-sequence": (REFUSED, ("reviewer",), json.dumps({**CLAIM, "reviewer": "a\u001b[2J"})),
    "note-lone-surrogate": (REFUSED, ("note",), json.dumps({**CITE, "note": "\udc00"})),
    "sound-claim": (OK, (), json.dumps(CLAIM)),
    "sound-span": (OK, (), json.dumps(SPAN)),
    "sound-citation": (OK, (), json.dumps(CITE)),
    "sound-citation-rejected": (OK, (), json.dumps({**CITE, "decision": "rejected"})),
    "sound-citation-withdrawn": (OK, (), json.dumps({**CITE, "decision": "withdrawn"})),
    "script-in-note": (OK, (), json.dumps({**CLAIM, "note": "</script><script>alert(1)</script>"})),
}
RAW = {
    # slug: (where, the bytes)
    "garbage-request-line": ("Bad request", b"GARBAGE\r\n\r\n"),
    "http-version-9": ("HTTP version", b"GET / HTTP/9.9\r\n\r\n"),
    "tls-hello": ("Bad request", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40),
    "header-line-too-long": ("Line too long", b"GET /api/state HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n"),
    "too-many-headers": ("Too many headers", b"GET /api/state HTTP/1.1\r\n" + b"X: a\r\n" * 150 + b"\r\n"),
    "request-line-too-long": ("URI Too Long", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n"),
    "non-ascii-path": ("loopback", b"GET /\xff\xfe HTTP/1.1\r\n\r\n"),
}
GETS = {
    # slug: (expect, where, path, keyword arguments of get)
    "state": (OK, (), "/api/state", {}),
    "state-head": (OK, (), "/api/state", {"method": "HEAD"}),
    "state-query": (OK, (), "/api/state?x=[]&y=%ff", {}),
    "state-no-token": (REFUSED, ("token",), "/api/state", {"token": False}),
    "page": (OK, (), "/", {}),
    "file-dot-dot": (REFUSED, ("not found",), "/files/../../../etc/passwd", {}),
    "file-encoded-dot-dot": (REFUSED, ("not found",), "/files/%2e%2e%2f%2e%2e%2fetc%2fpasswd", {}),
    "file-nul": (REFUSED, ("not found",), "/files/results.jsonl%00.txt", {}),
    "file-long-name": (REFUSED, ("not found",), "/files/" + "x" * 5000, {}),
    "file-store": (OK, (), "/files/review.sqlite", {}),
    "file-hidden": (REFUSED, ("not found",), "/files/.git/config", {}),
}


def request_cases() -> list[Case]:
    out = [_request(f"header-{slug}", expect, where, "post", json.dumps(CLAIM), **kw)
           for slug, (expect, where, kw) in HEADERS.items()]
    out += [_request(f"body-{slug}", expect, where, "post", body) for slug, (expect, where, body) in BODIES.items()]
    out += [_request(f"raw-{slug}", REFUSED, (where,), "raw", data) for slug, (where, data) in RAW.items()]
    out += [_request(f"get-{slug}", expect, where, "get", path, **kw) for slug, (expect, where, path, kw)
            in GETS.items()]
    out.append(_request("concurrent-decisions", OK, (), "concurrent", 16))
    return out


def store_cases() -> list[Case]:
    def cli(slug, expect, setup, *argv, where=("review.sqlite",), limit=10.0):
        return Case(id=f"review-{slug}", cls="review", expect=expect, where=where, argv=argv, setup=setup,
                    limit=limit)

    export = ("review", "export", "{out}", "-o", "{tmp}/labels.jsonl")
    out = []
    for kind, (_, serve_refuses) in UNREADABLE.items():
        setup = f"review_store_{kind}"
        out.append(cli(f"store-{kind}-report", OK, setup, "report", "{out}"))
        out.append(cli(f"store-{kind}-export", REFUSED, setup, *export))
        if serve_refuses:  # one the server could start on would serve until killed: a hang here
            out.append(cli(f"store-{kind}-serve", REFUSED, setup, "review", "{out}", "--port", "0"))
    out.append(_request("store-empty-file-state", OK, (), "state", 0, setup="review_store_empty-file"))
    for kind in READABLE:
        setup = f"review_store_{kind}"
        out.append(cli(f"store-{kind}-report", OK, setup, "report", "{out}"))
        out.append(cli(f"store-{kind}-export", ANY, setup, *export))
    out.append(_request("store-sound-v1-store-state", OK, (), "state", 0, 1, setup="review_store_sound-v1-store"))
    out.append(_request("store-wal-garbage-state", OK, (), "state", 0, setup="review_store_wal-garbage"))
    rows = {**{k: 1 for k in BAD_ROWS}, **{k: 0 for k in ODD_ROWS}, **{k: 1 for k in BAD_CITATIONS}}
    for kind, skipped in rows.items():
        setup = f"review_row_{kind}"
        out.append(cli(f"row-{kind}-report", OK, setup, "report", "{out}"))
        out.append(_request(f"row-{kind}-state", OK, (), "state", skipped, setup=setup))
    for kind in ("decision-unknown", "reviewer-blob", "system-not-utf8", "span-real", "citation-context-text"):
        out.append(cli(f"row-{kind}-export", OK, f"review_row_{kind}", *export))
    every = len(BAD_ROWS) + len(BAD_CITATIONS)
    out.append(cli("row-all-bad-at-once-report", OK, "review_row_all-bad-at-once", "report", "{out}"))
    out.append(cli("row-all-bad-at-once-export", OK, "review_row_all-bad-at-once", *export))
    out.append(_request("row-all-bad-at-once-state", OK, (), "state", every, setup="review_row_all-bad-at-once"))
    out.append(_request("row-all-bad-at-once-decide", OK, (), "post", json.dumps(SPAN),
                        setup="review_row_all-bad-at-once"))
    return out


def cases() -> list[Case]:
    return [*store_cases(), *field_cases(), *request_cases()]
