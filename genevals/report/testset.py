"""The test set's page: ``report.html`` beside the ``card.json`` that ``genevals generate`` writes, drawn from the
card alone (one source of truth: the page shows the card's figures and computes none).

It is built as the run report is (:mod:`genevals.report.render`): the card embedded once as JSON that no text
can close (:func:`~genevals.report.render.embed_json`), one inline script (``testset.js``) that draws every view
with ``textContent``, never ``innerHTML``, under a Content-Security-Policy allowing only that script (by its
SHA-256 hash) and inline styles: nothing is fetched.

    write_testset_page(Path("my-set"))      # my-set/card.json -> my-set/report.html
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from genevals.atomic import write_whole
from genevals.generate.outputs import CARD
from genevals.report.render import embed_json, page

PAGE = "report.html"
CSS_FILES = ("report.css", "testset.css")


def is_test_set(folder: str | Path) -> bool:
    """Whether ``folder`` is a generated test set's (it holds card.json) rather than a run folder."""
    folder = Path(folder)
    try:
        return (folder / CARD).is_file() and not (folder / "results.jsonl").exists()
    except OSError:  # a folder it cannot look into is no set: the run folder's reader says why
        return False


def read_card(folder: str | Path) -> dict[str, Any]:
    """The card of ``folder``; ValueError naming the file (and the line of a JSON error) when it is no card."""
    path = Path(folder) / CARD
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the card: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
    if not isinstance(card, dict) or not isinstance(card.get("requested"), dict):
        raise ValueError(f"{path}: not a test set's card (no 'requested' object): written by genevals generate?")
    return card


def render_testset(card: Mapping[str, Any]) -> str:
    """The HTML page of ``card``. ValueError for a card holding NaN or infinity (JSON cannot carry them)."""
    try:
        data = embed_json(card)
    except ValueError as exc:
        raise ValueError(f"the card holds a number JSON cannot carry: {exc}") from None
    name = str(card.get("documents", "test set"))
    return page("testset.html", ("testset.js",), data, "genevals test set - " + name, name, css_files=CSS_FILES,
                img_src="'none'")


def write_testset_page(folder: str | Path, out: str | Path | None = None) -> Path:
    """``folder``'s card drawn into ``out`` (default ``folder/report.html``), written whole; its path."""
    out = Path(out) if out is not None else Path(folder) / PAGE
    write_whole(out, render_testset(read_card(folder)))
    return out
