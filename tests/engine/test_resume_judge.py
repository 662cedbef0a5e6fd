"""Kill a judge run with SIGKILL mid-way, resume it, and get what an uninterrupted run gets, without paying twice.

``genevals run --metrics token_f1,faithfulness`` runs as a subprocess against tests/support/fault_server.py's honest
judge with latency added to every reply, so the run takes several seconds. It is SIGKILLed once results.jsonl
has lines and a few more judge calls have completed, then run again with ``--resume``. Checked against an
uninterrupted run into another folder with its own fresh judge cache:

1. the same results per (system, id): metric values, statuses and reasons, claims and verdicts (judge usage
   counters differ by design: the resumed run reads some replies from the cache);
2. every sample exactly once in results.jsonl (no sample lost, none written twice) and the same summary means;
3. no judge call paid twice, beyond the calls in flight at the moment of the kill: the requests the server got
   from the killed run plus the resumed run equal the uninterrupted run's, plus at most ``--judge-concurrency``
   (a request the server received but whose reply never reached the killed process's cache is asked again;
   there are at most ``concurrency`` such requests in flight). Requests are compared body by body, which pins
   the repeated ones down exactly: they are the only bodies both runs sent.

The runner writes each judged sample as soon as it is done (in chunks of 16 samples in flight at a time:
``evaluate(chunk_size=None)`` picks 16 when a judge metric runs), so the kill finds lines written and samples
whose first judge call is answered (and cached) but whose line is not.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from support.fault_server import SlowServer

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "datasets" / "demo" / "demo.jsonl"
N_SAMPLES = 60
CONCURRENCY = 2
LATENCY = 0.1  # seconds per judge reply: ~114 requests / 2 in flight -> ~6 s per full run


def _command(data: Path, out: Path, cache: Path, base_url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "genevals", "run", str(data), "--out", str(out),
            "--metrics", "token_f1,faithfulness", "--judge-backend", "openai", "--judge-base-url", base_url,
            "--judge-model", "test", "--judge-cache", str(cache), "--judge-concurrency", str(CONCURRENCY), "-q",
            "--no-preflight", *extra]  # the preflight is asked once per run by design; this counts scoring calls


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "dummy", "HF_HUB_OFFLINE": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def _lines(path: Path) -> list[dict]:
    """Complete lines only (a SIGKILL may leave the last one cut short)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]


def _comparable(row: dict) -> dict:
    """A result line without what legitimately differs between runs: judge usage (requests, cached requests,
    tokens, cost), and the transcript that only unscored answers carry (its ``cached`` flags)."""
    metrics = {}
    for name, m in row["metrics"].items():
        details = {k: v for k, v in (m.get("details") or {}).items() if k not in ("usage", "transcript")}
        metrics[name] = {"value": m["value"], "status": m["status"], "reason": m.get("reason"), "details": details}
    return {"sample": {k: v for k, v in row.items() if k != "metrics"}, "metrics": metrics}


def _wait_stable(server: SlowServer, seconds: float) -> int:
    """Requests still sleeping in the server when the client died are counted when they wake: wait them out."""
    last, deadline = -1, time.time() + 30
    while time.time() < deadline:
        time.sleep(seconds)
        if server.total == last:
            return last
        last = server.total
    raise AssertionError("the server kept receiving requests after the kill")


@pytest.fixture
def data(tmp_path) -> Path:
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= N_SAMPLES
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:N_SAMPLES]), encoding="utf-8")
    return path


def test_sigkill_then_resume_equals_uninterrupted_and_pays_no_call_twice(tmp_path, data):
    with SlowServer(LATENCY) as server:
        # -- uninterrupted reference run, own fresh cache --------------------------------------------------
        done = subprocess.run(_command(data, tmp_path / "full", tmp_path / "cache_full", server.base_url),
                              env=_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        n_full = _wait_stable(server, LATENCY + 0.3)
        full_bodies = server.bodies(0, n_full)
        assert not [b for b, k in Counter(full_bodies).items() if k > 1], "identical judge calls in one run"
        full = {(r["system"], r["id"]): r for r in _lines(tmp_path / "full" / "results.jsonl")}
        assert len(full) == N_SAMPLES

        # -- the run to kill: SIGKILL once some results are written and a few more calls completed ---------
        part = tmp_path / "part"
        results = part / "results.jsonl"
        proc = subprocess.Popen(_command(data, part, tmp_path / "cache_part", server.base_url), env=_env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 120
            while time.time() < deadline and not _lines(results) and proc.poll() is None:
                time.sleep(0.02)
            written_at = server.total
            # a few more calls complete (and reach the cache) for samples whose lines are not written yet
            while time.time() < deadline and server.total < written_at + 3 * CONCURRENCY and proc.poll() is None:
                time.sleep(0.02)
            assert proc.poll() is None, "the run ended before the kill: raise LATENCY or N_SAMPLES"
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        n_killed_total = _wait_stable(server, LATENCY + 0.3)
        killed_bodies = server.bodies(n_full, n_killed_total)
        before = _lines(results)
        assert 0 < len(before) < N_SAMPLES, len(before)

        # -- resume ----------------------------------------------------------------------------------------
        done = subprocess.run(_command(data, part, tmp_path / "cache_part", server.base_url, "--resume"),
                              env=_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        n_all = _wait_stable(server, LATENCY + 0.3)
        resumed_bodies = server.bodies(n_killed_total, n_all)

    # (2) every sample exactly once, the lines written before the kill kept as they were
    after = _lines(results)
    keys = [(r["system"], r["id"]) for r in after]
    assert len(keys) == len(set(keys)) == N_SAMPLES, Counter(keys).most_common(3)
    assert set(keys) == set(full)
    assert after[:len(before)] == before

    # (1) the same results as the uninterrupted run
    resumed = {(r["system"], r["id"]): r for r in after}
    for key in full:
        assert _comparable(resumed[key]) == _comparable(full[key]), key
    s_full = json.loads((tmp_path / "full" / "summary.json").read_text())
    s_part = json.loads((part / "summary.json").read_text())
    assert s_part["meta"].get("interrupted") is False
    for system, metrics in s_full["systems"].items():
        for name in ("token_f1", "faithfulness", "contradiction_rate", "unverifiable_rate"):
            a, b = metrics[name], s_part["systems"][system][name]
            assert (a["mean"], a["scored"]) == (b["mean"], b["scored"]), (system, name)

    # (3) no judge call paid twice, except those in flight at the kill
    assert not [b for b, k in Counter(killed_bodies).items() if k > 1]
    assert not [b for b, k in Counter(resumed_bodies).items() if k > 1]
    assert set(killed_bodies) | set(resumed_bodies) == set(full_bodies)
    repeated = set(killed_bodies) & set(resumed_bodies)
    assert len(repeated) <= CONCURRENCY, len(repeated)
    assert len(killed_bodies) + len(resumed_bodies) == n_full + len(repeated)
    assert n_full <= len(killed_bodies) + len(resumed_bodies) <= n_full + CONCURRENCY
    # the cache did the work for answers judged before the kill whose lines were not written yet
    new_keys = set(resumed) - {(r["system"], r["id"]) for r in before}
    cached = sum(resumed[k]["metrics"]["faithfulness"].get("details", {}).get("usage", {}).get("cached_requests", 0)
                 for k in new_keys)
    assert cached >= 1
    # and nothing already written was judged again
    assert len(resumed_bodies) < n_full
    print(f"full run {n_full} requests; killed run {len(killed_bodies)} ({len(before)} lines written); resumed "
          f"{len(resumed_bodies)} ({cached} replies from the cache); asked twice (in flight at the kill) "
          f"{len(repeated)}")
