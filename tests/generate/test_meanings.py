"""Every rejection and flag of a generated item has its one line of meaning for the card."""
from genevals.generate.items import FLAGS, REJECTIONS
from genevals.generate.meanings import MEANINGS, meanings_of


def test_every_status_has_a_meaning():
    assert set(REJECTIONS) | set(FLAGS) == set(MEANINGS)
    assert all(line.strip() for line in MEANINGS.values())


def test_meanings_of_counted_statuses_only():
    assert meanings_of(["duplicate", None, "duplicate", "made_up"]) == {
        "duplicate": MEANINGS["duplicate"], "made_up": "no meaning recorded for this status"}
