"""The jury's combination policy: weighted majority with ties unverifiable, failed judges casting no vote; the
system figures (Fleiss' and pairwise Cohen's kappa against scikit-learn and the published example, the
disagreement rate, the interval over samples and judges)."""
import pytest
from sklearn.metrics import cohen_kappa_score

from genevals.metrics.judging import jury_votes
from genevals.stats.agreement import cohen_kappa, fleiss_kappa

W = {"a": 1.0, "b": 1.0, "c": 1.0}


def test_weighted_majority_ties_and_failed_judges():
    assert jury_votes.majority({"a": "supported", "b": "supported", "c": "contradicted"}, W) == ("supported", 2 / 3)
    assert jury_votes.majority({"a": "supported", "b": "contradicted"}, W)[0] == "unverifiable"  # a tie
    assert jury_votes.tied({"a": "supported", "b": "contradicted"}, W)
    assert jury_votes.majority({"a": "supported", "b": "contradicted"}, {"a": 2.0, "b": 1.0}) == ("supported", 2 / 3)
    assert jury_votes.majority({"a": None, "b": "contradicted", "c": None}, W) == ("contradicted", 1.0)
    assert jury_votes.majority({"a": None, "b": None}, W) == ("unverifiable", 0.0)
    assert jury_votes.weighted_mean({"a": 1.0, "b": 0.0, "c": None}, {"a": 3.0, "b": 1.0}) == 0.75


def test_fleiss_kappa_matches_the_published_example():
    # Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories -> 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1], [7, 7, 0, 0, 0],
             [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    units = [[c for c, k in enumerate(row) for _ in range(k)] for row in table]
    assert fleiss_kappa(units) == pytest.approx(0.2099, abs=1e-4)
    assert fleiss_kappa([["s", "s"], ["s", "s"]]) is None  # every vote the same: not measurable
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([["s", "s"], ["s"]])


def test_cohen_kappa_matches_scikit_learn():
    a = ["supported", "supported", "contradicted", "unverifiable", "supported", "contradicted"]
    b = ["supported", "contradicted", "contradicted", "unverifiable", "unverifiable", "contradicted"]
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))


def test_system_figures_from_summed_statistics():
    names = ["a", "b"]
    totals: dict = {}
    for values, units in (({"a": 1.0, "b": 0.5}, [("supported", "supported"), ("supported", "contradicted")]),
                          ({"a": 0.0, "b": 0.0}, [("contradicted", "contradicted"), ("unverifiable", None)])):
        for k, v in jury_votes.statistics("faithfulness", names, values, units, {"a": 0.01, "b": 0.02}).items():
            totals[k] = totals[k] + v if k in totals else v
    parts = jury_votes.split(totals)[1]["faithfulness"]
    s = jury_votes.summarise(parts, names, {"a": 1.0, "b": 1.0}, seed=1)
    assert (s["units"], s["kappa_units"], s["split_units"]) == (4, 3, 1)
    assert s["disagreement_rate"] == pytest.approx(1 / 3)  # the unit only one judge labelled is not counted
    assert s["pairwise_kappa"]["a|b"] == pytest.approx(cohen_kappa_score(["supported", "supported", "contradicted"],
                                                                         ["supported", "contradicted", "contradicted"]))
    assert s["cost"] == {"a": pytest.approx(0.02), "b": pytest.approx(0.04)}
    assert s["judge_means"] == {"a": 0.5, "b": 0.25} and s["mean_spread"] == 0.25
    assert s["ci95_jury"][0] <= s["mean_over_judges"] <= s["ci95_jury"][1]
