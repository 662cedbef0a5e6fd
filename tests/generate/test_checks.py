"""The driver's gates adapter runs the gates package (tests/generate/gates has each gate's own tests): offline,
a good item passes every rule and gets its quote located, the judge gates say not_checked, and a rejection is
named."""
from dataclasses import replace

from genevals.generate.checks import Gatekeeper
from genevals.generate.gates import NOT_CHECKED
from genevals.generate.items import PASSED, Chunk, Evidence, Item

C = Chunk("d#0", "d", 0, "Pumps move water through the old mill. Valves stop it at night.", 0, 64)
GOOD = Item("g1", "extractive", "When do valves stop the water at the old mill?", "Valves stop it at night.",
            ("d#0",), (Evidence("d#0", "Valves stop it at night."),), language="en")


def test_a_good_item_passes_the_rules_and_the_judge_gates_are_not_checked():
    checked = Gatekeeper({"d#0": C}).run(GOOD, [])
    assert checked.rejection is None, checked.gates
    assert (checked.evidence[0].start, checked.evidence[0].end) == (39, 63)
    assert C.text[39:63] == "Valves stop it at night."
    rules = {k: v for k, v in checked.gates.items() if v != NOT_CHECKED}
    assert rules and set(rules.values()) == {PASSED}, checked.gates
    assert NOT_CHECKED in checked.gates.values()


def test_rejections_are_named():
    gates = Gatekeeper({"d#0": C}, earlier=[replace(GOOD, id="old", question="Who built the old mill?")])
    assert gates.run(replace(GOOD, evidence=(Evidence("d#0", "Valves stop water."),)), []).rejection == \
        "ungrounded_reference"
    assert gates.run(GOOD, [replace(GOOD, id="g0")]).rejection == "duplicate"
    assert gates.run(replace(GOOD, question="Who built the old mill?"), []).rejection == "duplicate"
    assert gates.run(replace(GOOD, question="According to the text, when do valves stop the water?"), []).rejection == \
        "not_self_contained"
