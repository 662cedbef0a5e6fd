"""Results: the summary counts scored and unscored samples by status, reloads from its run folder unchanged,
and prints as a table."""
from genevals.api import evaluate
from genevals.output.results import Results, SummaryAccumulator
from genevals.types import MetricResult, Sample, SampleResult


def _result(system: str, value: float | None) -> SampleResult:
    metric = (MetricResult("token_f1", value) if value is not None
              else MetricResult.unscored("token_f1", "no_reference", "no reference"))
    return SampleResult(Sample(id=f"{system}{value}", answer="a", system=system), {"token_f1": metric})


def test_summary_means_cover_only_scored_samples_and_count_the_rest():
    acc = SummaryAccumulator()
    for system, value in (("a", 1.0), ("a", 0.5), ("a", None), ("b", None)):
        acc.add(_result(system, value))
    summary = acc.summary(seed=1)
    assert summary["a"]["token_f1"]["mean"] == 0.75
    assert summary["a"]["token_f1"]["scored"] == 2 and summary["a"]["token_f1"]["unscored"] == 1
    assert summary["a"]["token_f1"]["statuses"] == {"ok": 2, "no_reference": 1}
    assert summary["a"]["token_f1"]["total"] == 3 and summary["a"]["token_f1"]["coverage"] == 2 / 3
    assert summary["b"]["token_f1"] == {"mean": None, "ci95": None, "scored": 0, "unscored": 1, "total": 1,
                                        "coverage": 0.0, "statuses": {"no_reference": 1}}
    assert acc.n_samples == 4


def test_results_reload_from_their_run_folder(tmp_path):
    rows = [{"id": "1", "answer": "Paris", "references": ["Paris"]}, {"id": "2", "answer": "Rome"}]
    first = evaluate(rows, ["token_f1"], out_dir=tmp_path, seed=3)
    again = Results.load(tmp_path)
    assert [r.to_dict() for r in again] == [r.to_dict() for r in first]
    assert again.summary() == first.summary() and again.seed == 3
    table = again.to_table()
    # one row per metric, one column per system; the mean covers 1 of the 2 samples (the other has no reference)
    assert table.splitlines()[1].split() == ["metric", "default"]
    assert table.splitlines()[2].split() == ["token_f1", "1.0000", "[1.00,", "1.00]", "1/2*"]
    assert "  no_reference: token_f1: 1/2" in table.splitlines()
    assert "system: default" in again.to_table(verbose=True) and "no_reference 1" in again.to_table(verbose=True)
    assert "1/2*" in repr(again)
    assert again.summary()["systems"]["default"]["token_f1"]["total"] == 2
    assert again.summary()["systems"]["default"]["token_f1"]["coverage"] == 0.5
    assert list(again.to_pandas()["token_f1.status"]) == ["ok", "no_reference"]


def test_a_run_without_a_folder_builds_its_summary_when_first_asked_the_same_as_one_written(tmp_path):
    import json

    rows = [{"id": str(i), "system": "ab"[i % 2], "answer": f"a {i}", "references": [f"a {i % 3}"] if i % 5 else [],
             "contexts": [{"text": "t", "id": f"d{j}"} for j in range(3)], "relevant": {f"d{i % 4}": 1}}
            for i in range(40)]
    written = evaluate(rows, ["token_f1", "retrieval"], out_dir=tmp_path, meta={"tag": 1})
    later = evaluate(rows, ["token_f1", "retrieval"], meta={"tag": 1})
    assert later._summary is None and later._deferred is not None  # nothing bootstrapped yet
    counts = later.status_counts()
    assert later._summary is None
    full = later.summary()
    assert json.dumps(full) == json.dumps(written.summary()) == json.dumps(Results.load(tmp_path).summary())
    for system, metrics in full["systems"].items():
        for name, m in metrics.items():
            assert counts["systems"][system][name] == {k: m[k] for k in ("scored", "unscored", "statuses")}
    assert counts["meta"] == full["meta"] and later.status_counts() is full
    again = evaluate(rows, ["token_f1", "retrieval"], meta={"tag": 1})
    assert again == later and again._summary is None  # equal whether or not the summary was built yet


def test_results_of_a_large_run_without_a_folder_pickle_with_their_summary():
    import pickle

    rows = [{"id": str(i), "answer": "a", "contexts": [{"text": "t", "id": f"d{j}"} for j in range(4)],
             "relevant": {f"d{i % 5}": 1}} for i in range(5000)]  # > 4,096 values a column: spilled to a file
    results = evaluate(rows, ["retrieval"], options={"retrieval": {"cutoffs": (1,)}})
    assert results._deferred is not None and results._deferred.acc.values.spilled_bytes > 0
    back = pickle.loads(pickle.dumps(results))
    assert back.summary() == results.summary() and back.samples == results.samples
    assert back.samples[3].metrics["mrr"] == results.samples[3].metrics["mrr"]
