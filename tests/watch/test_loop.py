"""The loop in process, on a real queue and real runs, driven by the clock it is given: sessions scored after
their quiet period and re-scored with earlier turns carried when they continue, a window closed by time, the
judge-call cap (over_budget), and traces without a root after --max-wait."""
import json

import pytest
from support.watch_traces import request, spans, trace_id

from genevals.watch import decisions
from genevals.watch.config import WatchConfig
from genevals.watch.loop import Watcher
from genevals.watch.otlp import PROTOBUF, decode_body

pytest.importorskip("genevals.watch.sampling")  # W2's modules: triage, filters, alerts, trend
pytest.importorskip("genevals.watch.filters")
pytestmark = pytest.mark.slow  # real runs in process (the engine imported: seconds of CPU)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _watcher(tmp_path, clock, **kw):
    config = WatchConfig(out=tmp_path / "w", metrics=("token_f1",), otlp_port=0, **kw)
    return Watcher(config, clock=clock, say=lambda text: None)


def _add(watcher, *span_lists, now):
    records = decode_body(request([s for group in span_lists for s in group]).SerializeToString(), PROTOBUF, None,
                          1 << 24).records
    watcher.store.add(records, watcher.triage, now)


def _rows(out, number):
    """The window's rows, a conversation's turns each a row."""
    path = out / "windows" / f"{number:04d}" / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return [turn for row in rows for turn in row.get("turns", [row])]


def test_a_session_waits_for_its_quiet_period_and_carries_its_turns(tmp_path):
    clock = Clock(1000.0)
    watcher = _watcher(tmp_path, clock, session_idle=300.0, grace=1.0, window_seconds=10.0)
    one, two, three = trace_id(1), trace_id(2), trace_id(3)
    _add(watcher, spans(one, question="q1", session="s", start=1), now=1000.0)
    _add(watcher, spans(two, question="q2", session="s", start=2), now=1100.0)
    clock.now = 1399.0
    watcher.tick(clock.now)
    assert watcher.store.current_window() is None  # quiet for 299 s only
    clock.now = 1400.0
    watcher.tick(clock.now)
    clock.now = 1410.0
    watcher.tick(clock.now)  # the window, opened at 1400, closes at 1410
    assert [(r["id"], r["question"]) for r in _rows(tmp_path / "w", 1)] == [("s:1", "q1"), ("s:2", "q2")]
    _add(watcher, spans(three, question="q3", session="s", start=3), now=2000.0)
    clock.now = 2300.0
    watcher.tick(clock.now)
    clock.now = 2310.0
    watcher.tick(clock.now)
    # the session continued: scored again, its earlier turns carried as turns 1 and 2
    assert [(r["id"], r["question"]) for r in _rows(tmp_path / "w", 2)] == [("s:1", "q1"), ("s:2", "q2"),
                                                                             ("s:3", "q3")]
    log = decisions.read(tmp_path / "w")
    assert [(line["trace_id"], line["decision"], line["window"]) for line in log] == [
        (one, "scored", 1), (two, "scored", 1), (three, "scored", 2)]


def test_the_judge_call_cap_and_rootless_traces(tmp_path):
    clock = Clock(50.0)
    # three judge metrics a trace (as the command line counts them), at most 7 calls a window: two traces fit
    watcher = _watcher(tmp_path, clock, grace=0.0, window_traces=10, max_judge_calls=7, judge_metrics=3,
                       max_wait=30.0)
    a, b, c, rootless = trace_id(1), trace_id(2), trace_id(3), trace_id(4)
    _add(watcher, spans(a), spans(b), spans(c), spans(rootless, root=False), now=50.0)
    watcher.tick(50.0)
    assert watcher.store.current_window()[2] == 2
    clock.now = 80.0
    watcher.tick(80.0)
    log = {line["trace_id"]: line for line in decisions.read(tmp_path / "w")}
    assert log[c]["decision"] == "over_budget" and "window 1 has 6 of --max-judge-calls 7" in log[c]["reason"]
    assert "would add 3 (no judge configured to price this trace: calls counted as 1 a judge metric, a floor)" \
        in log[c]["reason"]  # the basis said
    assert log[rootless]["decision"] == "incomplete" and "30 s" in log[rootless]["reason"]
    assert a not in log and b not in log  # still in the open window
    assert watcher.store.counts()["spans"] == 4  # a and b's; c's and the rootless one's deleted


def test_overload_sheds_by_the_same_hash(tmp_path):
    from genevals.watch import sampling

    clock = Clock(10.0)
    watcher = _watcher(tmp_path, clock, queue_limit=40, max_wait=1e9)
    waiting = [trace_id(300 + i) for i in range(30)]  # 30 child spans, no roots: the queue is 75% full
    _add(watcher, *[spans(t, root=False) for t in waiting[:15]], now=10.0)
    _add(watcher, *[spans(t, root=False) for t in waiting[15:]], now=10.0)  # triaged at 37.5%: none shed
    assert watcher.store.waiting == 30
    # at 75% the rate is half of --sample 1: kept exactly when the hash unit is below 0.5
    fresh = [trace_id(400 + i) for i in range(40)]
    verdicts = {t: watcher.triage(t) for t in fresh}
    for t, verdict in verdicts.items():
        if sampling.unit(t, b"sample") < 0.5:
            assert verdict is None
        else:
            assert verdict[0] == "over_budget" and "75% full" in verdict[1] and "0.500000" in verdict[1]
    assert 0 < sum(v is None for v in verdicts.values()) < len(fresh)
