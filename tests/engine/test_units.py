"""A conversation is grouped once, where the plan hands the samples over (whole_conversations); from there a chunk
carries its units' sizes, and a worker's share, the results file's lines and the chunks themselves follow them."""
from __future__ import annotations

import json

from genevals.engine.units import Chunk, cut, pack, split, whole_conversations
from genevals.output.runfolder import results_text
from genevals.types import Sample, SampleResult


def _turn(c: str, t: int) -> Sample:
    return Sample(f"{c}:{t}", f"answer {t}", conversation_id=c, turn=t)


def _alone(i: int) -> Sample:
    return Sample(f"q{i}", "answer")


def test_interleaved_turns_become_whole_units_once_the_last_has_come():
    items = [_turn("a", 1), _alone(0), _turn("b", 1), _turn("a", 2), _turn("b", 2)]
    units = list(whole_conversations(items, {("default", "a"): 2, ("default", "b"): 2}))
    assert [[s.id for s in u] for u in units] == [["q0"], ["a:1", "a:2"], ["b:1", "b:2"]]


def test_a_chunk_grows_to_finish_a_unit_and_keeps_its_sizes():
    units = [[_alone(0)], [_turn("a", 1), _turn("a", 2), _turn("a", 3)], [_alone(1)], [_alone(2)]]
    chunks = list(pack(iter(units), 2))
    assert [len(c) for c in chunks] == [4, 2]
    assert chunks[0].sizes == [1, 3] and chunks[1].sizes is None  # samples each alone: no sizes to carry
    assert [[s.id for s in u] for u in chunks[0].units()] == [["q0"], ["a:1", "a:2", "a:3"]]


def test_a_worker_share_ends_with_its_last_unit():
    chunk = Chunk([_turn("a", 1), _turn("a", 2), _turn("a", 3), _alone(0), _turn("b", 1), _turn("b", 2)],
                  [3, 1, 2])
    assert [[s.id for s in part] for part in split(chunk, 2)] == [["a:1", "a:2", "a:3"], ["q0", "b:1", "b:2"]]
    assert [len(part) for part in split(Chunk([_alone(i) for i in range(5)]), 2)] == [3, 2]


def test_each_unit_is_one_line():
    results = [SampleResult(sample=s) for s in (_alone(0), _turn("a", 2), _turn("a", 1), _alone(1))]
    lines = [json.loads(line) for line in results_text(cut(results, [1, 2, 1])).splitlines()]
    assert [line.get("id") for line in lines] == ["q0", None, "q1"]
    assert [turn["turn"] for turn in lines[1]["turns"]] == [1, 2]  # in turn order
