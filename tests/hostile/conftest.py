"""The corpus starts early and its tests run last (issue 48: a suite people can run).

When collection ends, the selected corpus cases start in the background (hostile.runner.Corpus), one at a time
while the rest of the suite runs: those tests mostly wait on processes of their own, so on two cores one is free.
The corpus's tests move to the end of the session, keeping their order; the first of them waits for the rest of
the corpus at two cases at a time. Each case is still its own process with its own time limit, and no test is
left out or changed. Nothing starts for ``--collect-only`` (or ``--setup-plan``, ``--setup-only``).
"""
from __future__ import annotations


def _corpus_items(items):
    return [item for item in items if getattr(item, "originalname", None) == "test_case" and hasattr(item, "callspec")
            and getattr(item.module, "__name__", "").endswith("test_corpus")]


def pytest_collection_modifyitems(config, items):
    corpus = set(map(id, _corpus_items(items)))
    if corpus:
        items[:] = [item for item in items if id(item) not in corpus] + [item for item in items if id(item) in corpus]


def pytest_collection_finish(session):
    option = session.config.option
    if any(getattr(option, name, False) for name in ("collectonly", "setupplan", "setuponly")):
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
