"""A test fails where ``genevals run`` would not exit 0 (issue 34, point 14), in real pytest processes: a judge
that cannot answer (exit 2) or failed on too many samples (exit 3) is a JudgeFailed, with or without a gate; a
metric asked for that scored nothing (exit 1) a ScoresFailed; and an argument that cannot be used is a
ValueError or TypeError naming it (never an AttributeError or OverflowError from inside), through
``assert_scores``, the marker and the fixture alike."""
from importlib.metadata import entry_points

from support.fault_server import FaultServer

pytest_plugins = ["pytester"]



def plugin_args():
    """Load the plugin by name unless its entry point is installed (then pytest loads it, and -p would clash)."""
    installed = any(ep.value == "genevals.testing.plugin" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "genevals.testing.plugin"]


UNREACHABLE = "http://127.0.0.1:9/v1"
JUDGED = [{"id": "ok", "answer": "Paris is in France.", "contexts": ["Paris is in France."]},
          {"id": "bad", "answer": "Paris is in France. FAULT500", "contexts": ["Paris is in France."]}]
ROWS = [{"id": f"q{i}", "answer": f"answer {i}", "references": [f"answer {i}"]} for i in range(3)]


def test_a_judge_that_failed_fails_the_test_with_or_without_a_gate(pytester):
    with FaultServer() as server:
        pytester.makepyfile(test_judge=f"""
            import pytest
            from genevals import JudgeConfig
            from genevals.testing import JudgeFailed, ScoresFailed, assert_scores

            JUDGED = {JUDGED!r}
            FAULTY = {{"base_url": "{server.base_url}", "model": "judge", "max_retries": 0, "cache": False}}

            def test_unreachable_no_gate():
                assert_scores(JUDGED[:1], ["faithfulness"], judge={{"base_url": "{UNREACHABLE}", "model": "m"}})

            @pytest.mark.genevals(data=JUDGED[:1], metrics=["faithfulness"], fail_under={{"faithfulness": 0}},
                                  judge={{"base_url": "{UNREACHABLE}"}})
            def test_unreachable_through_the_fixture(genevals):
                genevals()

            def test_too_many_judge_errors():
                with pytest.raises(JudgeFailed) as caught:
                    assert_scores(JUDGED, ["faithfulness"], judge=FAULTY)
                assert "1 of 2 faithfulness samples (50%" in str(caught.value)
                assert "max_judge_errors=0.05" in str(caught.value) and "judge_error" in str(caught.value)
                assert caught.value.results is not None and len(caught.value.results) == 2

            def test_errors_allowed_but_nothing_scored_still_fails():
                config = JudgeConfig(base_url="{UNREACHABLE}", model="m", max_retries=0)
                with pytest.raises(ScoresFailed) as caught:
                    assert_scores(JUDGED, ["faithfulness"], judge=config, max_judge_errors=1)
                assert not isinstance(caught.value, JudgeFailed)
                assert "faithfulness scored no sample (unscored: judge_error 2)" in str(caught.value)

            def test_a_judge_that_answers_passes():
                results = assert_scores(JUDGED[:1], ["faithfulness"], judge=FAULTY, fail_under={{"faithfulness": 1}})
                assert len(results) == 1
        """)
        result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rN", "--color=no")
    result.assert_outcomes(passed=3, failed=2)
    out = result.stdout.str()
    assert out.count("genevals: the judge cannot answer, nothing was scored") == 2
    assert f"the judge at {UNREACHABLE} (model 'm') did not answer a test request" in out
    assert "JudgeFailed" in out and "AttributeError" not in out


def test_a_metric_that_scored_nothing_fails_the_test(pytester):
    pytester.makepyfile(test_unscored="""
        from genevals.testing import assert_scores

        def test_no_references():
            assert_scores([{"id": "a", "answer": "x"}], ["token_f1"])

        def test_every_row_skipped():
            assert_scores([{"id": "a", "answer": 5}], ["token_f1"], on_error="skip")
    """)
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rN")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "genevals: token_f1 scored no sample (unscored: no_reference 1)" in out
    assert "genevals: no sample was scored: every input row was skipped" in out


BAD = {  # argument -> what the error says
    "fail_under=['token_f1']": "GateTypeError: fail_under: expected a mapping of metric name -> minimum",
    "fail_under='token_f1=0.5'": "fail_under: expected a mapping of metric name -> minimum, e.g. "
                                 "fail_under={'token_f1': 0.5}; got str 'token_f1=0.5'",
    "fail_over=('contradiction_rate', 0.1)": "fail_over: expected a mapping of metric name -> maximum",
    "fail_under={'token_f1': float('nan')}": "fail_under['token_f1']: the minimum must be a finite number, got nan",
    "fail_under={'token_f1': 10 ** 5000}": "fail_under['token_f1']: the minimum must be a finite number, got an "
                                           "integer of 5001 digits",
    "fail_under={'token_f1': '0.5'}": "fail_under['token_f1']: the minimum must be a number, got str '0.5'",
    "fail_under={'token_f1': -0.5}": "fail_under={'token_f1': -0.5}: -0.5 is outside token_f1's range [0, 1]",
    "fail_under={'token_f1': 1.5}": "fail_under={'token_f1': 1.5}: 1.5 is outside token_f1's range [0, 1]",
    "fail_under={'tokn_f1': 0.5}": "fail_under: unknown metric 'tokn_f1'; did you mean 'token_f1'?",
    "fail_under={1: 0.5}": "fail_under: a metric name must be a string, got int 1",
    "worst='3'": "worst: expected a whole number, got '3'",
    "worst=-1": "worst: expected a whole number 0 or more, got -1",
    "max_judge_errors=float('nan')": "max_judge_errors: expected a finite number, got nan",
    "max_judge_errors=2": "max_judge_errors: expected a number in [0, 1], got 2",
    "fail_undr={'token_f1': 0.5}": "assert_scores: unknown argument 'fail_undr'; did you mean 'fail_under'?",
}


def test_every_bad_argument_is_refused_naming_it_through_the_marker(pytester):
    tests = "".join(f"""
@pytest.mark.genevals({argument})
def test_{i}(genevals):
    genevals()
""" for i, argument in enumerate(BAD))
    pytester.makepyfile(test_bad=f"""
import pytest
pytestmark = pytest.mark.genevals(data={ROWS!r}, metrics=["token_f1"])
{tests}""")
    result = pytester.runpytest_subprocess(*plugin_args(), "-p", "no:cacheprovider", "-rN")
    result.assert_outcomes(failed=len(BAD))
    out = result.stdout.str()
    for said in BAD.values():
        assert said in out, said
    for traceback_of in ("AttributeError", "OverflowError", "evaluate() got an unexpected"):
        assert traceback_of not in out


def test_the_fixture_takes_out_dir_none_a_judge_config_class_is_refused_and_control_characters_are_escaped(
        pytester):
    rows = [{**row, "id": "\x1b[2J" + row["id"], "system": "\x1b[31mred", "answer": "\x07wrong"}
            for row in ROWS]
    pytester.makepyfile(test_fixture=f"""
        import pytest
        from genevals import JudgeConfig

        pytestmark = pytest.mark.genevals(metrics=["token_f1"])

        def test_out_dir_none_and_metrics_positional(genevals, tmp_path):
            genevals({ROWS!r}, ["exact_match"], out_dir=None)
            assert (tmp_path / "genevals" / "report.html").is_file()

        def test_a_judge_config_class(genevals):
            genevals({ROWS!r}, judge=JudgeConfig)

        def test_control_characters(genevals):
            genevals({rows!r}, fail_under={{"token_f1": 0.99}}, metrics=["token_f1", "exact_match"],
                     fail_over={{}})
    """)
    # the cache provider on: the fixture puts the judge's cache in it (with_judge_cache reads the judge)
    result = pytester.runpytest_subprocess(*plugin_args(), "-rN", "--color=no")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "judge: expected a JudgeConfig, a mapping of its fields" in out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2Jq0 [\\x1b[31mred] token_f1" in out
