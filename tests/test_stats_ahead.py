"""Bootstrap intervals made ahead in a thread (genevals.stats.ahead): the summary that takes them is the one it
would have computed, byte for byte, and what was not made ahead is computed as always."""
import json

import numpy as np

from genevals.stats import DEFAULT_SEED, ahead, summarise_many
from genevals.stats.ahead import prefetch_summaries


def _columns(seed: int):
    rng = np.random.default_rng(seed)
    return [rng.random(300).round(3).tolist(), rng.integers(0, 2, 300).astype(float).tolist(),
            rng.random(57).tolist(), [seed / 10], [None, 0.25, None, 0.75, seed / 10]]


def _summaries(columns, seed=DEFAULT_SEED):
    got = summarise_many([(values, ["ok"] * len(values)) for values in columns], seed=seed)
    return json.dumps([s.to_dict() for s in got])


def test_intervals_made_ahead_are_the_ones_the_summary_computes():
    columns = _columns(1)
    want = _summaries(columns)
    assert not ahead.pending()
    prefetch_summaries(columns)
    assert ahead.pending()
    assert _summaries(columns) == want
    assert not ahead.pending()  # each interval handed out once


def test_other_columns_and_another_seed_are_computed_as_always():
    columns, others = _columns(2), _columns(3)
    want, want_seeded = _summaries(others), _summaries(columns, seed=7)
    prefetch_summaries(columns)  # made for the default seed: not taken for seed 7, nor for other values
    assert _summaries(others) == want
    assert _summaries(columns, seed=7) == want_seeded
    shared = [[0.1, 0.2, 0.2]]
    prefetch_summaries(shared)  # the same values in another run's column: the same interval, taken
    assert _summaries([[0.2, 0.1, 0.2]]) == _summaries(shared) and not ahead.pending()
    prefetch_summaries(columns)
    ahead.wait()
    assert len(ahead._made) == 5  # what nobody took stays until the next start, which drops it
    fourth = _summaries(_columns(4))
    prefetch_summaries(_columns(4))
    ahead.wait()
    assert len(ahead._made) == 5 and ahead.take(list(ahead._made))  # the new columns' alone
    prefetch_summaries(_columns(4))
    assert _summaries(_columns(4)) == fourth


def test_a_failed_prefetch_leaves_the_summary_to_compute_everything():
    columns = _columns(5)
    want = _summaries(columns)
    ahead.start(lambda: 1 / 0)
    assert _summaries(columns) == want
    assert not ahead.pending()


def test_the_stats_package_does_not_load_it():
    """Only a caller that makes intervals ahead loads the module; a summary looks there only once it is loaded."""
    import subprocess
    import sys

    code = ("import sys; from genevals.stats import summarise, summarise_many; summarise([0.1, 0.2], ['ok', 'ok']); "
            "print('genevals.stats.ahead' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"
