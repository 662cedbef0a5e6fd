"""Two watchers on one machine, ``--shard 0/2`` and ``--shard 1/2``, each sent every trace (as a collector that
does not route): each scores its own shard, the two disjoint and together complete; the other's traces are
``out_of_shard``."""
import pytest
from support.watch_process import Watch, scored_ids
from support.watch_traces import post, request, spans, trace_id

from genevals.watch import decisions

sampling = pytest.importorskip("genevals.watch.sampling")  # W2's module: the loop's triage needs it
pytestmark = pytest.mark.slow  # two real watch processes


def test_two_shards_score_disjoint_halves_that_cover_every_trace(tmp_path):
    ids = [trace_id(200 + i) for i in range(16)]
    watchers = [Watch(tmp_path / f"s{i}", "-m", "token_f1", "--shard", f"{i}/2", "--window", "60s", "--grace", "0s")
                for i in range(2)]
    try:
        for tid in ids:
            body = request(spans(tid)).SerializeToString()
            assert [post(w.port, body)[0] for w in watchers] == [200, 200]
        stopped = [w.stop() for w in watchers]
    finally:
        for w in watchers:
            if w.proc.poll() is None:
                w.kill()
    assert [code for code, _, _ in stopped] == [0, 0], [err for _, _, err in stopped]
    halves = [set(scored_ids(tmp_path / f"s{i}")) for i in range(2)]
    assert halves[0].isdisjoint(halves[1]) and halves[0] | halves[1] == set(ids)
    assert halves[0] and halves[1]
    for i in range(2):
        assert halves[i] == {t for t in ids if sampling.shard_of(t, 2) == i}
        log = {line["trace_id"]: line["decision"] for line in decisions.read(tmp_path / f"s{i}")}
        assert log == {t: "scored" if t in halves[i] else "out_of_shard" for t in ids}

