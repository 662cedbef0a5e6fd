"""The `slow` marker (CONTRIBUTING.md, "Running the tests quickly"): registered, and every file or folder that
tests/conftest.py calls slow exists, so a renamed test file cannot silently move into the quick run."""
from __future__ import annotations

import conftest
from conftest import REPO


def test_every_slow_path_exists():
    missing = [path for path in conftest.SLOW if not (REPO / "tests" / path).exists()]
    assert missing == [], f"tests/conftest.py SLOW names paths that do not exist: {missing}"


def test_the_marker_is_registered(pytestconfig):
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))
