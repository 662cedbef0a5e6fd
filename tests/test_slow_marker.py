"""The `slow` marker (CONTRIBUTING.md, "Running the tests quickly"): registered, and every file or folder that
tests/conftest.py calls slow exists, so a renamed test file cannot silently move into the quick run; and the
counts CONTRIBUTING.md gives for the whole suite and its quick part are right (within 5%)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import conftest
import pytest
from conftest import REPO


def test_every_slow_path_exists():
    missing = [path for path in conftest.SLOW if not (REPO / "tests" / path).exists()]
    assert missing == [], f"tests/conftest.py SLOW names paths that do not exist: {missing}"


def test_the_marker_is_registered(pytestconfig):
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))


def _counts(session) -> tuple[int, int]:
    """(all tests, the quick ones): from this session when it collected the whole suite (CI's `python -m pytest
    -q`), else from a collection of its own."""
    config = session.config
    whole = (config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.option.keyword
             and not config.option.markexpr and not config.getoption("deselect") and not config.getoption("lf", False))
    if whole:
        slow = sum(1 for item in session.items if item.get_closest_marker("slow") is not None)
        return len(session.items), len(session.items) - slow
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-p", "support.count_tests"], cwd=REPO, capture_output=True, text=True, env=env,
                          timeout=600, check=False)
    found = re.search(r"^test counts: (\d+) (\d+)$", done.stdout, re.M)
    assert found, done.stdout[-2000:] + done.stderr[-2000:]
    total, slow = int(found[1]), int(found[2])
    return total, total - slow


@pytest.mark.slow
def test_contributing_gives_the_test_counts(request):
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    stated = re.search(r"It ran ([\d,]+) of the ([\d,]+) tests", text)
    assert stated, "CONTRIBUTING.md, Running the tests quickly: no 'It ran N of the M tests'"
    quick_said, total_said = (int(n.replace(",", "")) for n in stated.groups())
    total, quick = _counts(request.session)
    wrong = [f"{what}: CONTRIBUTING.md says {said:,}, the suite has {real:,}"
             for what, said, real in (("all tests", total_said, total), ("quick tests", quick_said, quick))
             if abs(said - real) > 0.05 * real]
    assert wrong == [], "update CONTRIBUTING.md's 'It ran N of the M tests': " + "; ".join(wrong)
