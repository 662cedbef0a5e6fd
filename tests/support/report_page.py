"""A report opened in headless Chromium for a test: ready to read, with the errors it logs collected."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


class ReportPage:
    def __init__(self, page: Any) -> None:
        self.page = page
        #: console errors and uncaught exceptions, in the order the page logged them
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def tab(self, name: str) -> None:
        self.page.click(f"button[data-tab={name}]")
        self.page.wait_for_selector(f"#tab-{name}:not([hidden])")


@contextmanager
def report_page(browser: Any, report: Path) -> Iterator[ReportPage]:
    """``report`` in a new 1400x1000 page, once its script has finished (``html[data-ready=true]``); closed after."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        view = ReportPage(context.new_page())
        view.page.goto(report.resolve().as_uri())
        view.page.wait_for_selector("html[data-ready=true]", timeout=15_000)
        yield view
    finally:
        context.close()
