"""The blind review page's script (genevals/review/page.py): the selection helper it shares with the report's
review panel, then items.js, and nothing of the report's scripts (which carry the judge's verdicts). The helper is
defined once in the package (issue 38/39 follow-up: items.js held a copy of decisions.js's)."""
import re
from pathlib import Path

from genevals.report import render
from genevals.review import page

PACKAGE = Path(page.__file__).resolve().parents[1]
SCRIPT = re.compile(r"<script>(.*)</script>", re.S)


def test_the_page_loads_the_shared_helper_and_items_js_only():
    html = page.render("t0k", "run", blind=True, queue=False)
    [script] = SCRIPT.findall(html)
    selection = (PACKAGE / "report" / "selection.js").read_text(encoding="utf-8")
    items = (PACKAGE / "review" / "items.js").read_text(encoding="utf-8")
    assert script == selection + "\n" + items
    for name in render.JS_FILES:  # no report script but the helper
        if name != "selection.js":
            assert (render.HERE / name).read_text(encoding="utf-8") not in script, name
    # the shared file holds the one helper: a second function there would reach the blind page unseen
    assert re.findall(r"^function (\w+)", selection, re.M) == ["selectionIn"]


def test_selection_helper_is_defined_once_and_both_pages_load_it():
    defined = [p.relative_to(PACKAGE).as_posix() for p in sorted(PACKAGE.rglob("*.js"))
               if re.search(r"^function selectionIn\(", p.read_text(encoding="utf-8"), re.M)]
    assert defined == ["report/selection.js"]
    assert "selection.js" in render.JS_FILES
    assert "function selectionIn(" in page.render("t0k", "run", blind=False, queue=True)
