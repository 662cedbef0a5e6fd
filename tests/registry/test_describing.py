"""genevals.registry.describing: the declarations a run writes to outputs.json (and, for older run folders, read
from the installed metrics), and the headline outputs the terminal table shows."""
from genevals import registry
from genevals.metrics.base import CHEAP


def test_declarations_describe_what_a_run_writes():
    declared = registry.declarations(registry.select(["rougeL", "first_relevant_rank"]))
    assert set(declared) == {"rougeL", "first_relevant_rank"}
    assert declared["first_relevant_rank"]["direction"] == "lower"
    assert declared["first_relevant_rank"]["range"] == [1.0, None]
    assert declared["rougeL"] == {"family": "rouge", "kind": CHEAP, "direction": "higher", "range": [0.0, 1.0],
                                  "definition": registry.load_family("rouge").output("rougeL").definition}
    assert registry.load_family("retrieval").output("recall@7").definition.startswith(
        "relevant ids in the top 7 / all relevant ids")


def test_declarations_for_run_folders_written_before_outputs_json(tmp_path):
    from genevals.api import evaluate
    from genevals.report.model import build_data

    assert registry.declaration_of("contradiction_rate")["direction"] == "lower"
    assert registry.declaration_of("recall@7")["definition"].startswith("relevant ids in the top 7")
    assert registry.declaration_of("no_such_output") is None
    rows = [{"id": "1", "answer": "Paris.", "references": ["Paris."], "contexts": ["a"], "relevant": ["2"]}]
    evaluate(rows, ["token_f1", "first_relevant_rank", "bertscore_f1"], out_dir=tmp_path)
    (tmp_path / "outputs.json").unlink()  # as a 0.1.0 run folder
    facts = {m["name"]: m for m in build_data([tmp_path], declared=registry.declaration_of)["metrics"]}
    assert facts["first_relevant_rank"]["lower_better"] and not facts["first_relevant_rank"]["banded"]
    assert facts["bertscore_f1"]["banded"] and facts["token_f1"]["banded"]


def test_headlines_are_declared_beside_each_metric():
    retrieval = [f"{o}@{k}" for o in ("precision", "recall", "ndcg") for k in (1, 3, 5, 10)] + ["mrr", "auc"]
    assert registry.headlines(["exact_match", "rouge1", "rouge2", "rougeL", *retrieval]) == {
        "exact_match", "rougeL", "recall@10", "ndcg@10", "mrr"}
    # without cutoff 10 the nearest below stands in (else the smallest above); a named output is always shown
    assert registry.headlines(["recall@3", "recall@20", "ndcg@20", "mrr"], requested=["recall@20"]) == {
        "recall@3", "recall@20", "ndcg@20", "mrr"}
    # a family none of whose headlines was computed, and an output nobody declares, are shown whole
    assert registry.headlines(["rouge1", "rouge2", "my_metric"]) == {"rouge1", "rouge2", "my_metric"}
