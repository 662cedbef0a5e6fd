"""The pytest plugin and assert_scores (issue 26) in real pytest processes (pytester.runpytest_subprocess): gates
that pass and fail on a list, a DataFrame and a file; the failure names the missed gates and the worst samples
with their unsupported claims; the marker and fixture; a re-run answered by the judge cache asks the judge
nothing."""
import json
from importlib.metadata import entry_points

from support.fault_server import FaultServer

pytest_plugins = ["pytester"]


def plugin_args():
    """Load the plugin by name unless its entry point is installed (then pytest loads it, and -p would clash)."""
    installed = any(ep.value == "genevals.testing.plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "genevals.testing.plugin"]


ROWS = [{"id": f"q{i}", "answer": f"answer {i}" if i % 3 else "something else entirely",
         "references": [f"answer {i}"]} for i in range(9)]


def test_assert_scores_on_a_list_a_dataframe_and_a_file(pytester):
    pytester.makefile(".jsonl", data="".join(json.dumps(r) + "\n" for r in ROWS))
    pytester.makepyfile(test_gates=f"""
        import pandas as pd
        import pytest
        from genevals.testing import ScoresFailed, assert_scores

        ROWS = {ROWS!r}

        def test_list_passes():
            results = assert_scores(ROWS, ["token_f1"], fail_under={{"token_f1": 0.5}})
            assert len(results) == 9

        def test_dataframe_fails():
            assert_scores(pd.DataFrame(ROWS), ["token_f1", "exact_match"],
                          fail_under={{"token_f1": 0.9, "exact_match": 0.5}})

        def test_file_fails():
            assert_scores("data.jsonl", ["token_f1"], fail_under={{"token_f1": 0.95}}, worst=1)

        def test_a_gate_that_cannot_be_checked_is_refused_before_scoring():
            from genevals.output.thresholds import ThresholdError
            with pytest.raises(ThresholdError, match="higher-is-better; use fail_under="):
                assert_scores("no-such-file.jsonl", ["token_f1"], fail_over={{"token_f1": 0.5}})
            with pytest.raises(ThresholdError, match="unknown metric 'token_f2'; did you mean 'token_f1'"):
                assert_scores("no-such-file.jsonl", ["token_f1"], fail_under={{"token_f2": 0.5}})
            with pytest.raises(ScoresFailed) as caught:
                assert_scores(ROWS, ["token_f1"], fail_under={{"mrr": 0.5}})
            assert caught.value.missed == ["mrr: not computed (--fail-under 0.5)"]
    """)
    # -rN: no short test summary, which repeats each message whole where CI is set (and cut short elsewhere)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rN")
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert out.count("genevals: 1 gate missed on 9 samples:") == 2
    assert "default: token_f1 = 0.6667 < 0.9" in out and "exact_match = 0.6667" not in out
    assert "worst samples for token_f1 (\u2265 0.9):" in out
    assert out.count('q0 [default] token_f1 = 0.0000') == 2 and 'answer: "something else entirely"' in out
    assert out.count("q3 [default] token_f1 = 0.0000") == 1  # worst=1 lists one


FAITHFUL = [{"id": "ok", "answer": "Paris is in France.", "contexts": ["Paris is in France."]},
            {"id": "bad", "answer": "Paris is in France. The moon is made of cheese.", "contexts": ["Paris is in France."]}]


def test_marker_and_fixture_fail_with_unsupported_claims_and_a_rerun_asks_the_judge_nothing(pytester):
    pytester.makefile(".jsonl", answers="".join(json.dumps(r) + "\n" for r in FAITHFUL))
    with FaultServer() as server:
        pytester.makepyfile(test_rag=f"""
            import pytest

            pytestmark = pytest.mark.genevals(metrics=["faithfulness"], judge={{"base_url": "{server.base_url}",
                                              "model": "judge", "api_key": "sk-test"}})

            @pytest.mark.genevals(data="answers.jsonl", fail_under={{"faithfulness": 0.9}})
            def test_grounded(genevals):
                genevals()

            @pytest.mark.genevals(fail_under={{"faithfulness": 0.5}})
            def test_lenient(genevals, tmp_path):
                results = genevals("answers.jsonl")
                assert results.summary()["systems"]["default"]["faithfulness"]["mean"] == 0.75
                assert (tmp_path / "genevals" / "report.html").is_file()

            def test_no_data(genevals):
                genevals()
        """)
        first = pytester.runpytest_subprocess(*plugin_args(), "--strict-markers")
        asked = server.total
        again = pytester.runpytest_subprocess(*plugin_args(), "--strict-markers")
        assert asked > 0 and server.total == asked  # the second run: every reply from pytest's cache
    for result in (first, again):
        result.assert_outcomes(passed=1, failed=2, errors=0)
        out = result.stdout.str()
        assert "default: faithfulness = 0.7500 < 0.9" in out
        assert "bad [default] faithfulness = 0.5000" in out
        assert 'unverifiable: "The moon is made of cheese."' in out
        assert "genevals: no data to score" in out and "report: " in out
    assert (pytester.path / ".pytest_cache" / "d" / "genevals-judge").is_dir()
