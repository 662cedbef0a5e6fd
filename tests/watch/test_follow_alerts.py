"""The loop wired to W2's pieces, in real processes: ``--follow`` a file that grows and is rotated, a restart that
resumes where it stopped (no trace read twice), a filter; an alert that fires on a window (faithfulness judged by
the fault server, values known by hand) POSTed to a receiver on 127.0.0.1 and recorded; the trend page written."""
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from support.fault_server import FaultServer
from support.watch_process import Watch, scored_ids, wait_for
from support.watch_traces import json_body, request, spans, trace_id

from genevals.watch import decisions

pytest.importorskip("genevals.watch.follow")  # W2's modules
pytest.importorskip("genevals.watch.alerts")
pytest.importorskip("genevals.watch.trend")
pytestmark = pytest.mark.slow  # real watch processes, a judge server

DOC = "Paris is the capital of France."


def _append(path, *tids, env="prod", answer=DOC):
    with open(path, "ab") as out:
        for tid in tids:
            message = request(spans(tid, answer=answer, docs=(DOC,)), resource={"deployment.environment": env})
            out.write(json_body(message) + b"\n")
            out.flush()


def test_follow_a_growing_and_rotated_file_then_resume(tmp_path):
    log, out = tmp_path / "app.jsonl", tmp_path / "w"
    args = ("-m", "token_f1", "--follow", log, "--grace", "0s", "--window", "60s",
            "--filter", "deployment.environment=prod")
    first = Watch(out, *args, port=False)
    try:
        _append(log, trace_id(1), trace_id(2))
        _append(log, trace_id(3), env="dev")
        with open(log, "ab") as half:  # a writer's half-written line waits for its newline
            half.write(json_body(request(spans(trace_id(4), docs=(DOC,)), {"deployment.environment": "prod"}))[:40])
        wait_for(lambda: len(decisions.read(out)) >= 1 or None, limit=60)  # the dev trace is filtered at once
        os.rename(log, tmp_path / "app.jsonl.1")  # rotated: the old file is finished, then the new one read
        _append(log, trace_id(5))
        wait_for(lambda: (out / "queue.sqlite").exists() and _waiting(out) >= 3, limit=60)
        code, _, err = first.stop()
    finally:
        if first.proc.poll() is None:
            first.kill()
    assert code == 0 and "Traceback" not in err, err
    assert sorted(scored_ids(out)) == sorted([trace_id(1), trace_id(2), trace_id(5)])
    second = Watch(out, *args, port=False)  # resumes after the last line read: nothing read twice
    try:
        _append(log, trace_id(6))
        wait_for(lambda: _waiting(out) >= 1, limit=60)
        code, _, err = second.stop()
    finally:
        if second.proc.poll() is None:
            second.kill()
    assert code == 0 and "Traceback" not in err, err
    assert sorted(scored_ids(out)) == sorted([trace_id(1), trace_id(2), trace_id(5), trace_id(6)])
    by_trace = {d["trace_id"]: d["decision"] for d in decisions.read(out)}
    assert by_trace == {trace_id(1): "scored", trace_id(2): "scored", trace_id(3): "filtered",
                        trace_id(5): "scored", trace_id(6): "scored"}  # trace 4's line was never finished


def _waiting(out):
    """Traces assigned to the open window (read from the queue as another process may)."""
    import sqlite3

    with sqlite3.connect(out / "queue.sqlite", timeout=30) as db:
        return db.execute("SELECT count(*) FROM traces WHERE state = 'assigned'").fetchone()[0]


class _Hook:
    """A JSON endpoint on 127.0.0.1 that keeps what is POSTed to it."""

    def __init__(self):
        self.bodies = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                hook.bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_an_alert_fires_on_a_window_below_its_threshold_and_the_trend_page_is_written(tmp_path):
    export, out = tmp_path / "export.jsonl", tmp_path / "w"
    # window 1: two answers with half their claims supported (0.5 each); window 2: two fully supported (1.0)
    _append(export, trace_id(1), trace_id(2), answer=f"{DOC} It has nine million people.")
    _append(export, trace_id(3), trace_id(4))
    hook = _Hook()
    try:
        with FaultServer() as server:
            from support.cli import genevals

            done = genevals("watch", "--out", out, "-m", "faithfulness", "--from", export, "--window", "2",
                            "--alert", "faithfulness<0.8", "--alert-url", hook.url, "--judge-backend", "openai",
                            "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache")
    finally:
        hook.server.shutdown()
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert len(hook.bodies) == 1, hook.bodies  # window 1 only: its mean 0.5 < 0.8; window 2's 1.0 is not
    fired = hook.bodies[0]
    assert fired["window"] == "0001" and fired["alert"] == "faithfulness<0.8"
    assert [(b["system"], b["mean"], b["scored"], b["coverage"]) for b in fired["breaches"]] == [
        ("default", 0.5, 2, 1.0)]
    recorded = [json.loads(line) for line in (out / "alerts.jsonl").read_text().splitlines()]
    assert len(recorded) == 1 and recorded[0]["deliveries"]
    assert (out / "trend.html").exists() and "0002" in (out / "trend.html").read_text()
