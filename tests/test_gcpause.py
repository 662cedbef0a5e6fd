"""The cyclic collector is paused only for the block, and left as the caller had it."""
import gc

import pytest

from genevals.gcpause import collector_paused


def test_the_collector_is_paused_for_the_block_and_enabled_after_even_on_an_error():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), collector_paused():
        raise KeyError("x")
    assert gc.isenabled()
    with collector_paused(pause=False):
        assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled():
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
