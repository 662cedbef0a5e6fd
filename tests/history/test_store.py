"""The history's SQLite file under load: writers in several processes at once, and a writer killed with SIGKILL
in the middle of its transactions; and the baseline's paired test against genevals.stats on ids."""
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np

from genevals.history.baseline import compare
from genevals.history.store import History, RunRecord
from genevals.keys import id_digest
from genevals.stats import paired_comparison

WRITER = textwrap.dedent("""
    import sys, numpy as np
    from genevals.history.store import History, RunRecord
    path, tag, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    keys = np.sort(np.random.default_rng(0).integers(0, 2**63, size, dtype=np.uint64))
    with History(path) as history:
        print("ready", flush=True)
        for i in range(n):
            history.add(RunRecord(started="t", finished="t", seconds=None, out_dir=f"{tag}-{i}", input="x",
                                  input_digest="d", input_rows=size, n_samples=size, git_commit=None,
                                  genevals_version="0", seed=1, systems=("a", "b"), summary={}, signatures={},
                                  thresholds={}, headline=("m",),
                                  values={s: (keys, {f"m{j}": np.random.default_rng(i).random(size) for j in range(4)})
                                          for s in ("a", "b")}))
""")


def writer(path, tag, n, size):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, str(n), str(size)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def check(path):
    """integrity_check ok; every run row with all 8 of its value rows; the out_dirs recorded."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        per_run = dict(db.execute("SELECT run_id, COUNT(*) FROM sample_values GROUP BY run_id").fetchall())
        outs = [out for (out,) in db.execute("SELECT out_dir FROM runs ORDER BY id")]
        ids = [i for (i,) in db.execute("SELECT id FROM runs ORDER BY id")]
    assert set(per_run) == set(ids) and set(per_run.values()) <= {8}
    return outs


def test_writers_in_four_processes_at_once_lose_nothing(tmp_path):
    path = tmp_path / "h.sqlite"
    procs = [writer(path, f"w{k}", 25, 200) for k in range(4)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    outs = check(path)
    assert sorted(outs) == sorted(f"w{k}-{i}" for k in range(4) for i in range(25))
    with History(path) as history:
        record = history.get("latest", values=True)
        keys, columns = record.values["a"]
        assert len(keys) == 200 and set(columns) == {"m0", "m1", "m2", "m3"} and np.all(np.diff(keys) >= 0)


def test_a_writer_killed_mid_transaction_leaves_every_committed_run_whole(tmp_path):
    path = tmp_path / "h.sqlite"
    for attempt in range(3):  # killed at a different moment each time
        proc = writer(path, f"k{attempt}", 10_000, 20_000)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.25 * attempt)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        outs = check(path)
        assert outs and outs == sorted(outs, key=lambda o: (o.split("-")[0], int(o.split("-")[1])))
    with History(path) as history:  # and it takes the next run as usual
        before = len(history.ids())
        history.add(RunRecord("t", "t", None, "after", None, None, None, 0, None, "0", None, (), {}, {}, {}, ()))
        assert len(history.ids()) == before + 1


def test_the_baseline_comparison_is_the_paired_test_on_ids():
    """compare() on digest-sorted arrays gives what genevals.stats.paired_comparison gives on the id mappings,
    on the ids both runs scored (a NaN is unscored)."""
    rng = np.random.default_rng(3)
    ids = [f"q{i}" for i in range(40)]
    base = {i: float(v) for i, v in zip(ids, rng.random(40))}
    now = {i: v - 0.2 for i, v in base.items() if i not in ("q3", "q7")}
    now["q9"] = float("nan")

    def arrays(values):
        pairs = sorted((id_digest(i), v) for i, v in values.items())
        return np.array([k for k, _ in pairs], dtype=np.uint64), np.array([v for _, v in pairs])

    bk, bv = arrays(base)
    record = RunRecord("t", "t", None, None, None, None, None, 40, None, "0", 1, ("s",), {}, {}, {}, ("m",),
                       values={"s": (bk, {"m": bv})})
    nk, nv = arrays(now)
    [change] = compare({"s": (nk, {"m": nv})}, record, {"m": "higher"}, {"m"}, seed=5)
    scored = {i: v for i, v in now.items() if not np.isnan(v)}
    expected = paired_comparison("m", "run", scored, "baseline", base, seed=5, resamples=5000)
    assert change.n_pairs == expected.n_pairs == 37
    assert change.mean_difference == expected.mean_difference
    assert change.p_value == expected.p_value and change.ci95 == (expected.ci_low, expected.ci_high)
    assert change.regression and change.gated
    [lower] = compare({"s": (nk, {"m": nv})}, record, {"m": "lower"}, set(), seed=5)
    assert lower.significant and not lower.regression and not lower.gated
