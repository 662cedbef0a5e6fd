"""Results kept in columns (genevals.scored): the same results, summaries and results.jsonl lines as result
objects, built only when read."""
import json
import pickle

from genevals.metrics.lexical.rouge import Rouge
from genevals.metrics.retrieval.retrieval import Retrieval
from genevals.output.results import SummaryAccumulator
from genevals.scored import BatchSampleResult, ScoredBatch
from genevals.types import Context, Sample, SampleResult


def _samples():
    ctx = lambda *ids: tuple(Context(f"text {i}", r, id=i) for r, i in enumerate(ids, 1))  # noqa: E731
    return [
        Sample("1", "a b", contexts=ctx("d1", "d2", "d3"), relevant={"d2": 1}, references=("a b",)),
        Sample("2", "a", contexts=ctx("d1"), relevant={"d9": 2}, system="other", references=("c",)),  # not found
        Sample("3", "b", contexts=ctx("d1", "d2"), relevant={"d1": 1, "d2": 3}, references=("b",)),  # auc undefined
        Sample("4", "c", contexts=ctx("d4"), references=("c d",)),  # no labels
        Sample("5", "d", contexts=ctx("d4"), relevant={"d4": 0}, system="other", references=("d",)),  # none relevant
        Sample("6", "e", relevant={"x": 1}, references=("e",)),  # nothing retrieved
    ]


def _batch(samples):
    retrieval, rouge = Retrieval(cutoffs=(1, 3)), Rouge()
    keep = lambda name: name != "rouge2"  # noqa: E731
    batch = ScoredBatch(samples, [(retrieval.score_columns(samples), None), (rouge.score(samples), keep)])
    plain = []
    for sample, by_retrieval, by_rouge in zip(samples, retrieval.score(samples), rouge.score(samples)):
        plain.append(SampleResult(sample, {**by_retrieval, **{k: v for k, v in by_rouge.items() if keep(k)}}))
    return batch, plain


def test_a_batch_in_columns_gives_the_same_results_lines_and_objects():
    batch, plain = _batch(_samples())
    statuses = {m.status for r in plain for m in r.metrics.values()}
    assert {"ok", "not_found", "undefined", "no_relevance_labels", "no_relevant"} <= statuses
    for lazy, expected in zip(batch, plain):
        assert isinstance(lazy, BatchSampleResult)
        # written from the columns, before any object exists: byte for byte the plain result's line
        assert json.dumps(lazy.to_dict()) == json.dumps(expected.to_dict())
        assert lazy == expected and expected == lazy and not lazy != expected
        assert list(lazy.metrics) == list(expected.metrics) and lazy.metrics == expected.metrics
        assert json.dumps(lazy.to_dict()) == json.dumps(expected.to_dict())  # and after they were built
        back = pickle.loads(pickle.dumps(lazy))
        assert type(back) is SampleResult and back == expected
    assert batch[0] != plain[1]


def test_the_summary_counts_the_columns_as_it_counts_the_objects():
    batch, plain = _batch(_samples())
    by_columns, by_objects = SummaryAccumulator(), SummaryAccumulator()
    by_columns.add_batch(batch)
    by_objects.add_batch(plain)
    assert batch.columns_by_system() is None  # rouge's rows: counted sample by sample, as before
    retrieval_only = ScoredBatch(batch.samples, [(Retrieval(cutoffs=(1, 3)).score_columns(batch.samples), None)])
    assert retrieval_only.columns_by_system() is not None
    fast, slow = SummaryAccumulator(), SummaryAccumulator()
    fast.add_batch(retrieval_only)
    slow.add_batch([SampleResult(r.sample, dict(r.metrics)) for r in retrieval_only])
    for a, b in ((by_columns, by_objects), (fast, slow)):
        assert json.dumps(a.summary()) == json.dumps(b.summary())  # same keys, order, statuses, intervals
        assert a.counts == b.counts
