"""The queue in a real SQLite file: committed batches survive a new connection (as after kill -9), the bound,
one decision per trace, spans deleted once decided, a window's traces and its completion in one transaction."""
import sqlite3

import pytest
from support.watch_traces import request, spans, trace_id

from genevals.watch import decisions
from genevals.watch.otlp import PROTOBUF, decode_body
from genevals.watch.store import QueueFull, Store, StoreError


def _records(*tids, **kw):
    out = []
    for tid in tids:
        out += spans(tid, **kw)
    return decode_body(request(out).SerializeToString(), PROTOBUF, None, 1 << 24).records


def _keep(_trace):
    return None


def test_a_committed_batch_is_on_disk_for_the_next_process(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    assert store.add(_records(trace_id(1), trace_id(2)), _keep, now=10.0) == 4
    # no close: a second connection reads what the first committed, as a restart after kill -9 would
    again = Store(tmp_path / "q.sqlite", 100)
    assert again.counts() == {"waiting": 2, "spans": 4} and again.waiting == 4
    assert sqlite3.connect(tmp_path / "q.sqlite").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_bound_refuses_a_whole_batch(tmp_path):
    store = Store(tmp_path / "q.sqlite", 5)
    store.add(_records(trace_id(1), trace_id(2)), _keep, now=1.0)
    with pytest.raises(QueueFull, match="--queue-limit 5"):
        store.add(_records(trace_id(3)), _keep, now=2.0)
    assert store.counts() == {"waiting": 2, "spans": 4}  # nothing of the refused batch, not even its trace row
    store.add(_records(trace_id(1)), _keep, now=3.0)  # a retry of stored spans adds nothing and fits


def test_triage_decides_on_arrival_and_late_spans_are_dropped(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    out = trace_id(7)
    kept = store.add(_records(out, trace_id(8)), lambda t: ("sampled_out", "hash") if t == out else None, 1.0)
    assert kept == 2 and store.add(_records(out), _keep, 2.0) == 0
    assert [(r[1], r[2]) for r in store.decisions_after(0)] == [(out, "sampled_out")]


def test_readiness_grace_rootless_and_sessions(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    store.add(_records(trace_id(1)), _keep, now=100.0)
    store.add(_records(trace_id(2), root=False), _keep, now=100.0)
    store.add(_records(trace_id(3), session="s"), _keep, now=100.0)
    assert store.ready(101.0, grace=2.0, session_idle=30.0) == []
    assert store.ready(102.0, grace=2.0, session_idle=30.0) == [(trace_id(1), None)]
    assert store.ready(130.0, grace=2.0, session_idle=30.0)[-1] == (trace_id(3), "s")
    assert store.rootless(150.0, max_wait=60.0) == [] and store.rootless(160.0, max_wait=60.0) == [trace_id(2)]


def test_a_window_is_done_with_its_decisions_in_one_transaction(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    a, b = trace_id(1), trace_id(2)
    store.add(_records(a, b), _keep, now=1.0)
    number, opened, count = store.open_window(5.0)
    assert (number, opened, count) == (1, 5.0, 0)
    store.assign([a, b], number)
    assert store.open_window(6.0) == (1, 5.0, 2)
    store.close_window(number)
    assert store.running() == [1] and sorted(store.window_traces(1)) == sorted([a, b])
    assert {t for t, _ in store.window_spans(1)} == {a, b}
    store.finish_window(1, [(a, "scored", "window 1"), (b, "failed", "no answer")], now=9.0)
    assert store.running() == [] and store.counts() == {"done": 2, "spans": 0} and store.waiting == 0
    assert store.open_window(10.0)[0] == 2  # the next window


def test_a_finished_window_rolls_back_whole_when_the_store_fails(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    a = trace_id(1)
    store.add(_records(a), _keep, now=1.0)
    store.assign([a], store.open_window(2.0)[0])
    store.close_window(1)
    with pytest.raises(StoreError):  # a decision that cannot be written (NOT NULL): nothing of the window changes
        store.finish_window(1, [(a, "scored", None)], now=3.0)
    assert store.running() == [1] and store.counts() == {"assigned": 1, "spans": 2}


def test_session_spans_are_kept_and_carried(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    first, second = trace_id(1), trace_id(2)
    store.add(_records(first, session="s"), _keep, now=1.0)
    store.assign([first], store.open_window(2.0)[0])
    store.close_window(1)
    store.finish_window(1, [(first, "scored", "window 1")], now=3.0)
    assert store.counts()["spans"] == 2  # kept: the session may continue
    store.add(_records(second, session="s"), _keep, now=4.0)
    store.assign([second], store.open_window(5.0)[0])
    assert [t for t, _ in store.window_spans(2)] == [first, first, second, second]


def test_the_decision_log_writes_each_decision_once(tmp_path):
    store = Store(tmp_path / "q.sqlite", 100)
    store.add(_records(trace_id(1), trace_id(2)), lambda t: ("out_of_shard", "shard 1 of 2"), now=1.0)
    assert decisions.sync(store, tmp_path) == 2
    assert decisions.sync(store, tmp_path) == 0
    log = tmp_path / decisions.NAME
    # a kill mid-append: the partial line is cut off and written again whole; a kill after the append but before
    # the queue forgot the decisions writes nothing twice
    store.add(_records(trace_id(3)), lambda t: ("sampled_out", "hash 0.9 >= 0.1"), now=2.0)
    rows = store.decisions_after(0)
    with open(log, "a") as handle:
        handle.write(decisions.line(*rows[0])[:20])
    assert decisions.sync(store, tmp_path) == 1
    lines = decisions.read(tmp_path)
    assert [x["seq"] for x in lines] == [1, 2, 3]
    assert lines[2] == {"seq": 3, "trace_id": trace_id(3), "decision": "sampled_out", "reason": "hash 0.9 >= 0.1",
                        "window": None, "time": "1970-01-01T00:00:02.000Z"}


def test_a_queue_another_process_keeps_locked_answers_503_then_recovers(tmp_path):
    """A real fault: another connection holds the file's write lock past the store's busy timeout."""
    from support.watch_traces import post

    from genevals.watch.config import WatchConfig
    from genevals.watch.receiver import Receiver

    config = WatchConfig(out=tmp_path, metrics=("token_f1",), otlp_port=0)
    store = Store(tmp_path / "q.sqlite", 100, busy_timeout=0.2)
    receiver = Receiver(config, store, _keep)
    port = receiver.start()
    try:
        other = sqlite3.connect(tmp_path / "q.sqlite", isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        status, headers, body = post(port, request(spans(trace_id(1))).SerializeToString())
        assert status == 503 and headers["Retry-After"] == "5" and b"cannot be written" in body
        other.execute("ROLLBACK")
        other.close()
        assert post(port, request(spans(trace_id(1))).SerializeToString())[0] == 200
    finally:
        receiver.stop()
    assert store.counts() == {"waiting": 1, "spans": 2}
