"""The report page: one self-contained HTML file holding the data of :func:`genevals.report.model.build_data`.

Everything the page needs is embedded once as JSON in a ``<script type="application/json">`` block
(:func:`embed_json`: no ``<``, ``>`` or ``&`` survive, so no text can close the element); the page's own
JavaScript (the ``*.js`` files here, concatenated into one inline script) builds every view from it with
``textContent``/``createElement``, never ``innerHTML`` with data, under a Content-Security-Policy that allows
only that script (by its SHA-256 hash), inline styles and ``data:`` images: nothing is ever fetched.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals.output import thresholds
from genevals.report import bands
from genevals.report.model import MAX_DETAILED_SAMPLES, MAX_TABLE_SAMPLES, build_data

HERE = Path(__file__).resolve().parent
#: The JavaScript parts, concatenated in this order into one inline script. What a tab shows does not depend on
#: this order: each script registers its tabs, sections and hooks with core.js, which draws them by their own
#: declared order and refuses a second registration of an id (tests/report/test_tabs_registry.py).
JS_FILES = ("core.js", "overview.js", "leaderboard.js", "details.js", "cards.js", "charts.js", "samples.js",
            "review.js", "rag.js", "repeats.js", "jury.js", "citations.js", "runs.js", "history.js", "selection.js", "decisions.js", "conversations.js", "main.js", "links.js",
            "conversations_link.js")
#: the page's style sheets, concatenated in this order
CSS_FILES = ("report.css", "conversations.css")


def embed_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no '<' (so no '</script' or '<!--'), '>' or '&'."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _asset(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


#: the page's slots (``{{ name }}`` in template.html): the first four are trusted markup, inserted as they are;
#: the others are text, escaped as jinja2's autoescape escapes it (markupsafe: & < > " ')
_MARKUP_SLOTS = ("csp", "css", "script", "data")
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})
_SLOT = re.compile(r"\{\{ (\w+) \}\}")


def _fill(template: str, slots: Mapping[str, str]) -> str:
    """``template`` with each ``{{ name }}`` replaced, in one pass (a value that itself holds ``{{ x }}`` is not
    read again): markup slots as they are, text slots escaped. The same page jinja2 rendered (its trailing
    newline dropped, as jinja2 drops it), without importing jinja2 (~30 ms of every run's start);
    ``tests/report/test_render.py`` checks the two agree."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        value = slots[name]
        return value if name in _MARKUP_SLOTS else value.translate(_ESCAPES)

    return _SLOT.sub(one, template[:-1] if template.endswith("\n") else template)


def render(data: Mapping[str, Any], connect_src: str = "'none'") -> str:
    """The HTML page for ``data``; ``connect_src`` is what the page may fetch from (the review server serves it
    with ``'self'``: the static file fetches nothing)."""
    names = [run["name"] for run in data["runs"]]
    return page("template.html", JS_FILES, embed_json(data),
                "genevals report - " + ", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
                " vs ".join(names) if len(names) > 1 else names[0], connect_src=connect_src)


def page(template: str, js_files: Sequence[str], data: str, title: str, subtitle: str, *,
         css_files: Sequence[str] = CSS_FILES, connect_src: str = "'none'", img_src: str = "data:") -> str:
    """A self-contained page: ``template`` (an asset with the slots of template.html) filled with the scripts
    ``js_files`` in one strict-mode function, the styles of ``css_files``, ``data`` (JSON made safe by
    :func:`embed_json`) and its title; its Content-Security-Policy allows that one script (by its hash), inline
    styles, ``img_src`` images and ``connect_src`` fetches, nothing else."""
    script = "(function () {\n\"use strict\";\n" + "\n".join(_asset(f) for f in js_files) + "\n})();\n"
    css = "\n".join(_asset(f) for f in css_files)
    if "</" in script or "<!--" in script or "</" in css:
        raise ValueError("page assets must not contain '</' or '<!--'")
    script_hash = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = ("default-src 'none'; script-src 'sha256-" + script_hash + "'; style-src 'unsafe-inline'; "
           f"img-src {img_src}; font-src 'none'; connect-src {connect_src}; base-uri 'none'; form-action 'none'")
    return _fill(_asset(template), {"csp": csp, "css": css, "script": script, "data": data, "title": title,
                                    "subtitle": subtitle})


def write_page(data: Mapping[str, Any], out_path: str | Path) -> Path:
    """Render ``data`` to ``out_path`` (written beside it first, then moved into place) and return the path."""
    out_path = Path(out_path)
    html = render(data)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(out_path)
    return out_path


def write_report(run_dirs: Sequence[str | Path], out_path: str | Path, thresholds: Any = None,
                 max_detailed_samples: int = MAX_DETAILED_SAMPLES,
                 max_table_samples: int | None = MAX_TABLE_SAMPLES,
                 min_coverage: float = bands.DEFAULT_MIN_COVERAGE, all_pairs: bool = False) -> Path:
    """Write one self-contained HTML report for ``run_dirs`` to ``out_path`` and return its path.

    The page embeds the texts of at most ``max_detailed_samples`` samples and the values of at most
    ``max_table_samples``; summaries, histograms and comparisons cover every sample (see
    :func:`~genevals.report.model.build_data`; ``all_pairs``: compare every pair of systems, not only those of
    one run and the same system across runs).
    """
    data = build_data([Path(d) for d in run_dirs], thresholds, max_detailed_samples, max_table_samples,
                      min_coverage=min_coverage, all_pairs=all_pairs)
    return write_page(data, out_path)


def threshold_failures(data: Mapping[str, Any]) -> list[str]:
    """Every (system, metric) that misses a threshold in ``data`` (from ``build_data``): a mean on the wrong
    side of its limit, no scored sample, or a metric no run computed."""
    given = list(thresholds.normalise(data["thresholds"]).values())
    return thresholds.failures(given, {system["label"]: system["summary"] for system in data["systems"]})


def unshared_ids_notes(data: Mapping[str, Any]) -> list[str]:
    """A line naming the pairs of systems in ``data`` (from ``build_data``) that share no question id, so that
    nothing of theirs is compared (the Compare tab says the same), and what usually causes it; [] if none."""
    labels = [system["label"] for system in data["systems"]]
    pairs = [f"'{labels[a]}' and '{labels[b]}'" for a, b in data.get("unshared_ids") or ()]
    if not pairs:
        return []
    return [f"systems {', '.join(pairs)} share no question id, so they are not compared. A row without an id "
            "gets its row number as id: if each row holds its question, run again with --map id=question"]
