"""The hostile-input corpus (issue 22): every case in a real process, none ending in a traceback or a hang,
every previous run kept (see hostile/cases.py for the classes and hostile/runner.py for the checks).

All the selected cases run once, in the background from the end of collection (one at a time while the rest of
the suite runs, two at a time once the corpus's tests, moved to the end, start; see tests/hostile/conftest.py);
one test per case:

    python -m pytest -q tests/hostile                      # the whole corpus
    python -m pytest -q tests/hostile -k "encodings"       # one class
    python -m pytest -q tests/hostile -k "types-answer-nan"  # one case

``HOSTILE_SPAWN=1`` starts each CLI case as a cold ``python -m genevals`` (slower); ``HOSTILE_KEEP=1`` keeps the
cases' folders (their path is printed); ``HOSTILE_REPORT=FILE`` writes each outcome there as JSON lines.
"""
from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from hostile.cases import CLASSES, NEW_CLASSES, all_cases

CASES = all_cases()
BY_ID = {case.id: case for case in CASES}


def selected(items) -> list:
    """The cases whose test is among ``items``, in their order."""
    return [BY_ID[item.callspec.params["case_id"]] for item in items
            if getattr(item, "originalname", None) == "test_case" and hasattr(item, "callspec")]


@pytest.fixture(scope="session")
def outcomes(request):
    """Every selected case's outcome. The cases started in the background when collection ended (see
    tests/hostile/conftest.py; here, when that did not happen); this waits for all of them."""
    from hostile import runner

    corpus = runner.CORPUS
    if corpus is None:
        corpus = runner.CORPUS = runner.Corpus(selected(request.session.items))
    found = corpus.outcomes()
    failed = sum(1 for o in found.values() if o.problems)
    print(f"\nhostile corpus: {len(found)} cases in {corpus.elapsed:.0f} s, {failed} failing ({corpus.root})")
    if os.environ.get("HOSTILE_REPORT"):
        with open(os.environ["HOSTILE_REPORT"], "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps({
                    "id": outcome.case.id, "class": outcome.case.cls, "expect": outcome.case.expect,
                    "code": outcome.code, "hung": outcome.hung, "seconds": round(outcome.seconds, 2),
                    "problems": outcome.problems, "api": outcome.api, "stderr": outcome.stderr[-4000:]}) + "\n" for outcome in found.values())
    return found


def test_the_corpus_is_large_and_covers_every_class():
    counts = Counter(case.cls for case in CASES)
    assert len(CASES) >= 400, counts
    assert set(counts) == set(CLASSES), counts
    assert all(case.limit <= 40 for case in CASES)


def test_the_surfaces_of_issue_34_have_700_cases_of_their_own():
    counts = Counter(case.cls for case in CASES if case.cls in NEW_CLASSES)
    assert sum(counts.values()) >= 700, counts
    assert all(counts[name] >= 60 for name in NEW_CLASSES), counts


def test_the_languages_of_issue_35_have_80_cases():
    assert Counter(case.cls for case in CASES)["languages"] >= 80


@pytest.mark.parametrize("case_id", list(BY_ID))
def test_case(case_id, outcomes):
    outcome = outcomes[case_id]
    if outcome.problems:
        pytest.fail(f"{case_id} (expected {outcome.case.expect}): {outcome.summary()}\n  - "
                    + "\n  - ".join(outcome.problems) + "\n--- stderr (end) ---\n" + outcome.stderr[-2500:],
                    pytrace=False)
