"""Coverage first (every document once before any repeat) and multi-hop partners by shared rare terms."""
from collections import Counter

from genevals.generate.items import Chunk
from genevals.generate.sampling import CoverageSampler, entity_terms, partner


def _chunks(per_doc):
    return [Chunk(f"d{d}#{n}", f"d{d}", n, f"text {d} {n}", 0, 1) for d, k in enumerate(per_doc) for n in range(k)]


def test_every_document_once_before_any_repeat_and_every_chunk_before_a_chunk_repeats():
    chunks = _chunks([3, 1, 2, 5, 1])
    doc_of = {c.id: c.doc_id for c in chunks}
    sampler = CoverageSampler(chunks, seed=7)
    draws = [sampler.draw() for _ in range(40)]
    for start in range(0, 40, 5):  # each round of 5 draws: each document once
        assert sorted(doc_of[d] for d in draws[start:start + 5]) == ["d0", "d1", "d2", "d3", "d4"]
    d3 = [d for d in draws if doc_of[d] == "d3"]
    assert sorted(d3[:5]) == [f"d3#{n}" for n in range(5)]  # no chunk of d3 twice before all five
    assert draws == [CoverageSampler(chunks, seed=7).draw() for _ in range(1)] + draws[1:]
    again = CoverageSampler(chunks, seed=7)
    assert [again.draw() for _ in range(40)] == draws  # the seed fixes the sequence
    other = CoverageSampler(chunks, seed=8)
    assert [other.draw() for _ in range(40)] != draws
    assert Counter(doc_of[d] for d in draws) == Counter({f"d{i}": 8 for i in range(5)})


def test_partner_shares_the_most_rare_terms_from_another_document():
    texts = {"a#0": "The Danube flows through Vienna and Budapest.", "a#1": "Vienna hosts the opera ball.",
             "b#0": "Budapest and Vienna were twin capitals.", "c#0": "Budapest has thermal baths."}
    filler = {f"f{i}#0": f"filler words number {i} about nothing" for i in range(60)}
    chunks = {cid: Chunk(cid, cid.split("#")[0], 0, t, 0, len(t)) for cid, t in {**texts, **filler}.items()}
    terms = entity_terms(list(chunks.values()))
    assert terms["a#0"] == frozenset({"danube", "flows", "through", "vienna", "budapest"})
    # b#0 shares vienna and budapest; c#0 budapest only; a#1 is the same document
    assert partner("a#0", chunks, terms) == "b#0"
    assert partner("f0#0", chunks, terms) is None  # "filler", "words", "number", "about" are in every filler chunk
