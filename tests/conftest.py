import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Every `genevals run` of the suite (in this process and the ones it starts) records itself in a history of its
# own, never in the user's (~/.local/share/genevals/history.sqlite).
_HISTORY_DIR = tempfile.mkdtemp(prefix="genevals-test-history-")
atexit.register(shutil.rmtree, _HISTORY_DIR, True)
os.environ["GENEVALS_HISTORY"] = os.path.join(_HISTORY_DIR, "history.sqlite")

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
    from genevals import registry
    from genevals.metrics import base

    # Discover the packaged metrics first: discovered during the test, they would be forgotten with its own.
    registry.families()
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


# Headless Chromium for every browser test (report, review, CLI): Python Playwright, sync API. The ``browser``
# fixture FAILS its tests, with the instruction that fixes it, when Chromium (``GENEVALS_CHROMIUM``, default
# /usr/bin/chromium) or playwright is missing: a browser test that silently skips proves nothing.
# ``bash tools/setup-tests.sh`` (the README's test setup, also run by CI) installs both.
CHROMIUM = os.environ.get("GENEVALS_CHROMIUM", "/usr/bin/chromium")
MISSING = ("headless Chromium is needed for the report's browser tests; run `bash tools/setup-tests.sh` (or "
           "`apt-get install chromium` and `pip install -e .[test]`), or set GENEVALS_CHROMIUM to a Chromium binary")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{MISSING}: {CHROMIUM} not found", pytrace=False)
    try:
        from playwright import sync_api
    except ImportError:
        pytest.fail(f"{MISSING}: the playwright package is not installed", pytrace=False)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
