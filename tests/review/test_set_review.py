"""The review of a generated set: the queue's draw, the verdicts, the valid-item rate and its Wilson interval,
each against a hand calculation or scipy; decisions through the real store (schema version 5)."""
from __future__ import annotations

import json
import sqlite3

import pytest
from scipy.stats import binomtest

from genevals.review import set_review
from genevals.review.records import StoreError
from genevals.review.store import ReviewStore, store_path
from genevals.review.testset import load_set
from support.set_folders import write_set


def test_wilson_matches_the_hand_values_and_scipy():
    # 7 of 10: p=0.7, z=1.96: centre (0.7 + 0.19207)/1.38415 = 0.64449, half 1.41600*sqrt(0.021+0.0009604) = 0.24770
    low, high = set_review.wilson(7, 10)
    assert low == pytest.approx(0.396778, abs=1e-6) and high == pytest.approx(0.892209, abs=1e-6)
    for k, m in ((0, 5), (5, 5), (4, 5), (31, 57)):
        ref = binomtest(k, m).proportion_ci(method="wilson")
        assert set_review.wilson(k, m) == pytest.approx((ref.low, ref.high), abs=1e-9)


def test_the_draw_is_seeded_uniform_and_the_rejected_share_apart(tmp_path):
    gen = load_set(write_set(tmp_path / "s", kept=20, rejected=10))
    a, b = set_review.draw(gen, 8, seed=7, rejected_share=0.25), set_review.draw(gen, 8, seed=7, rejected_share=0.25)
    assert a == b and a != set_review.draw(gen, 8, seed=8, rejected_share=0.25)
    kept = [e for e in a if e.stratum == "kept"]
    rejected = [e for e in a if e.stratum == "rejected"]
    assert len(kept) == 8 and len(rejected) == 2  # round(0.25 x 8)
    assert {e.inclusion_probability for e in kept} == {8 / 20} and {e.inclusion_probability for e in rejected} == {2 / 10}
    assert len({e.sample_id for e in a}) == 10 and [e.position for e in a] == list(range(10))
    # uniform: over many seeds every kept item is drawn about n/N of the time (8/20 = 0.4)
    hits = {i.id: 0 for i in gen.kept}
    for seed in range(2000):
        for e in set_review.draw(gen, 8, seed):
            hits[e.sample_id] += 1
    assert all(abs(h / 2000 - 0.4) < 0.05 for h in hits.values()), hits


def _decide(store, gen, item_id, decision, reviewer="ann", reason=None, note=""):
    item = next(i for i in (*gen.kept, *gen.rejected) if i.id == item_id)
    return set_review.add_decision(store, set_review.ItemDecision(reviewer, item.group, item.id, decision, item.digest,
                                                                  reason, note))


def test_the_rate_over_the_queue_equals_the_hand_count(tmp_path):
    gen = load_set(write_set(tmp_path / "s", kept=10, rejected=4))
    queue, new = set_review.ensure_queue(gen, 6, 1, 0.5)
    assert new and queue.drawn == {"kept": 6, "rejected": 3}
    kept = [i for s, i, _, _ in queue.entries if s == "kept"]
    rejected = [i for s, i, _, _ in queue.entries if s == "rejected"]
    outside = next(i.id for i in gen.kept if i.id not in kept)
    with ReviewStore(gen.folder) as store:
        for item_id in kept[:3]:
            _decide(store, gen, item_id, "valid")
        _decide(store, gen, kept[3], "invalid", reason="not_answerable")
        _decide(store, gen, kept[4], "unsure")
        _decide(store, gen, kept[0], "valid", reviewer="bob")
        _decide(store, gen, kept[1], "invalid", reviewer="bob", reason="other", note="asks two things")  # a tie
        _decide(store, gen, outside, "invalid", reason="duplicate")  # not queued: not in the rate
        _decide(store, gen, rejected[0], "valid")
        _decide(store, gen, kept[2], "invalid", reviewer="cy", reason="wrong_type")
        _decide(store, gen, kept[2], "withdrawn", reviewer="cy")  # taken back
        decisions = set_review.read_decisions(store)
    rates = set_review.estimate(gen, queue, decisions)
    # kept: k0 valid (2-0), k1 tie -> unsure, k2 valid, k3 invalid, k4 unsure, k5 undecided: 2 valid of 3
    assert rates["kept"] | {"ci95": None} == {"rate": 2 / 3, "ci95": None, "n": 3, "valid": 2, "invalid": 1,
                                              "unsure": 2, "undecided": 1, "gone": 0, "queue": 6, "items": 10,
                                              "reasons": {"not_answerable": 1, "other": 1}}
    assert rates["kept"]["ci95"] == pytest.approx(list(set_review.wilson(2, 3)))
    assert rates["rejected"]["n"] == 1 and rates["rejected"]["rate"] == 1.0 and rates["rejected"]["queue"] == 3
    section = set_review.card_section(rates, queue)
    set_review.write_card(gen, section)
    card = json.loads((gen.folder / "card.json").read_text())
    assert card["kept"] == 10 and card["human_review"]["valid_item_rate"] == pytest.approx(2 / 3)
    assert card["human_review"]["seed"] == 1 and card["human_review"]["queue_size"] == 6
    assert card["human_review"]["unsure"] == 2 and card["human_review"]["rejected"]["n"] == 1
    # the same store serves the same queue; another size is refused, naming the file
    assert set_review.ensure_queue(gen, 6, 99, 0.5) == (queue, False)
    with pytest.raises(StoreError, match="--queue 6"):
        set_review.ensure_queue(gen, 5, 1, 0.5)


def test_a_changed_item_makes_its_decisions_stale(tmp_path):
    folder = write_set(tmp_path / "s", kept=3)
    gen = load_set(folder)
    queue, _ = set_review.ensure_queue(gen, 3, 1, 0.0)
    with ReviewStore(folder) as store:
        for item in gen.kept:
            _decide(store, gen, item.id, "valid")
        decisions = set_review.read_decisions(store)
    rows = [json.loads(line) for line in (folder / "testset.jsonl").read_text().splitlines()]
    rows[0]["references"] = ["1500"]
    (folder / "testset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rates = set_review.estimate(load_set(folder), queue, decisions)
    assert rates["kept"]["n"] == 2 and rates["kept"]["undecided"] == 1


@pytest.mark.parametrize("fields, message", [
    ({"decision": "fine"}, "decision: one of"), ({"decision": "invalid"}, "reason: an invalid item needs one"),
    ({"decision": "valid", "reason": "duplicate"}, "reason"),
    ({"decision": "invalid", "reason": "other"}, "note: the reason 'other' needs a note"),
    ({"decision": "invalid", "reason": "ugly"}, "reason: one of")])
def test_a_decision_that_cannot_be_one_is_refused(fields, message):
    with pytest.raises(StoreError, match=message):
        set_review.ItemDecision(**{"reviewer": "ann", "group": "kept", "item": "g0", "digest": "x", **fields})


def test_the_table_refuses_what_the_value_refuses_and_a_version_4_store_is_migrated(tmp_path):
    folder = write_set(tmp_path / "s", kept=1)
    with ReviewStore(folder):
        pass
    with sqlite3.connect(store_path(folder)) as db:  # back to what version 4 wrote: no item_decisions table
        db.execute("DROP TABLE item_decisions")
        db.execute("PRAGMA user_version = 4")
    with ReviewStore(folder, readonly=True) as store:  # read-only, a version 4 file is read as it is
        assert store.version == 4
    with ReviewStore(folder):
        pass
    with sqlite3.connect(store_path(folder)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 5
        with pytest.raises(sqlite3.IntegrityError):
            db.execute("INSERT INTO item_decisions (reviewer, time, system, sample_id, digest, decision) "
                       "VALUES ('a', 't', 'kept', 'g0', 'd', 'invalid')")  # invalid without a reason


def test_over_many_queues_the_rate_is_unbiased_and_wilson_covers_the_true_share(tmp_path):
    """A set whose true valid share is known (70 of 100), every queued item decided by that truth: the mean
    estimate over 1000 seeds is the true share (its standard error about 0.003), and the 95% interval holds it in
    at least 93% of the queues (without the finite-population correction Wilson is, if anything, wide)."""
    from genevals.review.store import Queue

    gen = load_set(write_set(tmp_path / "s", kept=100))
    valid = {i.id for i in gen.kept[:70]}
    truth = [set_review.ItemDecision("ann", "kept", i.id, "valid" if i.id in valid else "invalid", i.digest,
                                     None if i.id in valid else "wrong_reference") for i in gen.kept]
    rates, covered = [], 0
    for seed in range(1000):
        entries = set_review.draw(gen, 20, seed)
        queue = Queue([(e.system, e.sample_id, e.stratum, e.inclusion_probability) for e in entries],
                      {"kept": 100, "rejected": 0}, {"kept": 20}, seed)
        kept = set_review.estimate(gen, queue, truth)["kept"]
        assert kept["n"] == 20
        rates.append(kept["rate"])
        covered += kept["ci95"][0] <= 0.7 <= kept["ci95"][1]
    assert abs(sum(rates) / len(rates) - 0.7) < 0.01
    assert covered >= 930, covered
