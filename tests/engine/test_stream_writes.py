"""Judged samples reach results.jsonl one by one, as each finishes, not when their whole chunk does.

tests/support/fault_server.py's honest judge answers after a short latency, except for the one answer carrying the
HOLD marker: its requests wait until the test releases them. All samples fit in one chunk, so before this
behaviour nothing could be written until the held sample was done.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from genevals import types
from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from support.fault_server import FaultServer
from support.runs import ctrl_c_heard

REPO = Path(__file__).resolve().parents[2]
HOLD = "HOLDTHISSAMPLE"
CONTEXT = ("Marie Curie was born in Warsaw. Marie Curie won the Nobel Prize in Physics in 1903. "
           "Marie Curie discovered polonium.")
N = 8
HELD = "s2"
JUDGED = ["faithfulness", "contradiction_rate", "unverifiable_rate", "invented_claims"]


class HoldServer(FaultServer):
    """Answers after ``latency``; requests about the answer with the HOLD marker wait for ``release``."""

    def __init__(self, latency: float) -> None:
        super().__init__()
        self.latency = latency
        self.holding = threading.Event()
        self.release = threading.Event()

    def _handle(self, h, body):
        if HOLD in body["messages"][0]["content"]:
            self.holding.set()
            self.release.wait(timeout=120)
        else:
            time.sleep(self.latency)
        return super()._handle(h, body)


def rows(n: int = N) -> list[dict[str, Any]]:
    return [{"id": f"s{i}", "system": "a", "question": "Who was Marie Curie?",
             "answer": "Marie Curie was born in Warsaw. Marie Curie liked tea." + (f" {HOLD}." if f"s{i}" == HELD
                                                                                    else f" Variant {i}."),
             "references": ["Marie Curie was born in Warsaw."], "contexts": [CONTEXT]} for i in range(n)]


def lines(path: Path) -> list[dict[str, Any]]:
    """Complete lines only: one may be half written when we look."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]


def wait_for_lines(path: Path, n: int, alive, seconds: float = 60) -> list[dict[str, Any]]:
    deadline = time.time() + seconds
    while time.time() < deadline and len(lines(path)) < n and alive():
        time.sleep(0.02)
    return lines(path)


def test_fast_samples_are_written_while_a_slow_one_of_the_same_chunk_is_judged(tmp_path):
    out = tmp_path / "out"
    results_path = out / "results.jsonl"
    got: dict[str, Any] = {}
    with HoldServer(latency=0.02) as server:
        judge = JudgeConfig(backend="openai", base_url=server.base_url, model="test", concurrency=4, cache=False,
                            api_key="dummy")

        def run() -> None:
            got["results"] = evaluate(rows(), ["faithfulness", "token_f1"], judge=judge, out_dir=out)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        try:
            early = wait_for_lines(results_path, N - 1, thread.is_alive)
            # The held sample is still being judged: its requests are waiting in the server.
            assert thread.is_alive() and server.holding.is_set() and not server.release.is_set()
            assert sorted(r["id"] for r in early) == sorted(f"s{i}" for i in range(N) if f"s{i}" != HELD)
            assert len(lines(results_path)) == N - 1
        finally:
            server.release.set()
            thread.join(120)
    assert not thread.is_alive()

    final = lines(results_path)
    assert [r["id"] for r in final[:N - 1]] == [r["id"] for r in early]  # written lines are never rewritten
    assert [r["id"] for r in final].count(HELD) == 1 and final[-1]["id"] == HELD and len(final) == N
    for row in final:  # metrics listed in the selected order, whatever order the families ran in
        assert list(row["metrics"]) == JUDGED + ["token_f1"]
        assert row["metrics"]["faithfulness"]["status"] == types.OK
    # in memory, the input order is kept
    results = got["results"]
    assert [r.sample.id for r in results] == [f"s{i}" for i in range(N)]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["systems"]["a"]["faithfulness"]["scored"] == summary["systems"]["a"]["token_f1"]["scored"] == N


def test_a_slow_sample_holds_back_no_later_chunk(tmp_path):
    """The judge slides a window over the run: with chunks of 8 and the held sample in the first, the 40 - 1 other
    samples are all judged and written while it waits (chunks with a barrier would stop at the first 8)."""
    out = tmp_path / "out"
    n = 40
    got: dict[str, Any] = {}
    with HoldServer(latency=0.01) as server:
        judge = JudgeConfig(backend="openai", base_url=server.base_url, model="test", concurrency=4, cache=False,
                            api_key="dummy")

        def run() -> None:
            got["results"] = evaluate(rows(n), ["faithfulness"], judge=judge, out_dir=out, chunk_size=8)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        try:
            early = wait_for_lines(out / "results.jsonl", n - 1, thread.is_alive)
            assert thread.is_alive() and server.holding.is_set()
            assert len(early) == n - 1 and HELD not in {r["id"] for r in early}
        finally:
            server.release.set()
            thread.join(120)
    assert [r.sample.id for r in got["results"]] == [f"s{i}" for i in range(n)]
    assert lines(out / "results.jsonl")[-1]["id"] == HELD


def test_ctrl_c_keeps_every_sample_already_judged(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "OPENAI_API_KEY": "dummy", "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    with HoldServer(latency=0.02) as server:
        proc = subprocess.Popen([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "-q",
                                 "--metrics", "token_f1,faithfulness", "--judge-backend", "openai",
                                 "--judge-base-url", server.base_url, "--judge-model", "test", "--no-judge-cache"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                    preexec_fn=ctrl_c_heard)
        try:
            wait_for_lines(out / "results.jsonl", N - 1, lambda: proc.poll() is None)
            assert proc.poll() is None and server.holding.is_set()
            proc.send_signal(signal.SIGINT)
            stderr = proc.communicate(timeout=120)[1]
        finally:
            server.release.set()
            if proc.poll() is None:
                proc.kill()
                proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr[-3000:]
    done = lines(out / "results.jsonl")
    assert sorted(r["id"] for r in done) == sorted(f"s{i}" for i in range(N) if f"s{i}" != HELD)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["meta"]["interrupted"] is True
    assert summary["systems"]["a"]["token_f1"]["scored"] == summary["systems"]["a"]["faithfulness"]["scored"] == N - 1
