"""The registry: the metric-name grammar comes from the metrics' declared outputs, presets from their
declarations, and a metric registers with one decorator."""
import pytest

from genevals import registry
from genevals.judge.config import JudgeConfig
from genevals.metrics.base import CHEAP, JUDGE, MODEL, Metric, Output
from genevals.types import MetricResult


def test_every_shipped_family_registers_with_its_declarations():
    families = {cls.family: cls for cls in registry.families() if cls.__module__.startswith("genevals.metrics.")}
    rag = ("answer_relevance", "context_relevance", "context_recall", "answer_correctness")
    conversation = ("knowledge_retention", "conversation_relevance", "conversation_completeness")
    assert list(families) == ["exact_match", "token_f1", "rouge", "bleu", "retrieval", "bertscore", "faithfulness",
                              *rag, "llm_rubric", "pairwise", *conversation, "grounding",
                              *sorted(f + "_local" for f in (*rag, "pairwise")),
                              "citations", "citations_local", *(f + "_local" for f in conversation), "cascade"]
    assert {f for f, cls in families.items() if cls.kind == MODEL} == {"bertscore", *(f + "_local" for f in (*rag, "pairwise"))}
    judges = {"faithfulness", "llm_rubric", "cascade", "pairwise", "citations", *rag, *conversation}
    assert {f for f, cls in families.items() if cls.kind == JUDGE} == judges
    assert {f for f, cls in families.items() if cls.kind == CHEAP} == {
        "exact_match", "token_f1", "rouge", "bleu", "retrieval", "grounding", "citations_local",
        *(f + "_local" for f in conversation)}
    for cls in families.values():
        assert cls.outputs and all(o.definition for o in cls.outputs), cls.family


def test_presets_are_read_from_the_declarations():
    assert registry.preset("default") == ("exact_match", "token_f1", "rouge", "bleu", "retrieval")
    assert registry.preset("all") == registry.preset("default") + ("bertscore", "faithfulness")
    assert registry.preset("rouge") == ()


@pytest.mark.parametrize("name, family, params", [
    ("rouge", "rouge", {}), ("rougeL", "rouge", {}), ("rouge2", "rouge", {}),
    ("recall@5", "retrieval", {"k": "5"}), ("ndcg_exp@20", "retrieval", {"k": "20"}), ("mrr", "retrieval", {}),
    ("first_relevant_rank", "retrieval", {}), ("bertscore_f1", "bertscore", {}),
    ("contradiction_rate", "faithfulness", {}), ("faithfulness", "faithfulness", {}),
    ("grounding", "grounding", {}), ("rubric_coherence", "llm_rubric", {"criterion": "coherence"}),
])
def test_name_grammar(name, family, params):
    assert registry.family_of(name) == (family, params)


@pytest.mark.parametrize("name", ["rogue", "recall@", "recall@x", "@5", "rougel", "rubric_Coherence", "precision5"])
def test_unknown_names_are_refused(name):
    with pytest.raises(registry.UnknownMetric, match="unknown metric"):
        registry.family_of(name)


def test_naming_an_output_adds_its_cutoff_and_keeps_only_that_output():
    [sel] = registry.select(["recall@20", "mrr"])
    assert sel.family == "retrieval" and sel.metric.cutoffs == (1, 3, 5, 10, 20)
    assert sel.keep("recall@20") and sel.keep("mrr") and not sel.keep("recall@5")
    [sel] = registry.select(["retrieval"], {"retrieval": {"cutoffs": (2,)}})
    assert sel.metric.output_names()[:2] == ["precision@2", "recall@2"] and sel.outputs is None


def test_one_family_per_set_of_outputs():
    with pytest.raises(registry.UnknownMetric, match="choose one of faithfulness, grounding"):
        registry.select(["faithfulness", "grounding"])


def test_faithfulness_without_a_judge_runs_the_local_checker_and_says_why(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    [sel] = registry.select(["faithfulness"])
    assert sel.family == "grounding" and "local grounding checker" in sel.note
    [sel] = registry.select(["faithfulness"], judge=JudgeConfig(base_url="http://127.0.0.1:9/v1"))
    assert sel.family == "faithfulness" and sel.note is None


def test_bad_settings_name_the_family():
    with pytest.raises(registry.UnknownMetric, match="metric 'retrieval': level: unknown value 'page'"):
        registry.select(["retrieval"], {"retrieval": {"level": "page"}})


def test_declarations_describe_what_a_run_writes():
    declared = registry.declarations(registry.select(["rougeL", "first_relevant_rank"]))
    assert set(declared) == {"rougeL", "first_relevant_rank"}
    assert declared["first_relevant_rank"]["direction"] == "lower"
    assert declared["first_relevant_rank"]["range"] == [1.0, None]
    assert declared["rougeL"] == {"family": "rouge", "kind": CHEAP, "direction": "higher", "range": [0.0, 1.0],
                                  "definition": registry.load_family("rouge").output("rougeL").definition}
    assert registry.load_family("retrieval").output("recall@7").definition.startswith(
        "relevant ids in the top 7 / all relevant ids")


def test_register_checks_the_declarations(isolated_registry):
    class NoOutputs(Metric):
        family = "no_outputs"

        def signature(self):
            return "x"

        def score(self, samples):
            return []

    with pytest.raises(TypeError, match="declare its outputs"):
        registry.register(NoOutputs)

    class Clash(NoOutputs):
        family = "rouge"
        outputs = (Output("x", "y"),)

    with pytest.raises(TypeError, match="already registered"):
        registry.register(Clash)
    with pytest.raises(ValueError, match="direction"):
        Output("x", "y", direction="up")


def test_a_metric_registered_outside_the_package_is_selectable(isolated_registry):
    @registry.register
    class AnswerLength(Metric):
        family = "test_answer_length"
        outputs = (Output("test_answer_length", "answer length in characters", direction="neither",
                          range=(0.0, None)),)

        def signature(self):
            return "test_answer_length"

        def score(self, samples):
            return [{"test_answer_length": MetricResult("test_answer_length", float(len(s.answer)))}
                    for s in samples]

    [sel] = registry.select(["test_answer_length"])
    assert isinstance(sel.metric, AnswerLength)
    assert registry.family_of("test_answer_length") == ("test_answer_length", {})


def test_declarations_for_run_folders_written_before_outputs_json(tmp_path):
    from genevals.engine.local import evaluate
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


def test_a_misspelt_judge_setting_is_an_error_also_when_the_offline_checker_runs(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(registry.UnknownMetric, match="metric 'faithfulness': .*'max_claim'"):
        registry.select(["faithfulness"], {"faithfulness": {"max_claim": 3}})
    [sel] = registry.select(["faithfulness"], {"faithfulness": {"max_claims": 3}})
    assert sel.family == "grounding"


def test_headlines_are_declared_beside_each_metric():
    retrieval = [f"{o}@{k}" for o in ("precision", "recall", "ndcg") for k in (1, 3, 5, 10)] + ["mrr", "auc"]
    assert registry.headlines(["exact_match", "rouge1", "rouge2", "rougeL", *retrieval]) == {
        "exact_match", "rougeL", "recall@10", "ndcg@10", "mrr"}
    # without cutoff 10 the nearest below stands in (else the smallest above); a named output is always shown
    assert registry.headlines(["recall@3", "recall@20", "ndcg@20", "mrr"], requested=["recall@20"]) == {
        "recall@3", "recall@20", "ndcg@20", "mrr"}
    # a family none of whose headlines was computed, and an output nobody declares, are shown whole
    assert registry.headlines(["rouge1", "rouge2", "my_metric"]) == {"rouge1", "rouge2", "my_metric"}


@pytest.mark.parametrize("names,message", [
    ([None], "metrics: metric names must be non-empty strings, got None in [None]"),
    (["rouge", 5], "metrics: metric names must be non-empty strings, got 5 in ['rouge', 5]"),
    ([""], "metrics: metric names must be non-empty strings, got '' in ['']"),
    (["recall@0"], "metric 'recall@0': cutoffs must be whole numbers from 1 to 10,000"),
])
def test_a_bad_metric_name_is_refused_naming_metrics_or_the_name(names, message):
    with pytest.raises(registry.UnknownMetric) as err:
        registry.select(names)
    assert str(err.value) == message


@pytest.mark.parametrize("names,options,message", [
    # int(1.5) was 1: a cutoff quietly rounded
    (["retrieval"], {"retrieval": {"cutoffs": [1.5]}}, "metric 'retrieval': cutoffs: expected a whole number, got 1.5"),
    (["retrieval"], {"retrieval": {"cutoffs": [True]}}, "cutoffs: expected a whole number, got True"),
    (["retrieval"], {"retrieval": {"cutoffs": "5"}}, "cutoffs: expected a list of whole numbers, got str"),
    (["retrieval"], {"retrieval": {"cutoffs": [10**30]}}, "cutoffs: expected a whole number from 1 to 10,000, got "
                                                          "a larger number"),
    (["retrieval"], {"retrieval": {"relevance_level": "1"}}, "relevance_level: expected a number, got '1'"),
    (["rouge"], {"rouge": {"use_stemmer": "no"}}, "metric 'rouge': use_stemmer: expected true or false, got 'no'"),
    # a family the run does not score: its settings are checked all the same
    (["rouge"], {"faithfulness": {"max_claims": 0}},
     "options['faithfulness']: max_claims: expected a whole number 1 or more, got 0"),
    (["rouge"], {"faithfulness": {"fuzzy_threshold": float("nan")}}, "fuzzy_threshold: expected a finite number"),
    (["rouge"], {"context_recall": {"max_claims": 2.5}}, "max_claims: expected a whole number, got 2.5"),
    (["rouge"], {"context_relevance": {"k": 1.5}}, "options['context_relevance']: k: expected a whole number"),
    (["rouge"], {"context_relevance_local": {"threshold": 2}}, "threshold: expected a number in [0, 1], got 2"),
    (["rouge"], {"pairwise": {"contexts": "yes"}}, "contexts: expected true or false, got 'yes'"),
    (["rouge"], {"pairwise_local": {"margin": -0.5}}, "margin: expected a number in [0, inf], got -0.5"),
])
def test_a_bad_setting_is_refused_when_the_metric_is_built_naming_family_and_setting(names, options, message):
    with pytest.raises(registry.UnknownMetric) as err:
        registry.select(names, options)
    assert message in str(err.value)


def test_good_settings_of_a_family_not_scored_are_accepted():
    [sel] = registry.select(["rouge"], {"faithfulness": {"max_claims": 3}, "retrieval": {"cutoffs": [1, 5]}})
    assert sel.family == "rouge"
    [sel] = registry.select(["retrieval"], {"retrieval": {"cutoffs": (__import__("numpy").int64(3),)}})
    assert sel.metric.cutoffs == (3,) and type(sel.metric.cutoffs[0]) is int
