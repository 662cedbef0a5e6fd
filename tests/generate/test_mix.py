"""Type counts by the largest remainder; slots from the planner."""
import pytest

from genevals.generate.items import Chunk
from genevals.generate.mix import Planner, counts
from genevals.generate.mixfile import MixFile


def test_largest_remainder_counts_by_hand():
    # 10 items, weights 1:1:1 -> 3.33 each: floors 3,3,3, one left to the first listed (equal remainders)
    assert counts(MixFile({"fact": 1, "summary": 1, "reasoning": 1}), 10) == {"fact": 4, "summary": 3,
                                                                                 "reasoning": 3}
    # 7 items at 0.5/0.3/0.2 -> 3.5, 2.1, 1.4: floors 3,2,1, the one left to the largest remainder (0.5)
    assert counts(MixFile({"fact": 0.5, "multi_hop": 0.3, "unanswerable": 0.2}), 7) == {
        "fact": 4, "multi_hop": 2, "unanswerable": 1}
    assert counts(MixFile({"fact": 0.9, "summary": 0.1}), 3) == {"fact": 3}
    with pytest.raises(ValueError, match="unknown item type 'facts'"):
        counts(MixFile({"facts": 1}), 3)
    with pytest.raises(ValueError, match="non-negative"):
        counts(MixFile({"fact": -1, "summary": 2}), 3)


def test_planner_types_and_slots_are_fixed_by_the_seed():
    chunks = [Chunk(f"d{i}#0", f"d{i}", 0, f"Chunk {i} mentions Zanzibar{i // 2}", 0, 9) for i in range(6)]
    mix = MixFile({"fact": 2, "multi_hop": 1}, personas=(("novice", 1.0), ("expert", 1.0)),
                     lengths=(("short", 1.0),))
    plan = Planner(mix, chunks, seed=3)
    types = plan.types(6)
    assert sorted(types) == ["fact"] * 4 + ["multi_hop"] * 2
    slots = [plan.slot(i, t) for i, t in enumerate(types)]
    again = Planner(mix, chunks, seed=3)
    assert [again.slot(i, t) for i, t in enumerate(again.types(6))] == slots
    assert all(len(s.chunk_ids) == (2 if s.type == "multi_hop" else 1) for s in slots)
    assert {s.persona for s in slots} <= {"novice", "expert"} and {s.length for s in slots} == {"short"}
    assert sorted(s.chunk_ids[0] for s in slots) == sorted(c.id for c in chunks)  # coverage first
