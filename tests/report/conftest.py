"""Headless Chromium for the report's browser tests (Python Playwright, sync API).

The ``browser`` fixture FAILS its tests, with the instruction that fixes it, when Chromium
(``GENEVALS_CHROMIUM``, default /usr/bin/chromium) or playwright is missing: a report test that silently skips
proves nothing. ``bash tools/setup-tests.sh`` (the README's test setup, also run by CI) installs both.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

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
