"""The deterministic checks behind the gates adapter: each rejection named, the judge's checks not_checked."""
from dataclasses import replace

from genevals.generate.checks import Gatekeeper
from genevals.generate.items import Chunk, Evidence, Item

C = Chunk("d#0", "d", 0, "Pumps move water. Valves stop it.", 0, 33)
GOOD = Item("g1", "extractive", "pumps water", "Valves stop it.", ("d#0",), (Evidence("d#0", "Valves stop it."),),
            language="en")


def _gates(language=None, earlier=()):
    return Gatekeeper({"d#0": C}, language=language, earlier=earlier)


def test_a_good_item_passes_and_gets_its_quote_located():
    checked = _gates().run(GOOD, [])
    assert checked.gates == {"generation": "passed", "type": "passed", "evidence": "passed", "duplicate": "passed",
                             "judge": "not_checked"}
    assert checked.rejection is None and (checked.evidence[0].start, checked.evidence[0].end) == (18, 33)


def test_each_rejection_is_named():
    gates = _gates(language="en", earlier=[replace(GOOD, id="old", question="Valves   STOP")])
    assert gates.run(replace(GOOD, question=" "), []).rejection == "generation_failed"
    assert gates.run(replace(GOOD, type="multi_hop"), []).rejection == "type_mismatch"
    assert gates.run(replace(GOOD, evidence=(Evidence("d#0", "Valves stop water."),)), []).rejection == \
        "ungrounded_reference"
    assert gates.run(replace(GOOD, evidence=(Evidence("d#0", "Valves", 0, 6),)), []).evidence[0].start == 18
    assert gates.run(replace(GOOD, language="fr"), []).rejection == "wrong_language"
    assert gates.run(GOOD, [replace(GOOD, id="g0", question="PUMPS  water")]).rejection == "duplicate"
    assert gates.run(replace(GOOD, question="valves stop"), []).rejection == "duplicate"  # an earlier set's
    assert gates.name.startswith("deterministic checks")
