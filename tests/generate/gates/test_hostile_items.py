"""Whatever a generator hands the gates (text in every script, control characters, wrong types, garbage turns, huge
chunks), the offline gates give every item a status and a reason and never raise."""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.gate_items import CHUNKS, chunk, fact

from genevals.generate.gates import ORDER, GateContext, run_gates
from genevals.generate.items import FLAGS, PASSED, REJECTIONS, TYPES, Evidence, Item

pytestmark = pytest.mark.slow  # 300 hypothesis examples and a 1.3 MB chunk: seconds of CPU

CTX = GateContext.build(CHUNKS + [chunk("huge#0", "The Varn Bridge opened in 1931. " * 40_000)])
STATUSES = set(REJECTIONS) | set(FLAGS) | {PASSED, "not_checked"}
IDS = st.sampled_from([c.id for c in CTX.chunks.values()] + ["nowhere#0", ""])
TEXT = st.text(max_size=200)
ANY = st.one_of(TEXT, st.none(), st.integers(), st.lists(TEXT, max_size=2))
TURN = st.one_of(st.dictionaries(st.sampled_from(["role", "content", "x"]), ANY, max_size=3), ANY)


@st.composite
def items(draw) -> Item:
    return Item(id=draw(TEXT), type=draw(st.one_of(st.sampled_from(TYPES), TEXT)), question=draw(ANY),
                reference=draw(ANY), chunks=tuple(draw(st.lists(IDS, max_size=3))),
                evidence=tuple(draw(st.lists(st.builds(Evidence, IDS, ANY), max_size=3))),
                expect_refusal=draw(st.booleans()), turns=tuple(draw(st.lists(TURN, max_size=3))))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items())
def test_any_item_gets_a_status_and_a_reason_for_each_gate_run(item):
    out = run_gates(item, CTX, [fact(id="kept")])
    assert out.gates and list(out.gates) == [g for g in ORDER if g in out.gates]
    assert set(out.gates.values()) <= STATUSES and all(out.gate_reasons[g] for g in out.gates)


def test_a_huge_chunk_and_a_huge_question_are_checked_in_every_script():
    for text in ("The Varn Bridge opened in 1931. ", "瓦恩桥于1931年开通。", "جسر فارن افتتح عام 1931. ", "\x00\ufeff\u202e"):
        item = fact(question=text * 5_000, chunks=("huge#0",), evidence=(Evidence("huge#0", "opened in 1931"),))
        out = run_gates(item, CTX, [replace(item, id="other")])
        assert out.gates and all(out.gate_reasons.values())
