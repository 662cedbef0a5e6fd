"""A conversation is the unit of work (issue 38, point 6): every engine keeps a conversation's turns together
(chunks, worker processes' blocks and shares, the judge's stream), results.jsonl holds one line per conversation,
and a run SIGKILLed mid-way then resumed gives what an uninterrupted run gives. Real `genevals` processes; what
the engine scheduled is read from its schedule log (genevals.engine.units.SCHEDULE_LOG)."""
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

from genevals.api import evaluate
from genevals.engine.units import SCHEDULE_LOG
from genevals.output import runfolder
from support import conversation_runs as conv
from support.fault_server import SlowServer

REPO = Path(__file__).resolve().parents[2]
TURNS = 3


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "dummy", **extra,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def genevals(*args, env=None, timeout=300) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          env=env or _env(), timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def per_turn(run_dir: Path) -> dict[tuple[str, str], dict]:
    """Each turn's record as the readers give it, keyed by (system, id); a turn read twice fails."""
    rows = [row for _, row in runfolder.iter_rows(run_dir)]
    keys = [(r["system"], r["id"]) for r in rows]
    assert len(keys) == len(set(keys)), Counter(keys).most_common(3)
    return dict(zip(keys, rows))


def assert_one_line_per_conversation(run_dir: Path, n: int) -> None:
    found = conv.lines(run_dir / runfolder.RESULTS_FILE)
    assert len(found) == n
    for line in found:
        assert set(line) - {"messages"} == {"conversation_id", "system", "turns"}  # messages: the histories'
        assert [t["turn"] for t in line["turns"]] == list(range(1, TURNS + 1))
        assert {t["conversation_id"] for t in line["turns"]} == {line["conversation_id"]}


def test_two_worker_processes_give_one_process_results_and_split_no_conversation(tmp_path):
    # 1,200 conversations of 3 turns: worker blocks of 1,000 samples would cut one (1,000 is no multiple of 3)
    n = 1200
    data = conv.write(tmp_path / "chats.jsonl", n, TURNS)
    log = tmp_path / "scheduled.jsonl"
    for workers in (1, 2):
        genevals("run", data, "-m", "token_f1", "--workers", workers, "-o", tmp_path / f"w{workers}", "--no-history",
                 "-q", env=_env(**{SCHEDULE_LOG: str(log)}))
    units = conv.scheduled(log)
    assert {u["where"] for u in units} >= {"chunk", "worker block"}
    blocks = [u for u in units if u["where"] == "worker block"]
    assert len(blocks) >= 3 and sum(len(u["ids"]) for u in blocks) == n * TURNS
    assert max(len(u["ids"]) for u in blocks) == 1002  # a block runs past its size to finish a conversation
    assert conv.split_conversations(units, TURNS) == []
    one, two = per_turn(tmp_path / "w1"), per_turn(tmp_path / "w2")
    assert len(one) == n * TURNS and one == two
    for folder in ("w1", "w2"):
        assert_one_line_per_conversation(tmp_path / folder, n)
    s1, s2 = (json.loads((tmp_path / f / "summary.json").read_text()) for f in ("w1", "w2"))
    assert s1["systems"] == s2["systems"]


def test_a_small_chunk_size_keeps_interleaved_conversations_whole(tmp_path, monkeypatch):
    # flat rows with every conversation's turn 1 first: chunks of 2 samples must wait for whole conversations
    n = 7
    flat = conv.write_flat_interleaved(tmp_path / "flat.jsonl", n, TURNS)
    log = tmp_path / "scheduled.jsonl"
    monkeypatch.setenv(SCHEDULE_LOG, str(log))
    small = evaluate(flat, ["token_f1"], chunk_size=2, workers=1, out_dir=tmp_path / "small")
    monkeypatch.delenv(SCHEDULE_LOG)
    whole = evaluate(conv.write(tmp_path / "native.jsonl", n, TURNS), ["token_f1"], out_dir=tmp_path / "whole")
    units = conv.scheduled(log)
    assert [len(u["ids"]) for u in units] == [3] * n  # each chunk of 2 grew to the 3 turns of a conversation
    assert conv.split_conversations(units, TURNS) == []
    assert_one_line_per_conversation(tmp_path / "small", n)
    strip = lambda rows: {k: {**r, "origin": None} for k, r in rows.items()}  # noqa: E731  (input lines differ)
    assert strip(per_turn(tmp_path / "small")) == strip(per_turn(tmp_path / "whole"))
    assert len(small.samples) == len(whole.samples) == n * TURNS
    assert small.summary()["systems"] == whole.summary()["systems"]




def _judged(data: Path, out: Path, cache: Path, url: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "--metrics",
            "token_f1,faithfulness", "--judge-backend", "openai", "--judge-base-url", url, "--judge-model", "test",
            "--judge-cache", str(cache), "--judge-concurrency", "2", "--no-preflight", "--no-history", "-q", *extra]


def _comparable(row: dict) -> dict:
    """A turn's record without the judge's usage (a resumed run reads some replies from its cache)."""
    metrics = {}
    for name, m in row["metrics"].items():
        details = {k: v for k, v in (m.get("details") or {}).items() if k not in ("usage", "transcript")}
        metrics[name] = {"value": m["value"], "status": m["status"], "reason": m.get("reason"), "details": details}
    return {"sample": {k: v for k, v in row.items() if k != "metrics"}, "metrics": metrics}


def test_the_judge_stream_writes_whole_conversations_and_a_sigkill_then_resume_equals_a_whole_run(tmp_path):
    n = 12
    data = conv.write(tmp_path / "chats.jsonl", n, TURNS)
    with SlowServer(0.05) as server:
        done = subprocess.run(_judged(data, tmp_path / "full", tmp_path / "cache_full", server.base_url),
                              env=_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        part = tmp_path / "part"
        results = part / runfolder.RESULTS_FILE
        proc = subprocess.Popen(_judged(data, part, tmp_path / "cache_part", server.base_url), env=_env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 120
            while time.time() < deadline and not conv.lines(results) and proc.poll() is None:
                time.sleep(0.01)
            assert proc.poll() is None, "the run ended before the kill: raise the latency or the conversations"
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        before = conv.lines(results)
        assert 0 < len(before) < n
        # what was written before the kill is whole conversations only, never a turn of an unfinished one
        assert all(len(line["turns"]) == TURNS for line in before)
        done = subprocess.run(_judged(data, part, tmp_path / "cache_part", server.base_url, "--resume"),
                              env=_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    after = conv.lines(results)
    assert after[:len(before)] == before  # nothing written was lost or rewritten
    assert_one_line_per_conversation(part, n)
    assert_one_line_per_conversation(tmp_path / "full", n)
    full, resumed = per_turn(tmp_path / "full"), per_turn(part)
    assert set(full) == set(resumed) and len(full) == n * TURNS
    for key in full:
        assert _comparable(resumed[key]) == _comparable(full[key]), key
    s_full, s_part = (json.loads((d / "summary.json").read_text()) for d in (tmp_path / "full", part))
    for name in ("token_f1", "faithfulness"):  # each turn counted once
        a, b = s_full["systems"]["default"][name], s_part["systems"]["default"][name]
        assert (a["mean"], a["scored"], a["total"]) == (b["mean"], b["scored"], b["total"]), name


def test_resume_with_worker_processes_scores_whole_conversations(tmp_path, monkeypatch):
    # Resuming runs the chunked strategy: its worker processes' shares of a chunk are cut between conversations
    n = 40
    data = conv.write(tmp_path / "chats.jsonl", n, TURNS)
    out = tmp_path / "run"
    evaluate(data, ["token_f1"], out_dir=out)
    reference = per_turn(out)
    results = out / runfolder.RESULTS_FILE
    kept = results.read_text(encoding="utf-8").splitlines(keepends=True)[:5]
    results.write_text("".join(kept), encoding="utf-8")  # 5 conversations written, 35 to score
    log = tmp_path / "scheduled.jsonl"
    monkeypatch.setenv(SCHEDULE_LOG, str(log))
    evaluate(data, ["token_f1"], out_dir=out, resume=True, workers=2, chunk_size=8)
    units = conv.scheduled(log)
    assert {"chunk", "worker share"} <= {u["where"] for u in units}
    assert conv.split_conversations(units, TURNS) == []
    assert per_turn(out) == reference
    assert_one_line_per_conversation(out, n)


def test_ray_batches_whole_conversations(tmp_path, monkeypatch):
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    from genevals.engine import ray as ray_engine

    n = 10
    data = conv.write(tmp_path / "chats.jsonl", n, TURNS)
    log = tmp_path / "scheduled.jsonl"
    monkeypatch.setenv(SCHEDULE_LOG, str(log))
    ray_engine.evaluate(data, ["token_f1"], out_dir=tmp_path / "ray", batch_size=2, rows_per_pass=4, num_cpus=2)
    monkeypatch.delenv(SCHEDULE_LOG)
    evaluate(data, ["token_f1"], out_dir=tmp_path / "local")
    units = conv.scheduled(log)
    assert [len(u["ids"]) for u in units if u["where"] == "ray pass"] == [6] * 5  # 4 rows grew to 2 conversations
    assert conv.split_conversations(units, TURNS) == []
    assert_one_line_per_conversation(tmp_path / "ray", n)
    assert per_turn(tmp_path / "ray") == per_turn(tmp_path / "local")
