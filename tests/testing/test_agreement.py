"""``assert_scores(..., require_agreement=LABELS, min_kappa=K)`` and the ``genevals`` marker in a real pytest
process (pytester.runpytest_subprocess), with the offline grounding checker as the judge: agreeing labels pass,
disagreeing ones fail the test with AgreementFailed naming the figure and its CI and setting the judge's gate
aside; a bad labels file or min_kappa is refused before scoring."""
import json
from importlib.metadata import entry_points

import pytest
from support.agreement_data import labels, rows

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # one pytest process scoring five runs with the grounding checker


def plugin_args():
    installed = any(ep.value == "genevals.testing.plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "genevals.testing.plugin"]


def test_the_agreement_gate_in_assert_scores_and_the_marker(pytester, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    data = rows(30)
    pytester.makefile(".jsonl", data="".join(json.dumps(r) + "\n" for r in data),
                      agree="".join(json.dumps(r) + "\n" for r in labels(data)),
                      disagree="".join(json.dumps(r) + "\n" for r in labels(data, flip=12)),
                      bad='{"id": "s1", "response": "x", "context": "y", "hallucinated": "yes"}\n')
    pytester.makepyfile(test_agreement="""
        import json
        import pytest
        from genevals.testing import AgreementFailed, assert_scores

        def test_agreeing_labels_pass(tmp_path):
            results = assert_scores("data.jsonl", ["faithfulness"], fail_under={"faithfulness": 0.4},
                                    require_agreement="agree.jsonl", out_dir=tmp_path / "run")
            found = results.summary()["meta"]["judge_agreement"]
            assert found["passed"] and found["n"] == 30 and found["kappa_ci95"][0] > 0.7
            assert json.loads((tmp_path / "run" / "summary.json").read_text())["meta"]["judge_agreement"] == found

        def test_disagreeing_labels_fail():
            assert_scores("data.jsonl", ["faithfulness"], fail_under={"faithfulness": 0.4},
                          require_agreement="disagree.jsonl")

        def test_caught_as_agreement_failed():
            with pytest.raises(AgreementFailed) as caught:
                assert_scores("data.jsonl", ["faithfulness"], require_agreement="disagree.jsonl", min_kappa=0.1)
            assert caught.value.agreement.outcome == "too_few_labels"

        @pytest.mark.genevals(data="data.jsonl", metrics=["faithfulness"], fail_under={"faithfulness": 0.4},
                              require_agreement="agree.jsonl", min_kappa=0.7)
        def test_marker_passes(genevals):
            assert genevals().summary()["meta"]["judge_agreement"]["min_kappa"] == 0.7

        def test_refused_before_scoring():
            from genevals.validation.labels import LabelledInputError
            with pytest.raises(LabelledInputError, match="bad.jsonl:1: field 'hallucinated': expected true or false"):
                assert_scores("no-such-data.jsonl", ["faithfulness"], require_agreement="bad.jsonl")
            with pytest.raises(ValueError, match="min_kappa: expected a number in \\\\[-1, 1\\\\], got 2"):
                assert_scores("no-such-data.jsonl", ["faithfulness"], require_agreement="agree.jsonl", min_kappa=2)
            with pytest.raises(ValueError, match="min_kappa: applies to require_agreement=LABELS"):
                assert_scores("no-such-data.jsonl", ["faithfulness"], min_kappa=0.7)
            with pytest.raises(ValueError, match="add 'faithfulness' to metrics"):
                assert_scores("no-such-data.jsonl", ["token_f1"], require_agreement="agree.jsonl")
    """)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rN", "-W", "ignore")
    result.assert_outcomes(passed=4, failed=1)
    out = result.stdout.str()
    assert ("genevals: judge agreement with disagree.jsonl: kappa 0.20 [95% CI -0.20, 0.53], accuracy 0.60 on 30 "
            "labelled samples; below the minimum 0.6") in out
    assert "genevals: gate not checked: fail_under['faithfulness'] = 0.4: the judge did not pass require_agreement" in out
    assert "AgreementFailed" in out
