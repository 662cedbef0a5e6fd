"""The review queue: strata from the judge's verdicts (jury or repeat disagreement, uncertain scores), the
allocation and the seeded draw with each answer's inclusion probability, and the queue kept in review.sqlite
(one per store; a version 2 store migrated)."""
from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from genevals.review.queue import allocate, draw, stratum_of
from genevals.review.store import SCHEMA_VERSION, Decision, ReviewStore, StoreError, read_store, store_path

V1_STORE = Path(__file__).resolve().parents[1] / "data" / "review_v1.sqlite"


def test_strata_come_from_the_verdicts_disagreement_first():
    sup, con = {"label": "supported"}, {"label": "contradicted"}
    assert stratum_of([sup, sup], 1.0) == "clean/settled"
    assert stratum_of([con], 0.0) == "flagged/settled"
    assert stratum_of([sup, con], 0.5) == "flagged/uncertain"  # supported and unsupported side by side
    assert stratum_of([{**sup, "confidence": 0.6}], 1.0) == "clean/uncertain"
    split = {"label": "supported", "jury": {"a": "supported", "b": "contradicted", "c": None}}
    assert stratum_of([split, sup], 1.0) == "clean/disputed"
    agreed = {"label": "supported", "jury": {"a": "supported", "b": "supported", "c": None}}
    assert stratum_of([agreed], 1.0) == "clean/settled"  # a judge that failed is no disagreement
    assert stratum_of([{**con, "repeats": ["contradicted", "unverifiable"]}, sup], 0.5) == "flagged/disputed"
    assert stratum_of([], None) is None


def test_allocation_oversamples_informative_strata_and_sums_to_n():
    sizes = {"flagged/disputed": 20, "flagged/uncertain": 40, "clean/settled": 900, "flagged/settled": 40}
    counts = allocate(sizes, 100)
    assert sum(counts.values()) == 100 and all(0 < counts[h] <= sizes[h] for h in sizes)
    rate = {h: counts[h] / sizes[h] for h in sizes}
    assert rate["flagged/disputed"] > rate["flagged/uncertain"] > rate["flagged/settled"]
    assert allocate(sizes, 4) == {h: 1 for h in sizes}  # one of each before a second of any
    assert allocate(sizes, 3) == {"flagged/disputed": 1, "flagged/uncertain": 1, "clean/settled": 0,
                                  "flagged/settled": 1}  # clean before flagged only within a tier
    assert allocate(sizes, 5000) == sizes


def test_the_draw_is_seeded_stratified_and_ordered_disputed_first():
    strata = {("s", f"a{i:03d}"): h for i, h in enumerate(["clean/settled"] * 80 + ["flagged/disputed"] * 10
                                                          + ["flagged/uncertain"] * 10)}
    queue = draw(strata, 20, seed=7)
    assert queue == draw(strata, 20, seed=7) and queue != draw(strata, 20, seed=8)
    assert [e.position for e in queue] == list(range(20))
    assert len({(e.system, e.sample_id) for e in queue}) == 20
    tiers = [e.stratum.split("/")[1] for e in queue]
    assert tiers == sorted(tiers, key=["disputed", "uncertain", "settled"].index)
    drawn = Counter(e.stratum for e in queue)
    for e in queue:
        size = sum(1 for h in strata.values() if h == e.stratum)
        assert (e.stratum_size, e.stratum_drawn) == (size, drawn[e.stratum])
        assert e.inclusion_probability == pytest.approx(drawn[e.stratum] / size)
        assert strata[(e.system, e.sample_id)] == e.stratum


def test_the_queue_is_stored_once_and_read_back(tmp_path):
    strata = {("s", str(i)): "clean/settled" if i % 3 else "flagged/settled" for i in range(30)}
    queue = draw(strata, 9, seed=1)
    with ReviewStore(tmp_path) as store:
        assert store.queue() is None
        store.set_queue(queue, {"clean/settled": 20, "flagged/settled": 10, "clean/disputed": 0}, 1)
        with pytest.raises(StoreError, match="already holds a review queue"):
            store.set_queue(queue, {"clean/settled": 20}, 1)
        store.add(Decision(reviewer="ann", system="s", sample_id="0", decision="confirmed", digest="d",
                           claim_index=0, blind=True))
    held = read_store(tmp_path)
    assert held.queue.entries == [(e.system, e.sample_id, e.stratum, e.inclusion_probability) for e in queue]
    assert held.queue.sizes == {"clean/settled": 20, "flagged/settled": 10, "clean/disputed": 0}
    assert held.queue.seed == 1 and sum(held.queue.drawn.values()) == 9
    assert [d.blind for d in held.decisions] == [True]


def test_a_damaged_queue_is_refused_naming_the_file(tmp_path):
    with ReviewStore(tmp_path) as store:
        store.set_queue(draw({("s", "a"): "clean/settled", ("s", "b"): "clean/settled"}, 1, 0),
                        {"clean/settled": 2}, 0)
    db = sqlite3.connect(store_path(tmp_path))
    db.execute("UPDATE queue_strata SET drawn = 2")  # the entries no longer match their stratum
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="review.sqlite: the review queue is damaged"):
        read_store(tmp_path)  # the export and a queued review refuse it: half a design biases every estimate
    assert read_store(tmp_path, queue=False).decisions == []  # the decisions are still shown


def test_a_version_1_store_gains_the_blind_column_and_queue_tables(tmp_path):
    shutil.copy(V1_STORE, store_path(tmp_path))
    assert [d.blind for d in read_store(tmp_path).decisions] == [False, False]  # read-only: not migrated
    with ReviewStore(tmp_path) as store:
        assert store.version == SCHEMA_VERSION == 5 and store.queue() is None
        assert [d.blind for d in store.all()] == [False, False]
