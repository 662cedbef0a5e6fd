"""genevals.extras: the one check of whether an extra's packages are installed, which metrics and judge backends
share (issue #28)."""
from genevals import extras, registry
from genevals.judge.registry import Backend
from genevals.metrics.base import Metric

ABSENT = ("genevals_no_such_module_28", "no-such-dist")


def test_absent_names_the_first_distribution_not_importable():
    assert extras.absent([("json", "json"), ABSENT, ("also_absent_28", "other")]) == "no-such-dist"
    assert extras.absent([("json", "json"), ("genevals", "genevals")]) is None
    assert extras.absent([("json.no_such_child_28", "child")]) == "child"  # a module of a package
    assert extras.absent([("no_such_parent_28.child", "parent")]) == "parent"  # find_spec raises: still absent


def test_missing_says_what_to_install():
    assert extras.missing("metric 'x'", [ABSENT], "semantic") == (
        "metric 'x' needs no-such-dist, which is not installed: pip install 'genevals[semantic]'")
    assert extras.missing("metric 'x'", [ABSENT], None).endswith("pip install no-such-dist")
    assert extras.missing("metric 'x'", [("json", "json")], "semantic") is None


def test_a_metric_and_a_judge_backend_read_the_same_check():
    class Needy(Metric):  # not registered: the class alone declares its facts
        family, extra, requires = "needy", "semantic", (ABSENT,)

        def signature(self):
            return "needy"

        def score(self, samples):
            return []

    backend = Backend("needy", factory=lambda c: None, identity=lambda c: None, extra="semantic", requires=(ABSENT,))
    assert Needy.missing() == extras.missing("metric 'needy'", [ABSENT], "semantic")
    assert backend.missing() == extras.missing("--judge-backend needy", [ABSENT], "semantic")


def test_every_model_based_metric_declares_the_semantic_extra():
    """What loads torch or a model says so: BERTScore, the grounding checker's metrics and the offline judges."""
    needing = {cls.family for cls in registry.families() if cls.extra == "semantic"}
    assert needing == {"bertscore", "grounding", "cascade", "citations_local", "pairwise_local",
                       "answer_relevance_local", "context_relevance_local", "context_recall_local",
                       "answer_correctness_local"}
    for cls in registry.families():
        assert (cls.extra is None) == (not cls.requires), cls.family
        assert all(module.isidentifier() or "." in module for module, _ in cls.requires)
