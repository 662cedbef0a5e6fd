"""genevals.registry.names: the metric-name grammar comes from the metrics' declared outputs, presets from their
declarations, and a metric registers with one decorator."""
import pytest

from genevals import registry
from genevals.metrics.base import CHEAP, JUDGE, MODEL, Metric, Output
from genevals.types import MetricResult


def test_every_shipped_family_registers_with_its_declarations():
    families = {cls.family: cls for cls in registry.families() if cls.__module__.startswith("genevals.metrics.")}
    rag = ("answer_relevance", "context_relevance", "context_recall", "answer_correctness")
    conversation = ("knowledge_retention", "conversation_relevance", "conversation_completeness")
    assert list(families) == ["exact_match", "token_f1", "rouge", "bleu", "retrieval", "bertscore", "faithfulness",
                              *rag, "llm_rubric", "pairwise", *conversation, "grounding",
                              *sorted(f + "_local" for f in (*rag, "pairwise")), "turn_overlap",
                              "citations", "citations_local", *(f + "_local" for f in conversation), "cascade"]
    assert {f for f, cls in families.items() if cls.kind == MODEL} == {"bertscore", *(f + "_local" for f in (*rag, "pairwise"))}
    judges = {"faithfulness", "llm_rubric", "cascade", "pairwise", "citations", *rag, *conversation}
    assert {f for f, cls in families.items() if cls.kind == JUDGE} == judges
    assert {f for f, cls in families.items() if cls.kind == CHEAP} == {
        "exact_match", "token_f1", "rouge", "bleu", "retrieval", "grounding", "turn_overlap", "citations_local",
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
