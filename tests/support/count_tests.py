"""A pytest plugin (``-p support.count_tests``) that, at the end of collection, prints how many tests were
collected and how many of them are marked ``slow``: ``test counts: TOTAL SLOW``. tests/test_slow_marker.py uses
it to check CONTRIBUTING.md's counts when its own session did not collect the whole suite."""
from __future__ import annotations


def pytest_collection_finish(session):
    slow = sum(1 for item in session.items if item.get_closest_marker("slow") is not None)
    print(f"\ntest counts: {len(session.items)} {slow}")
