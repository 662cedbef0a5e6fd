"""Worker processes end when their parent dies, SIGKILL included, and not before."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.runs import write_long_input

from genevals.engine import workers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid):
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _running(pid):
    """Alive and not a zombie (an orphan that exited waits for a reaper that may never come in a container)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_workers_end_within_seconds_when_the_run_is_killed(tmp_path):
    data = write_long_input(tmp_path / "big.jsonl")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "genevals", "run", str(data), "-o", str(out), "-q",
                             "-m", "rouge", "--workers", "2"], stderr=subprocess.DEVNULL)
    try:
        results = out / "results.jsonl"
        deadline = time.time() + 300
        while time.time() < deadline and proc.poll() is None and not (results.exists() and results.stat().st_size):
            time.sleep(0.05)
        assert proc.poll() is None
        pool = [pid for pid in _children(proc.pid) if _running(pid)]
        assert len(pool) >= 2, pool  # the two workers (and the executor's helpers, if any)
    finally:
        proc.kill()
        proc.wait(timeout=60)
    deadline = time.time() + 5
    while time.time() < deadline and any(_running(pid) for pid in pool):
        time.sleep(0.05)
    left = [pid for pid in pool if _running(pid)]
    for pid in left:  # do not leave them behind for the other tests
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers still running 5 s after their parent was killed: {left}"


def _pool_from_a_thread_that_ends(result):
    import threading

    pool = workers.pool(1)
    thread = threading.Thread(target=lambda: result.append(pool.submit(os.getpid).result()))
    thread.start()
    thread.join()  # the thread that started the worker is gone; the process that owns it is not
    time.sleep(3 * workers.WATCH_SECONDS)
    result.append(pool.submit(os.getpid).result(timeout=30))
    pool.shutdown()


def test_a_worker_outlives_the_thread_that_started_it():
    result = []
    _pool_from_a_thread_that_ends(result)
    assert result[0] == result[1]  # the same worker answered before and after
