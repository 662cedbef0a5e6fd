"""The offline generator: known-item queries drawn from the chunk's discriminative model with collection noise
(Azzopardi, de Rijke & Balog 2007), extractive items whose reference is a sentence of the chunk, verbatim."""
import math
import random
import statistics

import pytest

from genevals.generate import offline
from genevals.generate.items import Chunk
from genevals.generate.offline import OfflineGenerator, _poisson
from genevals.generate.slots import Slot

A = Chunk("a#0", "a", 0, "Turbine blades crack under thermal fatigue. Inspection uses ultrasound every month.", 0, 83)
B = Chunk("b#0", "b", 0, "The blades of the rotor are balanced by hand. The rotor spins at nine thousand rpm.", 0, 84)


def test_poisson_draws_have_the_poisson_mean_and_variance():
    rng = random.Random(1)
    draws = [_poisson(rng, 3.0) for _ in range(20000)]
    # mean and variance both 3; standard error of the mean sqrt(3/20000) = 0.012
    assert abs(statistics.fmean(draws) - 3.0) < 0.05 and abs(statistics.pvariance(draws) - 3.0) < 0.15


def test_discriminative_weights_by_hand():
    gen = OfflineGenerator([A, B])
    # |C| = 11 + 16 = 27 tokens; "blades" occurs once in each chunk: p = 2/27; "turbine" once: 1/27
    assert gen.p("blades") == pytest.approx(2 / 27) and gen.p("turbine") == pytest.approx(1 / 27)
    rng = random.Random(0)
    with_noise = []
    for _ in range(2000):
        query, k = gen.query(A.text, rng)
        assert 1 <= k <= offline.MAX_TERMS and len(query.split()) == k == len(set(query.split()))
        with_noise.append(set(query.split()))
    vocabulary_a = set(gen.collection) - {"the", "of", "rotor", "balanced", "by", "hand", "spins", "at", "nine", "thousand",
                                          "rpm", "are"}
    # noise (λ = 0.2) brings in words of B only; most query terms come from A
    outside = sum(len(q - vocabulary_a) for q in with_noise) / sum(len(q) for q in with_noise)
    assert 0.02 < outside < 0.2
    # "turbine" (p = 1/27) is drawn from A's model twice as often as "blades" (p = 2/27)
    turbine = sum("turbine" in q for q in with_noise)
    blades = sum("blades" in q for q in with_noise)
    assert turbine > blades


def test_items_are_labelled_located_and_deterministic():
    gen = OfflineGenerator([A, B])
    known = gen.generate(Slot(4, "known_item", ("a#0",), seed=11), [A], "")
    assert known.id == "g00004" and known.type == "known_item" and known.reference == A.text
    assert known.evidence[0].quote == A.text and (known.evidence[0].start, known.evidence[0].end) == (0, len(A.text))
    assert known.language == "en" and known.provenance["generator"] == "offline:known_item"
    assert gen.generate(Slot(4, "known_item", ("a#0",), seed=11), [A], "") == known
    extractive = gen.generate(Slot(5, "extractive", ("a#0",), seed=2), [A], "")
    ev = extractive.evidence[0]
    assert extractive.reference in ("Turbine blades crack under thermal fatigue.",
                                    "Inspection uses ultrasound every month.")
    assert A.text[ev.start:ev.end] == extractive.reference == ev.quote
    assert set(extractive.question.split()) <= set(gen.collection)
    with pytest.raises(ValueError, match="offline generator makes known_item and extractive items, not fact"):
        gen.generate(Slot(0, "fact", ("a#0",)), [A], "")
    assert gen.estimate(Slot(0, "fact", ("a#0",)), [A]) == (0, 0)
    assert math.isclose(offline.NOISE, 0.2)
