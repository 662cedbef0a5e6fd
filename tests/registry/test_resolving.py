"""genevals.registry.resolving: a run's metric list is resolved (outputs to their family and cutoff, offline
alternatives, settings checked against the declarations, bad names refused naming them) and built once."""
import pytest

from genevals import registry
from genevals.judge.config import JudgeConfig


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


def test_a_misspelt_judge_setting_is_an_error_also_when_the_offline_checker_runs(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(registry.UnknownMetric, match="metric 'faithfulness': .*'max_claim'"):
        registry.select(["faithfulness"], {"faithfulness": {"max_claim": 3}})
    [sel] = registry.select(["faithfulness"], {"faithfulness": {"max_claims": 3}})
    assert sel.family == "grounding"


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
