"""The corpus starts early and its tests run last (issue 48: a suite people can run).

When collection ends, the selected corpus cases start in the background (hostile.runner.Corpus), one at a time
while the rest of the suite runs: those tests mostly wait on processes of their own, so on two cores one is free.
The corpus's tests move to the end of the session, keeping their order; the first of them waits for the rest of
the corpus at two cases at a time. Each case is still its own process with its own time limit, and no test is
left out or changed. Nothing starts for ``--collect-only`` (or ``--setup-plan``, ``--setup-only``). Under
pytest-xdist (``-n 2 --dist loadfile``, the suite's default) the worker given the corpus's file starts it at its
first test instead, at two cases at a time, beside the other worker's tests.
"""
from __future__ import annotations

import os


def _corpus_items(items):
    return [item for item in items if getattr(item, "originalname", None) == "test_case" and hasattr(item, "callspec")
            and getattr(item.module, "__name__", "").endswith("test_corpus")]


def pytest_collection_modifyitems(config, items):
    corpus = set(map(id, _corpus_items(items)))
    if not corpus:
        return
    others = [item for item in items if id(item) not in corpus]
    ours = [item for item in items if id(item) in corpus]
    # Under pytest-xdist the corpus's file goes first, to the first worker free: the longest piece of work, started
    # first, runs beside everything else. In one process its tests go last (the corpus started in the background).
    items[:] = ours + others if os.environ.get("PYTEST_XDIST_WORKER") else others + ours


def pytest_collection_finish(session):
    option = session.config.option
    if any(getattr(option, name, False) for name in ("collectonly", "setupplan", "setuponly")):
        return
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Under pytest-xdist every worker collects every test, and `--dist loadfile` hands the corpus's file to one
        # of them: that one starts the corpus when its first corpus test asks (test_corpus.outcomes), while the
        # other worker's tests fill the second core.
        return
    corpus = _corpus_items(session.items)
    if not corpus:
        return
    from hostile import runner

    module = corpus[0].module
    others = len(session.items) > len(corpus) + 3  # more than the corpus's own few tests to run alongside
    runner.CORPUS = runner.Corpus(module.selected(corpus), ahead=1 if others else None)


def pytest_sessionfinish(session):
    from hostile import runner

    if runner.CORPUS is not None:
        runner.CORPUS.stop()
        runner.CORPUS = None
