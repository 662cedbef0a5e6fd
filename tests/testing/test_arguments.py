"""assert_scores's arguments (genevals/testing/arguments.py), checked before anything is scored: each mistake a
ValueError or TypeError naming the parameter and the value, the value shown cut short."""
import math

import numpy as np
import pytest

from genevals.input.readers import InputError
from genevals.output.thresholds import ThresholdError
from genevals.testing import arguments


def test_a_value_is_shown_cut_short_and_a_huge_integer_by_its_size():
    assert arguments.shown("x" * 500) == repr("x" * 500)[:77] + "..."
    assert arguments.shown(10 ** 5000) == "an integer of 5001 digits"
    assert arguments.shown(-(10 ** 5000)) == "an integer of 5001 digits"

    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no")

    assert arguments.shown(Unprintable()) == "<Unprintable>"


@pytest.mark.parametrize("given, said", [
    (["token_f1"], "fail_under: expected a mapping of metric name -> minimum"),
    ("token_f1=0.5", "got str 'token_f1=0.5'"),
    ({"token_f1": math.nan}, "fail_under['token_f1']: the minimum must be a finite number, got nan"),
    ({"token_f1": np.float64("inf")}, "must be a finite number"),
    ({"token_f1": True}, "the minimum must be a number, got bool True"),
    ({"token_f1": -1}, "fail_under={'token_f1': -1}: -1 is outside token_f1's range [0, 1]"),
    ({"token-f1": 0.5}, "unknown metric 'token-f1'; did you mean 'token_f1'?"),
    ({"\x1b[2J": 0.5}, "unknown metric '\\x1b[2J'"),
    ({"x" * 5000: 0.5}, "unknown metric 'xxxxxxxx"),
])
def test_a_gate_that_cannot_be_checked_is_refused_naming_it(given, said):
    with pytest.raises(ThresholdError) as caught:
        arguments.thresholds(given, None)
    assert said in str(caught.value) and len(str(caught.value)) < 300
    assert isinstance(caught.value, TypeError) == (not isinstance(given, dict) or "bool" in said)


def test_gates_are_read_in_both_directions():
    gates = arguments.thresholds({"token_f1": np.float32(0.5)}, {"contradiction_rate": 0})
    assert [(g.metric, g.limit, g.kind) for g in gates] == [("token_f1", 0.5, "fail_under"),
                                                           ("contradiction_rate", 0.0, "fail_over")]


@pytest.mark.parametrize("value", [-1, 1.5, "3", None, True, math.nan])
def test_worst_is_a_whole_number_0_or_more(value):
    with pytest.raises(InputError, match="^worst: expected a whole number( 0 or more)?, got "):
        arguments.count(value, "worst")


@pytest.mark.parametrize("value", [-0.1, 1.01, pytest.param(10 ** 5000, id="5000-digits"), "0.1", None, False,
                                   math.nan, math.inf])
def test_max_judge_errors_is_a_share(value):
    with pytest.raises(InputError, match=r"^max_judge_errors: expected a (finite )?number( in \[0, 1\])?, got "):
        arguments.fraction(value, "max_judge_errors")


def test_an_unknown_argument_gets_a_did_you_mean():
    arguments.check_names({"judge": None, "out_dir": None, "worst": 1})
    with pytest.raises(TypeError, match="unknown argument 'fail_ovr'; did you mean 'fail_over'?"):
        arguments.check_names({"fail_ovr": {}})
