"""Cases: review_queue (issue 39): ``genevals review RUN_DIR --queue N --queue-seed S``: N and S outside their
ranges or not whole numbers, ``--queue-seed`` without ``--queue``, either on ``review export``; folders that are no
run, runs without any judged claim (nothing to stratify), stores that already hold a queue of another size, and
stores whose queue was damaged by hand (probabilities out of (0, 1], strata that disagree with the entries, two
seeds, text where numbers belong), and stored queues naming answers the run no longer has (a re-run without them,
or without their claims). A refusal comes before the server starts, naming the option or review.sqlite;
the draws that succeed are made through :func:`genevals.review.queue.ensure_queue` in the case's process (a
served review would wait for Ctrl-C)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from hostile.cases import OK, REFUSED, Case

CLS = "review_queue"
MOD = '__import__("hostile.cases_review_queue", fromlist=["_"])'
#: --queue N
QUEUES = {"zero": "0", "negative": "-1", "fraction": "1.5", "word": "all", "empty": "", "over-max": "1000001",
          "exponent": "1e3", "nan": "nan", "huge": "9" * 30, "hex": "0x10", "five-thousand-digits": "9" * 5000}
#: --queue-seed S (with --queue 2)
SEEDS = {"negative": "-1", "past-32-bits": str(2**32), "fraction": "0.5", "word": "random", "empty": "",
         "nan": "nan", "huge": "9" * 30, "exponent": "1e3"}


def _cli(slug: str, expect: str, *argv: str, where=(), setup: str = "") -> Case:
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=tuple(where), argv=("review", *argv),
                setup=setup, limit=15.0)


def draw(tmp: str, n: int, seed: int = 12345) -> dict:
    """The queue of TMP/out drawn (or continued) as ``genevals review --queue n --queue-seed seed`` does."""
    from genevals.review.queue import ensure_queue

    held, new = ensure_queue(Path(tmp) / "out", n, seed)
    if len(held.entries) != min(n, sum(held.sizes.values())):
        raise RuntimeError(f"{len(held.entries)} answers drawn for --queue {n}")
    return {"entries": len(held.entries), "new": new}


def _api(slug: str, expect: str, n: int, seed: int = 12345, setup: str = "review_annotated", where=()) -> Case:
    return Case(id=f"{CLS}-api-{slug}", cls=CLS, expect=expect, where=tuple(where),
                api=f"{MOD}.draw(TMP, {n!r}, {seed!r})", setup=setup, limit=15.0)


# ------------------------------------------------------------------ setups: stores holding a queue

def _queued(folder: Path, out: Path, inp: Path, n: int = 2) -> None:
    from genevals.review.queue import ensure_queue
    from support.review_server import annotate_run

    annotate_run(out)
    ensure_queue(out, n, 12345)


def _sql(*statements: str):
    def step(folder: Path, out: Path, inp: Path) -> None:
        _queued(folder, out, inp)
        db = sqlite3.connect(out / "review.sqlite")
        # as a hand (or another tool) would leave them: the same columns without the schema's constraints
        for table in ("queue", "queue_strata"):
            db.execute(f"CREATE TABLE loose AS SELECT * FROM {table}")
            db.execute(f"DROP TABLE {table}")
            db.execute(f"ALTER TABLE loose RENAME TO {table}")
        for statement in statements:
            db.execute(statement)
        db.commit()
        db.close()
    return step


DAMAGED = {
    "probability-zero": "UPDATE queue SET inclusion_probability = 0",
    "probability-above-one": "UPDATE queue SET inclusion_probability = 2.5",
    "probability-text": "UPDATE queue SET inclusion_probability = 'high'",
    "probability-null": "UPDATE queue SET inclusion_probability = NULL",
    "sample-id-twice": "UPDATE queue SET sample_id = 'q1', system = 'default'",
    "stratum-null": "UPDATE queue SET stratum = NULL",
    "position-text": "UPDATE queue SET position = 'first'",
    "strata-deleted": "DELETE FROM queue_strata",
    "entries-deleted": "DELETE FROM queue",
    "drawn-wrong": "UPDATE queue_strata SET drawn = drawn + 5",
    "size-text": "UPDATE queue_strata SET size = 'many'",
    "seed-text": "UPDATE queue_strata SET seed = 'x'",
    "two-seeds": "INSERT INTO queue_strata (stratum, size, drawn, seed, time) VALUES ('clean/settled', 1, 0, 99, "
                 "'2026-01-01T00:00:00Z')",
    "table-dropped": "DROP TABLE queue",
}
SETUPS = {"review_queue_queued": _queued, "review_queue_unannotated_store": lambda f, o, i: _store_only(o),
          "review_queue_no_verdicts": lambda f, o, i: _no_verdicts(o),
          **{f"review_queue_damaged_{slug}": _sql(sql) for slug, sql in DAMAGED.items()}}


def _store_only(out: Path) -> None:
    from genevals.review.store import ReviewStore

    with ReviewStore(out) as store:
        store.read()


def _no_verdicts(out: Path) -> None:
    """Claims located, but the judge's verdicts list is not a list: a run whose judge wrote nothing usable."""
    import json

    from support.review_server import annotate_run

    annotate_run(out)
    path = out / "results.jsonl"
    rows = [json.loads(raw) for raw in path.read_text().splitlines() if raw]
    for row in rows:
        row["metrics"]["faithfulness"]["details"]["verdicts"] = "none"
        row["metrics"]["faithfulness"]["value"] = "x"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def cases() -> list[Case]:
    found = [_cli(f"queue-{slug}", REFUSED, "{out}", "--queue", value, where=("--queue",))
             for slug, value in QUEUES.items()]
    # an ASCII spelling int() takes: on a run without verdicts, refused for that (naming the folder)
    found += [_cli(f"queue-{slug}", REFUSED, "{out}", "--queue", value, where=("judged claims",))
              for slug, value in (("padded", " 2 "), ("plus", "+2"))]
    # what int() also reads but a command line should not: refused naming the option and what to write
    found += [_cli(f"queue-{slug}", REFUSED, "{out}", "--queue", value, where=("--queue", said))
              for slug, value, said in (("underscore", "1_0", "write 10"), ("arabic", "\u0662", "write 2"),
                                        ("full-width", "\uff12", "write 2"))]
    found += [_cli(f"seed-{slug}", REFUSED, "{out}", "--queue", "2", "--queue-seed", value,
                   where=("--queue-seed", said))
              for slug, value, said in (("underscore", "1_2", "write 12"), ("arabic", "\u0667", "write 7"))]
    found += [_cli(f"seed-{slug}", REFUSED, "{out}", "--queue", "2", "--queue-seed", value, where=("--queue-seed",))
              for slug, value in SEEDS.items()]
    found += [
        _cli("seed-without-queue", REFUSED, "{out}", "--queue-seed", "7", where=("--queue-seed", "--queue N")),
        _cli("seed-without-queue-annotated", REFUSED, "{out}", "--queue-seed", "7", where=("--queue-seed",),
             setup="review_annotated"),
        _cli("export-with-queue", REFUSED, "export", "{out}", "-o", "{tmp}/labels.jsonl", "--queue", "2",
             where=("--queue",)),
        _cli("export-with-seed", REFUSED, "export", "{out}", "-o", "{tmp}/labels.jsonl", "--queue-seed", "2",
             where=("--queue-seed",)),
        _cli("export-of-queued", OK, "export", "{out}", "-o", "{tmp}/labels.jsonl", setup="review_queue_queued"),
    ]
    # folders without any verdict to stratify
    for n in ("1", "2", "1000000"):
        found.append(_cli(f"no-verdicts-{n}", REFUSED, "{out}", "--queue", n,
                          where=("no answer with judged claims",)))
    found += [
        _cli("no-verdicts-with-store", REFUSED, "{out}", "--queue", "2", where=("no answer with judged claims",),
             setup="review_queue_unannotated_store"),
        _cli("folder-missing", REFUSED, "{tmp}/nowhere", "--queue", "2", where=("nowhere",)),
        _cli("folder-a-file", REFUSED, "{tmp}/_base_file", "--queue", "2", where=("_base_file",),
             setup="review_queue_file"),
        _cli("folder-empty", REFUSED, "{tmp}/empty", "--queue", "2", where=("empty",), setup="empty_folder"),
        _cli("folder-dev-null", REFUSED, "/dev/null", "--queue", "2", where=("/dev/null",)),
        _cli("results-empty", REFUSED, "{out}", "--queue", "2", where=("judged claims",), setup="results_empty"),
        _cli("results-folder", REFUSED, "{out}", "--queue", "2", where=("results.jsonl",), setup="results_folder"),
        # a store already holding a queue of 2: another size is refused (a second draw voids the first)
        _cli("other-size", REFUSED, "{out}", "--queue", "3", where=("review.sqlite", "--queue 2"),
             setup="review_queue_queued"),
        _cli("other-size-other-seed", REFUSED, "{out}", "--queue", "1", "--queue-seed", "9",
             where=("review.sqlite", "--queue 2"), setup="review_queue_queued"),
    ]
    for slug in DAMAGED:
        found.append(_cli(f"damaged-{slug}", REFUSED, "{out}", "--queue", "2", where=("review.sqlite",),
                          setup=f"review_queue_damaged_{slug}"))
    found += [
        _api("one", OK, 1), _api("two", OK, 2), _api("more-than-answers", OK, 1_000_000),
        _api("seed-zero", OK, 2, 0), _api("seed-max", OK, 2, 2**32 - 1),
        _api("continue-same-size", OK, 2, setup="review_queue_queued"),
        _api("continue-other-seed", OK, 2, 777, setup="review_queue_queued"),
        # claims without a usable verdict count as unverifiable, as the review shows them: flagged
        _api("verdicts-not-a-list", OK, 2, setup="review_queue_no_verdicts"),
        _api("no-verdicts", REFUSED, 2, setup="", where=("no answer with judged claims",)),
    ]
    # a stored queue naming answers the run no longer has: left out with a warning, refused when none is left
    for slug in STALE:
        setup = f"review_queue_stale_{slug}"
        if slug.endswith("-all"):
            none_left = ("review.sqlite", "none of the 2 answers")
            found += [_cli(f"stale-{slug}", REFUSED, "{out}", "--queue", "2", where=none_left, setup=setup),
                      _cli(f"stale-{slug}-no-queue-flag", REFUSED, "{out}", where=none_left, setup=setup),
                      _cli(f"stale-{slug}-blind", REFUSED, "{out}", "--blind", where=none_left, setup=setup),
                      Case(id=f"{CLS}-api-stale-{slug}", cls=CLS, expect=REFUSED, where=none_left, setup=setup,
                           api=f"{MOD}.serve_stale(TMP)", limit=15.0)]
        else:
            found += [Case(id=f"{CLS}-api-stale-{slug}{suffix}", cls=CLS, expect=OK, setup=setup, limit=15.0,
                           api=f"{MOD}.serve_stale(TMP, {n}, {blind})")
                      for suffix, n, blind in (("", 2, False), ("-no-queue-flag", None, False),
                                               ("-blind", 2, True))]
        found.append(_cli(f"stale-{slug}-other-size", REFUSED, "{out}", "--queue", "3",
                          where=("review.sqlite", "--queue 2"), setup=setup))
    found.append(_cli("stale-row-all-export", OK, "export", "{out}", "-o", "{tmp}/labels.jsonl",
                      setup="review_queue_stale_row-all"))
    return found


# ------------------------------------------------------------------ a stored queue the run has moved past

def _stale(drop: str, which: str = "first"):
    """A queue of 2 drawn, then results.jsonl rewritten as a re-run would leave it: the ``first`` (or ``all``)
    queued answers gone (``drop="row"``), or still there without a claim (``drop="claims"``)."""
    def step(folder: Path, out: Path, inp: Path) -> None:
        import json

        from genevals.review.store import ReviewStore

        _queued(folder, out, inp)
        with ReviewStore(out) as store:
            queued = [(s, i) for s, i, _, _ in store.queue().entries]
        gone = set(queued[:1] if which == "first" else queued)
        path = out / "results.jsonl"
        rows = [json.loads(raw) for raw in path.read_text().splitlines() if raw]
        kept = []
        for row in rows:
            if (row.get("system", "default"), row["id"]) in gone:
                if drop == "row":
                    continue
                row["metrics"].pop("faithfulness", None)
            kept.append(row)
        path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return step


STALE = {"row-first": ("row", "first"), "row-all": ("row", "all"), "claims-first": ("claims", "first"),
         "claims-all": ("claims", "all")}
SETUPS.update({f"review_queue_stale_{slug}": _stale(*how) for slug, how in STALE.items()})


def serve_stale(tmp: str, n: int | None = 2, blind: bool = False) -> dict:
    """The review server's app over TMP/out as ``genevals review --queue n`` builds it (a served review would wait
    for Ctrl-C): the queue's answers the run no longer has are left out of the listing, and not served."""
    from genevals.review.app import ReviewApp, ServeConfig
    from genevals.review.requests import RequestError

    app = ReviewApp(ServeConfig(run_dir=Path(tmp) / "out", port=0, queue=n, blind=blind))
    listing = app.items({"reviewer": ["ann"]})
    served = {(i["system"], i["sample_id"]) for i in listing["items"]}
    if listing["missing"] != app.stale or len(served) + app.stale != len(app.queue.entries) or not app.stale:
        raise RuntimeError(f"stale {app.stale}, missing {listing['missing']}, served {len(served)}")
    for system, sample_id, _, _ in app.queue.entries:
        if (system, sample_id) not in served:
            try:
                app.item({"system": [system], "sample_id": [sample_id], "reviewer": ["ann"]})
            except RequestError:
                continue
            raise RuntimeError(f"{sample_id}: a stale answer of the queue was served")
    return {"stale": app.stale, "served": len(served)}


def _file(folder: Path, out: Path, inp: Path) -> None:
    (folder / "_base_file").write_text("not a folder\n")


SETUPS["review_queue_file"] = _file
