"""kill -9 in the middle of a window, then a restart: every accepted sampled trace is scored exactly once (the
interrupted window is scored again from the queue, its half-written run folder replaced), every trace has one
line in the decision log, and SIGTERM scores the window left open before exiting."""
import json

import pytest
from support.fault_server import FaultServer
from support.watch_process import Watch, scored_ids, wait_for
from support.watch_traces import post, request, spans, trace_id

from genevals.watch import decisions

sampling = pytest.importorskip("genevals.watch.sampling")  # W2's module: the loop's triage needs it
pytestmark = pytest.mark.slow  # real watch processes, a judge server that answers one request at a time

DOC = "Paris is the capital of France."


def test_kill_9_mid_window_then_restart_scores_each_sampled_trace_once(tmp_path):
    ids = [trace_id(100 + i) for i in range(13)]
    chosen = [t for t in ids if sampling.sampled(t, 0.7)]
    assert len(chosen) >= 7 and len(chosen) % 3, len(chosen)  # the last window is left open for SIGTERM
    out = tmp_path / "w"
    with FaultServer(slots=1, latency=0.15) as server:  # a slow judge: a window takes about a second
        args = ("-m", "faithfulness", "--sample", "0.7", "--window", "3", "--grace", "0s", "--judge-backend",
                "openai", "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache")
        first = Watch(out, *args)
        try:
            for tid in ids:
                assert post(first.port, request(spans(tid, answer=DOC, docs=(DOC,))).SerializeToString())[0] == 200
            # window 2 is being scored: its traces file is written, its run folder not finished
            wait_for(lambda: (out / "windows" / "0002.traces.jsonl").exists(), limit=120, step=0.005)
            first.kill()
        finally:
            if first.proc.poll() is None:
                first.kill()
        assert not (out / "windows" / "0002" / "summary.json").exists()  # killed mid-window
        second = Watch(out, *args)
        try:
            # every trace decided but those of the last window, which stays open until SIGTERM
            wait_for(lambda: len(decisions.read(out)) == len(ids) - len(chosen) % 3, limit=120, step=0.1)
            code, stdout, stderr = second.stop()
        finally:
            if second.proc.poll() is None:
                second.kill()
    assert code == 0 and "Traceback" not in stderr, stderr
    assert "window 2 was interrupted: scoring it again" in stdout
    got = scored_ids(out)
    assert sorted(got) == sorted(chosen), "a sampled trace scored twice or not at all"
    log = decisions.read(out)
    assert sorted(line["trace_id"] for line in log) == sorted(ids)
    assert [line["seq"] for line in log] == list(range(1, len(ids) + 1))
    for line in log:
        assert line["decision"] == ("scored" if line["trace_id"] in chosen else "sampled_out")
    windows = sorted(p for p in (out / "windows").iterdir() if p.is_dir())
    assert len(windows) == -(-len(chosen) // 3)  # the last, open window scored on SIGTERM
    for folder in windows:
        summary = json.loads((folder / "summary.json").read_text())
        assert summary["systems"]["default"]["faithfulness"]["mean"] == 1.0


def test_ctrl_c_scores_the_open_window_and_exits_130(tmp_path):
    import signal

    watch = Watch(tmp_path / "w", "-m", "token_f1", "--window", "60s", "--grace", "0s")
    try:
        assert post(watch.port, request(spans(trace_id(1))).SerializeToString())[0] == 200
        watch.proc.send_signal(signal.SIGINT)
        _, err = watch.proc.communicate(timeout=120)
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    assert watch.proc.returncode == 130 and "Traceback" not in err, err
    assert scored_ids(tmp_path / "w") == [trace_id(1)]


def test_kill_9_after_the_window_was_recorded_keeps_one_history_record(tmp_path):
    """The gap a kill can fall in: the window's run is recorded in the history, its traces not yet decided. Held
    open by a stalled OTel receiver (it accepts and never answers, as a hung collector does: the export comes after
    the history record), the watcher is killed there; the restart scores the window again and the history holds
    it once, with the second attempt's values."""
    import socket
    import sqlite3

    stalled = socket.socket()
    stalled.bind(("127.0.0.1", 0))
    stalled.listen(8)
    history = tmp_path / "history.sqlite"
    out = tmp_path / "w"
    args = ("-m", "token_f1", "--window", "2", "--grace", "0s", "--history", history)

    def recorded():
        if not history.exists():
            return []
        with sqlite3.connect(history) as db:
            try:
                return [row[0] for row in db.execute("SELECT out_dir FROM runs")]
            except sqlite3.OperationalError:  # created, its tables not yet
                return []

    first = Watch(out, *args, "--otel-endpoint", f"http://127.0.0.1:{stalled.getsockname()[1]}")
    try:
        for i in range(2):
            assert post(first.port, request(spans(trace_id(300 + i))).SerializeToString())[0] == 200
        wait_for(recorded, limit=120, step=0.01)
        assert decisions.read(out) == []  # recorded, not decided: the export holds it
        first.kill()
    finally:
        if first.proc.poll() is None:
            first.kill()
        stalled.close()
    second = Watch(out, *args)
    try:
        wait_for(lambda: len(decisions.read(out)) == 2, limit=120, step=0.1)
        code, stdout, stderr = second.stop()
    finally:
        if second.proc.poll() is None:
            second.kill()
    assert code == 0 and "Traceback" not in stderr, stderr
    assert "window 1 was interrupted: scoring it again" in stdout
    assert recorded() == [str((out / "windows" / "0001").resolve())]
    assert sorted(scored_ids(out)) == sorted(trace_id(300 + i) for i in range(2))
