"""The review store and server: how fast decisions are written, and what a large run costs to serve.

* SQLite baseline: the same INSERT straight through ``sqlite3`` (WAL, synchronous=FULL, one transaction per row)
  against :meth:`genevals.review.store.ReviewStore.add`;
* :func:`genevals.review.tally.tally` over a run of N samples and D decisions;
* ``genevals review`` as a real process on a run of N samples: start-up until it prints its address, and
  ``POST /api/decisions`` round trips (each answers with the new tally) from 1 and 4 client threads.

    python benchmarks/bench_review.py               # 20,000 samples, 2,000 decisions
    python benchmarks/bench_review.py --samples 2000 --decisions 300
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from support.review_server import ReviewProcess  # noqa: E402
from support.runs import write_scale_run  # noqa: E402

from genevals.review.claims import load_samples  # noqa: E402
from genevals.review.store import Decision, ReviewStore  # noqa: E402
from genevals.review.tally import tally  # noqa: E402


def decisions_for(samples, n):
    flagged = [(s, c) for s in samples.values() for c in s.claims if c.flagged]
    return [Decision(reviewer=f"r{i % 3}", system=s.system, sample_id=s.id, decision=("confirmed", "false_alarm")[i % 2],
                     digest="0" * 64, claim_index=c.index, note=f"note {i}") for i, (s, c) in
            zip(range(n), (flagged * (n // max(1, len(flagged)) + 1)))]


def bench_inserts(root: Path, rows: list[Decision]) -> dict[str, float]:
    base = root / "baseline.sqlite"
    db = sqlite3.connect(base, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("CREATE TABLE d (id INTEGER PRIMARY KEY, reviewer, time, system, sample_id, claim_index, span_start, "
               "span_end, digest, decision, note)")
    start = time.perf_counter()
    for d in rows:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO d (reviewer, time, system, sample_id, claim_index, span_start, span_end, digest, "
                   "decision, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (d.reviewer, "t", d.system, d.sample_id, d.claim_index, None, None, d.digest, d.decision, d.note))
        db.execute("COMMIT")
    baseline = time.perf_counter() - start
    db.close()
    store_dir = root / "store"
    store_dir.mkdir()
    with ReviewStore(store_dir) as store:
        start = time.perf_counter()
        for d in rows:
            store.add(d)
        ours = time.perf_counter() - start
    return {"baseline_per_s": len(rows) / baseline, "store_per_s": len(rows) / ours}


def post_loop(server, bodies, times):
    for body in bodies:
        start = time.perf_counter()
        status, _ = server.call("POST", "/api/decisions", body)
        assert status == 201, status
        times.append(time.perf_counter() - start)


def bench_server(run: Path, rows: list[Decision], posts: int) -> dict[str, float]:
    start = time.perf_counter()
    server = ReviewProcess(run)
    startup = time.perf_counter() - start
    out = {"startup_s": startup}
    try:
        bodies = [{"reviewer": d.reviewer, "system": d.system, "sample_id": d.sample_id, "claim": d.claim_index,
                   "decision": d.decision, "note": d.note} for d in rows[:posts]]
        for threads in (1, 4):
            times: list[float] = []
            chunk = len(bodies) // threads
            workers = [threading.Thread(target=post_loop, args=(server, bodies[i * chunk:(i + 1) * chunk], times))
                       for i in range(threads)]
            start = time.perf_counter()
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            wall = time.perf_counter() - start
            times.sort()
            out[f"posts_per_s_{threads}"] = len(times) / wall
            out[f"median_ms_{threads}"] = 1000 * times[len(times) // 2]
    finally:
        server.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--decisions", type=int, default=2_000)
    parser.add_argument("--posts", type=int, default=400)
    args = parser.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run = write_scale_run(root / "run", args.samples)
        samples = load_samples(run)
        rows = decisions_for(samples, args.decisions)
        inserts = bench_inserts(root, rows)
        start = time.perf_counter()
        state = tally(rows, samples)
        tally_s = time.perf_counter() - start
        served = bench_server(run, rows, args.posts)
    print(json.dumps({"samples": args.samples, "decisions": args.decisions, "flagged": state["progress"]["flagged"],
                      **inserts, "tally_s": tally_s, **served, "loadavg_start": load}, indent=1))


if __name__ == "__main__":
    main()
