import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DEMO = REPO / "datasets" / "demo" / "demo.jsonl"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def isolated_registry():
    """Metrics a test registers are forgotten after it, so no other test sees them."""
    from genevals.metrics import base

    before = dict(base._FAMILIES)
    yield
    base._FAMILIES.clear()
    base._FAMILIES.update(before)


def pytest_terminal_summary(terminalreporter):
    """Show how many fuzz cases ran, even under -q, where passing tests' output is hidden."""
    lines = []
    for report in terminalreporter.stats.get("passed", []):
        lines += [line for line in report.capstdout.splitlines() if line.startswith("fuzz")]
    if lines:
        terminalreporter.write_sep("-", "fuzz cases tried")
        for line in lines:
            terminalreporter.write_line(line)
