"""genevals in a test suite: :func:`assert_scores` (score data, fail the test on a missed gate with the worst
samples and their unsupported claims), and a pytest plugin (:mod:`genevals.testing.plugin`, registered through
the ``pytest11`` entry point when genevals is installed) with the ``genevals`` marker and fixture.

    gates.py   assert_scores, ScoresFailed, the failure message
    plugin.py  the pytest plugin: @pytest.mark.genevals(...) and the ``genevals`` fixture
"""
from genevals.testing.gates import ScoresFailed, assert_scores

__all__ = ["ScoresFailed", "assert_scores"]
