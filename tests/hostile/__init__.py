"""The hostile-input corpus (issue 22): cases as data (``cases*.py``), a runner that starts a real process per
case (``runner.py``), and the test that checks each outcome (``test_corpus.py``)."""
