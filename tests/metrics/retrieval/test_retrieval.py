"""Retrieval metrics: worked examples, properties, and the Retrieval metric end to end."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genevals import types
from genevals.metrics.retrieval import ranking as rk
from genevals.metrics.retrieval.retrieval import NO_RELEVANT, UNDEFINED, Retrieval, build_ranking
from genevals.types import Context, Sample

# ---------------------------------------------------------------------------------------------------
# Worked examples


def test_mrr_worked_example() -> None:
    # first relevant at ranks 1, 3, 2 and not found: (1 + 1/3 + 1/2 + 0) / 4 = 0.4583
    queries = [(["a", "x", "y"], 1), (["x", "y", "a"], 3), (["x", "a"], 2), (["x", "y"], None)]
    rrs = []
    for ranking, first in queries:
        assert rk.first_relevant_rank(ranking, {"a": 1}) == first
        rrs.append(rk.reciprocal_rank(ranking, {"a": 1}))
    assert sum(rrs) / 4 == pytest.approx(0.4583, abs=5e-5)
    assert sum(rrs) / 4 == pytest.approx(11 / 24)


def test_ap_worked_example() -> None:
    # hits at 1, 4, 5 with 3 relevant in total: (1/1 + 2/4 + 3/5) / 3 = 0.70
    qrels = {"a": 1, "b": 1, "c": 1, "n1": 0}
    assert rk.average_precision(["a", "n1", "n2", "b", "c"], qrels) == pytest.approx(0.70)
    # a fourth relevant id never retrieved lowers AP: the denominator is R from the qrels
    assert rk.average_precision(["a", "n1", "n2", "b", "c"], {**qrels, "d": 1}) == pytest.approx(2.1 / 4)


def test_ndcg_worked_example() -> None:
    qrels = {"a": 5, "b": 5, "c": 3, "d": 2, "e": 0}
    assert rk.ndcg_at_k(["a", "b", "c", "d", "e"], qrels, 5) == pytest.approx(1.0)
    assert rk.ndcg_exp_at_k(["b", "a", "c", "d", "e"], qrels, 5) == pytest.approx(1.0)
    # permuted grades [2, 5, 0, 5, 3]:
    # DCG  = 2/1 + 5/log2(3) + 0/2 + 5/log2(5) + 3/log2(6) = 8.468590
    # IDCG = 5/1 + 5/log2(3) + 3/2 + 2/log2(5) + 0         = 10.516002
    got = rk.ndcg_at_k(["d", "a", "e", "b", "c"], qrels, 5)
    assert got == pytest.approx(8.468590 / 10.516002, abs=1e-6)
    assert got == pytest.approx(0.805305, abs=1e-6)
    # cut at 2: DCG@2 = 2 + 5/log2(3); IDCG@2 = 5 + 5/log2(3)
    assert rk.ndcg_at_k(["d", "a", "e", "b", "c"], qrels, 2) == pytest.approx(
        (2 + 5 / math.log2(3)) / (5 + 5 / math.log2(3)))


def test_precision_divides_by_k_and_recall() -> None:
    qrels = {"a": 1, "b": 1, "c": 2}
    assert rk.precision_at_k(["a"], qrels, 5) == pytest.approx(1 / 5)
    assert rk.recall_at_k(["a", "x", "b"], qrels, 2) == pytest.approx(1 / 3)
    assert rk.recall_at_k(["a", "x", "b"], qrels, 3) == pytest.approx(2 / 3)
    assert rk.f1_at_k(["a", "x", "b"], qrels, 3) == pytest.approx(2 / 3)
    assert rk.hit_rate_at_k(["x", "a"], qrels, 1) == 0.0
    assert rk.hit_rate_at_k(["x", "a"], qrels, 2) == 1.0
    # relevance level 2: only c is relevant
    assert rk.recall_at_k(["a", "c"], qrels, 2, relevance_level=2) == 1.0
    assert rk.precision_at_k(["a", "c"], qrels, 2, relevance_level=2) == 0.5


def test_negative_grades_and_unjudged_earn_nothing() -> None:
    qrels = {"a": -1, "b": 2}
    assert rk.dcg_at_k(["a", "zz", "b"], qrels, 3) == pytest.approx(2 / 2)
    assert rk.ndcg_at_k(["a", "zz", "b"], qrels, 3) == pytest.approx(0.5)
    assert rk.err_at_k(["a", "zz"], qrels, 2) == 0.0


def test_err_chapelle() -> None:
    # g_max = 2: R(2) = 3/4, R(1) = 1/4
    qrels = {"a": 2, "b": 1}
    assert rk.err_at_k(["a", "b"], qrels, 2) == pytest.approx(0.75 + 0.25 * 0.25 / 2)
    assert rk.err_at_k(["b", "a"], qrels, 2) == pytest.approx(0.25 + 0.75 * 0.75 / 2)
    assert rk.err_at_k(["b", "a"], qrels, 1) == pytest.approx(0.25)
    assert rk.err_at_k(["x", "a"], qrels) == pytest.approx(0.75 / 2)


def test_auc_definition() -> None:
    qrels = {"a": 1, "b": 1, "c": 1}
    # retrieved: a, n1, b, n2; c unretrieved (below everything). Pairs R*N = 3*2 = 6.
    # n1: a above -> 1; n2: a, b above -> 2. AUC = 3/6.
    assert rk.auc(["a", "n1", "b", "n2"], qrels) == pytest.approx(0.5)
    assert rk.auc(["a", "b", "c", "n"], qrels) == 1.0
    assert rk.auc(["n", "a", "b", "c"], qrels) == 0.0
    assert rk.auc(["a", "b"], qrels) is None  # no retrieved non-relevant
    assert rk.auc(["n"], {"n": 0}) is None  # nothing relevant


def test_cutoff_validation() -> None:
    with pytest.raises(ValueError):
        rk.precision_at_k(["a"], {"a": 1}, 0)
    with pytest.raises(ValueError):
        rk.evaluate(["a"], {"a": 1}, [3, -1])


# ---------------------------------------------------------------------------------------------------
# Properties

POOL = [f"d{i}" for i in range(14)]
GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])


@st.composite
def ranked_case(draw):
    qrels = draw(st.dictionaries(st.sampled_from(POOL), GRADES, max_size=len(POOL)))
    ranking = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=12))
    level = draw(st.sampled_from([1, 2]))
    cutoffs = draw(st.lists(st.integers(1, 15), min_size=1, max_size=4, unique=True))
    return ranking, qrels, level, cutoffs


def _single(ranking, qrels, level, cutoffs):
    out = {}
    for k in cutoffs:
        out[f"precision@{k}"] = rk.precision_at_k(ranking, qrels, k, level)
        out[f"recall@{k}"] = rk.recall_at_k(ranking, qrels, k, level)
        out[f"f1@{k}"] = rk.f1_at_k(ranking, qrels, k, level)
        out[f"hit_rate@{k}"] = rk.hit_rate_at_k(ranking, qrels, k, level)
        out[f"ndcg@{k}"] = rk.ndcg_at_k(ranking, qrels, k)
        out[f"ndcg_exp@{k}"] = rk.ndcg_exp_at_k(ranking, qrels, k)
        out[f"err@{k}"] = rk.err_at_k(ranking, qrels, k)
    out["mrr"] = rk.reciprocal_rank(ranking, qrels, level)
    out["map"] = rk.average_precision(ranking, qrels, level)
    out["first_relevant_rank"] = rk.first_relevant_rank(ranking, qrels, level)
    out["auc"] = rk.auc(ranking, qrels, level)
    out["num_relevant"] = rk.num_relevant(qrels, level)
    return out


@settings(max_examples=300, deadline=None)
@given(ranked_case())
def test_evaluate_matches_single_functions(case) -> None:
    ranking, qrels, level, cutoffs = case
    fast = rk.evaluate(ranking, qrels, cutoffs, level)
    slow = _single(ranking, qrels, level, cutoffs)
    assert fast.keys() == slow.keys()
    for name, v in slow.items():
        if v is None:
            assert fast[name] is None, name
        else:
            assert fast[name] == pytest.approx(v, abs=1e-12), name


@settings(max_examples=300, deadline=None)
@given(ranked_case())
def test_unit_interval(case) -> None:
    ranking, qrels, level, cutoffs = case
    for name, v in rk.evaluate(ranking, qrels, cutoffs, level).items():
        if name in ("first_relevant_rank", "num_relevant") or v is None:
            continue
        assert 0.0 <= v <= 1.0 + 1e-12, (name, v)
    first = rk.first_relevant_rank(ranking, qrels, level)
    assert first is None or 1 <= first <= len(ranking)


@settings(max_examples=400, deadline=None)
@given(ranked_case(), st.data())
def test_moving_relevant_down_never_helps(case, data) -> None:
    ranking, qrels, level, cutoffs = case
    # pairs (i < j) where i is relevant and j is strictly less relevant
    g = [qrels.get(d, 0) for d in ranking]
    pairs = [(i, j) for i in range(len(ranking)) for j in range(i + 1, len(ranking))
             if g[i] >= level and g[j] < g[i]]
    if not pairs:
        return
    i, j = data.draw(st.sampled_from(pairs))
    worse = list(ranking)
    worse[i], worse[j] = worse[j], worse[i]
    before = rk.evaluate(ranking, qrels, cutoffs, level)
    after = rk.evaluate(worse, qrels, cutoffs, level)
    for name, v in before.items():
        if name == "first_relevant_rank":  # a rank: lower is better, so it must not drop
            assert after[name] is not None and after[name] >= v
        elif name == "auc":
            assert (v is None) == (after[name] is None)
            if v is not None:
                assert after[name] <= v + 1e-12
        else:
            assert after[name] <= v + 1e-12, (name, v, after[name])


# ---------------------------------------------------------------------------------------------------
# The Retrieval metric end to end


def _ctx(rank, id=None, doc_id=None):
    return Context(text=f"chunk {rank}", rank=rank, id=id, doc_id=doc_id)


def _sample(contexts, relevant, sid="s1"):
    return Sample(id=sid, answer="x", contexts=tuple(contexts), relevant=relevant)


def test_output_names_and_describe() -> None:
    m = Retrieval(cutoffs=(5, 1))
    names = m.output_names()
    assert names[:2] == ["precision@1", "precision@5"]
    for base in ("precision", "recall", "f1", "hit_rate", "ndcg", "ndcg_exp", "err"):
        assert f"{base}@1" in names and f"{base}@5" in names
    assert names[-4:] == ["mrr", "map", "first_relevant_rank", "auc"]
    assert len(names) == len(set(names)) == 7 * 2 + 4
    desc = m.describe()
    assert list(desc) == names
    assert all(isinstance(v, str) and v and "\n" not in v for v in desc.values())
    assert m.family == "retrieval"


def test_signature() -> None:
    sig = Retrieval(cutoffs=(1, 10), level="doc", relevance_level=2).signature()
    assert sig.startswith("retrieval|level:doc|cutoffs:1,10|rel_level:2|ndcg_gain:linear(trec_eval)")
    assert sig.split("|")[-1].startswith("genevals:")
    assert Retrieval().signature() != Retrieval(level="chunk").signature()


def test_bad_settings() -> None:
    with pytest.raises(ValueError):
        Retrieval(level="page")
    with pytest.raises(ValueError):
        Retrieval(cutoffs=(0, 3))
    with pytest.raises(ValueError):
        Retrieval(cutoffs=())
    with pytest.raises(ValueError):
        Retrieval(relevance_level=0)


def test_chunk_level_scores_and_dedupes() -> None:
    ctxs = [_ctx(3, "c"), _ctx(1, "a"), _ctx(2, "a"), _ctx(4, "b")]  # out of order, duplicate "a"
    assert build_ranking(ctxs, "chunk") == (["a", "c", "b"], 0)
    [res] = Retrieval(cutoffs=(1, 3)).score([_sample(ctxs, {"c": 1, "b": 2, "z": 1})])
    assert all(r.status == types.OK for r in res.values())
    assert res["precision@1"].value == 0.0
    assert res["recall@3"].value == pytest.approx(2 / 3)
    assert res["first_relevant_rank"].value == 2.0
    assert res["mrr"].value == 0.5
    assert res["map"].value == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert res["auc"].value == 0.0  # the only non-relevant id ("a") is ranked above everything
    d = res["map"].details
    assert d["level"] == "chunk" and d["n_retrieved"] == 3 and d["n_relevant"] == 3
    assert d["n_judged_retrieved"] == 2


def test_chunk_key_falls_back_to_rank() -> None:
    [res] = Retrieval(cutoffs=(1,)).score([_sample([_ctx(1), _ctx(2)], {"2": 1})])
    assert res["first_relevant_rank"].value == 2.0
    assert res["hit_rate@1"].value == 0.0


def test_doc_level_collapses_urls() -> None:
    ctxs = [
        _ctx(1, "a#1", "https://a.example/page"),
        _ctx(2, "b#1", "https://b.example/y?q=1"),
        _ctx(3, "a#2", "https://a.example/page"),
        _ctx(4, "c#1", "https://c.example/"),
    ]
    relevant = {"https://b.example/y?q=1": 1, "https://c.example/": 1}
    assert build_ranking(ctxs, "doc")[0] == ["https://a.example/page", "https://b.example/y?q=1",
                                             "https://c.example/"]
    [auto] = Retrieval(cutoffs=(3,)).score([_sample(ctxs, relevant)])
    assert auto["recall@3"].value == 1.0  # at chunk level "c" would sit at rank 4
    assert auto["precision@3"].value == pytest.approx(2 / 3)
    assert auto["first_relevant_rank"].value == 2.0
    assert auto["recall@3"].details["level"] == "doc"
    [chunk] = Retrieval(cutoffs=(3,), level="chunk").score([_sample(ctxs, relevant)])
    assert chunk["recall@3"].value == 0.0  # chunk ids do not match URL labels
    assert chunk["recall@3"].details["level"] == "chunk"


def test_doc_level_missing_doc_id_is_counted() -> None:
    ctxs = [_ctx(1, "x", "D1"), _ctx(2, "y")]
    [res] = Retrieval(cutoffs=(2,), level="doc").score([_sample(ctxs, {"D1": 1, "y": 1})])
    assert res["recall@2"].value == 1.0
    assert res["recall@2"].details["contexts_without_doc_id"] == 1


def test_status_no_labels() -> None:
    [res] = Retrieval().score([_sample([_ctx(1, "a")], None)])
    assert set(res) == set(Retrieval().output_names())
    for r in res.values():
        assert r.status == types.NO_RELEVANCE_LABELS and r.value is None and r.reason


@pytest.mark.parametrize("relevant", [{}, {"a": 0, "b": -1}])
def test_status_no_relevant(relevant) -> None:
    [res] = Retrieval().score([_sample([_ctx(1, "a")], relevant)])
    for r in res.values():
        assert r.status == NO_RELEVANT and r.value is None and "undefined" in r.reason


def test_relevance_level_changes_what_counts() -> None:
    s = _sample([_ctx(1, "a"), _ctx(2, "b")], {"a": 1, "b": 2})
    [l1] = Retrieval(cutoffs=(1,)).score([s])
    [l2] = Retrieval(cutoffs=(1,), relevance_level=2).score([s])
    assert l1["hit_rate@1"].value == 1.0 and l2["hit_rate@1"].value == 0.0
    assert l2["first_relevant_rank"].value == 2.0
    [l3] = Retrieval(relevance_level=3).score([s])
    assert l3["mrr"].status == NO_RELEVANT


def test_empty_contexts_scored_zero() -> None:
    [res] = Retrieval(cutoffs=(1, 5)).score([_sample([], {"a": 1})])
    for name, r in res.items():
        if name == "first_relevant_rank":
            assert r.status == types.NOT_FOUND and r.reason
        elif name == "auc":
            assert r.status == UNDEFINED and "nothing was retrieved" in r.reason
        else:
            assert r.status == types.OK and r.value == 0.0, name
        assert "no contexts" in r.details["note"]


def test_not_found_and_auc_undefined() -> None:
    [miss] = Retrieval().score([_sample([_ctx(1, "x"), _ctx(2, "y")], {"a": 1})])
    assert miss["first_relevant_rank"].status == types.NOT_FOUND
    assert miss["first_relevant_rank"].value is None
    assert miss["mrr"].value == 0.0
    assert miss["auc"].value == 0.0
    [allrel] = Retrieval().score([_sample([_ctx(1, "a"), _ctx(2, "b")], {"a": 1, "b": 1})])
    assert allrel["auc"].status == UNDEFINED and allrel["auc"].reason
    assert allrel["map"].value == 1.0


def test_results_roundtrip_to_dict() -> None:
    samples = [_sample([_ctx(1, "a"), _ctx(2, "b")], {"b": 1}, sid=str(i)) for i in range(3)]
    out = Retrieval().score(samples)
    assert len(out) == 3
    for res in out:
        for name, r in res.items():
            back = types.MetricResult.from_dict(name, r.to_dict())
            assert back.value == r.value and back.status == r.status


def test_auto_level_follows_the_labels_namespace():
    """Chunk-id labels stay at chunk level even when contexts carry URLs; URL labels go to doc level."""
    from genevals.types import Context as Ctx

    contexts = (Ctx(text="a", rank=1, id="ferry#1", doc_id="https://d.org/ferry"),
                Ctx(text="b", rank=2, id="ferry#2", doc_id="https://d.org/ferry"),
                Ctx(text="c", rank=3, id="museum#1", doc_id="https://d.org/museum"))
    metric = Retrieval(cutoffs=(3,))
    by_chunk = metric.score([Sample(id="1", answer="x", contexts=contexts, relevant={"ferry#2": 1})])[0]
    by_doc = metric.score([Sample(id="2", answer="x", contexts=contexts, relevant={"https://d.org/museum": 1})])[0]
    assert by_chunk["mrr"].value == 0.5 and by_chunk["mrr"].details["level"] == "chunk"
    assert by_doc["mrr"].value == 0.5 and by_doc["mrr"].details["level"] == "doc"  # ferry collapses to one doc
