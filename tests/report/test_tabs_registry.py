"""The report's tabs, tab sections, sample sections and hooks are registered (core.js), never redefined.

Statically: no two report scripts declare the same top-level name, and no script assigns to a name (or a property
of a name) another script declares, as rag.js and links.js once did to ``openSample``, ``showTab`` and ``TABS``.
In real headless Chromium: the tabs appear in the order their ``registerTab`` calls declare, whatever the order the
scripts load in, and a second registration of an id shows an error on the page instead of replacing the first.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.runs import add_judge, make_run

from genevals.report import render, write_report

NAME = r"[A-Za-z_$][\w$]*"
# A '/' after one of these (or after "return") starts a regular expression, not a division.
REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^")


def blank(src: str) -> str:
    """``src`` with the insides of comments, strings, template literals and regular expressions turned to spaces
    (the same length, so positions hold), leaving only code to search."""
    out, i, n = list(src), 0, len(src)

    def wipe(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif src.startswith("/*", i):
            j = src.index("*/", i) + 2
            wipe(i, j)
            i = j
        elif c in "\"'`" or (c == "/" and _regex_allowed(src, i)):
            j, in_class = i + 1, False
            while j < n and (src[j] != c or in_class):
                if src[j] == "\\":
                    j += 1
                elif c == "/" and src[j] in "[]":
                    in_class = src[j] == "["
                j += 1
            wipe(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _regex_allowed(src: str, i: int) -> bool:
    before = src[:i].rstrip()
    return not before or before[-1] in REGEX_BEFORE or before.endswith("return")


def depths(code: str) -> list[int]:
    """The bracket depth ({, ( and [ together) at each position of blanked code."""
    out, d = [], 0
    for c in code:
        if c in "})]":
            d -= 1
        out.append(d)
        if c in "{([":
            d += 1
    return out


def top_level_names(code: str) -> set[str]:
    """The functions and variables a script declares at its top level (``function NAME(``, ``var A = .., B``)."""
    depth = depths(code)
    names = {m.group(1) for m in re.finditer(rf"\bfunction\s+({NAME})\s*\(", code) if depth[m.start()] == 0}
    for m in re.finditer(r"\bvar\b", code):
        if depth[m.start()] != 0:
            continue
        j = m.end()
        while True:  # each declarator of this statement: NAME [= expression] followed by ',' or ';'
            d = re.match(rf"\s*({NAME})", code[j:])
            names.add(d.group(1))
            j += d.end()
            while j < len(code) and not (depth[j] == 0 and code[j] in ",;"):
                j += 1
            if j >= len(code) or code[j] == ";":
                break
            j += 1
    return names


def local_names(code: str) -> set[str]:
    """Every name a script declares anywhere with ``var`` or as a parameter (it may shadow another's global)."""
    names = set(re.findall(rf"\bvar\s+({NAME})", code)) | set(re.findall(rf",\s*({NAME})\s*=(?!=)", code))
    for params in re.findall(rf"\bfunction\s*(?:{NAME})?\s*\(([^)]*)\)", code):
        names |= set(re.findall(NAME, params))
    return names


def assigned(code: str) -> set[str]:
    """Names the script assigns to, or whose property it assigns: ``NAME = ..``, ``NAME.p = ..``, ``NAME[k] = ..``."""
    pattern = rf"(?<![\w$.])({NAME})\s*(?:\.\s*{NAME}|\[[^\]\n]*\])?\s*(?:[-+*/|&]?=)(?![=>])"
    return {m.group(1) for m in re.finditer(pattern, code) if not code[:m.start()].rstrip().endswith("var")}


def overrides(scripts: dict[str, str]) -> list[str]:
    """Every name two scripts declare, and every assignment by one script to another's top-level name."""
    codes = {name: blank(src) for name, src in scripts.items()}
    declared = {name: top_level_names(code) for name, code in codes.items()}
    problems = []
    owners: dict[str, str] = {}
    for name, names in declared.items():
        for n in sorted(names):
            if n in owners:
                problems.append(f"{n} is declared by {owners[n]} and by {name}")
            owners.setdefault(n, name)
    for name, code in codes.items():
        mine = declared[name] | local_names(code)
        for n in sorted(assigned(code) - mine):
            if n in owners and owners[n] != name:
                problems.append(f"{name} assigns {n}, which {owners[n]} declares")
    return problems


def report_scripts() -> dict[str, str]:
    return {name: (render.HERE / name).read_text(encoding="utf-8") for name in render.JS_FILES}


def test_the_checker_finds_redeclared_and_reassigned_globals():
    # The patterns the report used before the registry: a wrapper reassigning another script's function, and a
    # tab renderer replaced through another script's global object.
    found = overrides({
        "a.js": 'var TABS = {}, seen = "a, b = 1";\nfunction openSample(i) { return i; }\nTABS.x = function () {};\n',
        "b.js": '(function () {\n  var base = openSample;\n  openSample = function (i) { base(i); };\n'
                '  TABS.x = function (root) { root.n = 1; };\n})();\nfunction helper() { var seen = 2; seen = 3; }\n',
        "c.js": "function openSample(i) { return i / 2; } // openSample = 1\nvar re = /x = 'y/g;\n",
    })
    assert found == ["openSample is declared by a.js and by c.js", "b.js assigns TABS, which a.js declares",
                     "b.js assigns openSample, which a.js declares"]


def test_no_report_script_redefines_another_scripts_names():
    scripts = report_scripts()
    declared = {name: top_level_names(blank(src)) for name, src in scripts.items()}
    # the parser sees the scripts' real declarations (guards against a checker that finds nothing)
    assert {"openSample", "showTab", "registerTab"} <= declared["samples.js"] | declared["core.js"]
    assert overrides(scripts) == []


def test_report_scripts_stay_small():
    sizes = {name: src.count("\n") for name, src in report_scripts().items()}
    assert max(sizes.values()) <= 400, sizes


def registered_tabs() -> list[tuple[int, str, str]]:
    """(order, id, title) of every registerTab call in the scripts, in load order."""
    calls = re.findall(r'registerTab\(\{ id: "(\w+)", title: "([^"]+)", order: (\d+)',
                       "\n".join(report_scripts().values()))
    return [(int(order), tab, title) for tab, title, order in calls]


class Opened:
    """A report open in Chromium, with the console errors and page errors it raised."""

    def __init__(self, browser, path: Path):
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console error: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-ready=true]", timeout=15_000)

    def tab(self, name: str) -> None:
        self.page.click(f"button[data-tab={name}]")
        self.page.wait_for_selector(f"#tab-{name}:not([hidden])")

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("tabs")
    return make_run(root / "a"), add_judge(make_run(root / "b"))


def test_tabs_appear_in_their_registered_order(browser, two_runs, tmp_path):
    tabs = registered_tabs()
    # the runs tab loads after samples.js and review.js yet declares an earlier place: order, not load order, wins
    assert [t[1] for t in tabs] != [t[1] for t in sorted(tabs)] and len(tabs) == 9  # 8th: Details (issue 37)
    # trends' when() needs `genevals report --history`; conversations' a run with conversations (issue 38)
    tabs = [t for t in tabs if t[1] not in ("trends", "conversations")]
    o = Opened(browser, write_report(list(two_runs), tmp_path / "two.html"))
    try:
        page = o.page
        buttons = page.eval_on_selector_all(".tabs button", "bs => bs.map(b => [b.dataset.tab, b.textContent])")
        assert buttons == [[tab, title] for _, tab, title in sorted(tabs)]
        panels = page.eval_on_selector_all("#main > section.tab", "ss => ss.map(s => s.id)")
        assert panels == ["tab-" + tab for _, tab, _ in sorted(tabs)]
        for _, tab, _ in sorted(tabs):
            o.tab(tab)
            assert page.eval_on_selector_all("#main > section.tab", "ss => ss.filter(s => !s.hidden).map(s => s.id)") \
                == ["tab-" + tab]
        assert page.locator("#registry-errors").count() == 0 and o.errors == []
    finally:
        o.close()


def test_one_run_leaves_out_the_runs_tab_and_sections_keep_their_order(browser, two_runs, tmp_path):
    o = Opened(browser, write_report([two_runs[1]], tmp_path / "one.html"))
    try:
        tabs = o.page.eval_on_selector_all(".tabs button", "bs => bs.map(b => b.dataset.tab)")
        assert tabs == [tab for _, tab, _ in sorted(registered_tabs()) if tab not in ("runs", "trends", "conversations")]  # when() false
        # review.js's heading (order -20), decisions.js's reviewers card (-10), then review.js's own table (0)
        o.tab("review")
        parts = o.page.eval_on_selector_all("#tab-review > *", "ns => ns.map(n => n.id || n.tagName)")
        assert parts[:2] == ["H2", "review-status"] and o.page.locator("#tab-review > * #review-table").count() == 1
        assert o.errors == []
    finally:
        o.close()


def test_registering_a_taken_id_shows_an_error_and_keeps_the_first(browser, two_runs, tmp_path, monkeypatch):
    # review.js loaded twice registers its tab, its heading section and its hook a second time
    files = list(render.JS_FILES)
    files.insert(files.index("review.js") + 1, "review.js")
    monkeypatch.setattr(render, "JS_FILES", tuple(files))
    o = Opened(browser, write_report([two_runs[1]], tmp_path / "dup.html"))
    try:
        page = o.page
        note = page.inner_text("#registry-errors")
        for what in ("tab 'review'", "tab 'review' section 'review-heading'", "review-changed hook 'review-table'"):
            assert f"{what} is registered twice" in note
            assert any(f"{what} is registered twice" in e for e in o.errors if e.startswith("console error"))
        assert page.locator("#registry-errors").is_visible()
        assert page.locator(".tabs button[data-tab=review]").count() == 1
        o.tab("review")
        assert page.locator("#tab-review h2").count() == 1  # the first registration's heading, drawn once
    finally:
        o.close()
