"""The item-by-item review page (``genevals review --blind`` / ``--queue N``): one self-contained HTML page whose
script (:file:`items.js`, after the selection helper it shares with the report: :data:`SCRIPTS`) fetches the
answers from the review server (:mod:`genevals.review.items`).

It embeds only the server's token and the review's mode: never a verdict, so nothing on or behind a blind page
shows the judge's labels before ``GET /api/item`` sends them. Same Content-Security-Policy as the report's:
only this script (by its SHA-256), inline styles, and fetches to the server itself.
"""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 1.5rem; color: #1d2330; }
.muted { color: #5b6475; } .warning { color: #9b1c1c; }
.layout { display: grid; grid-template-columns: 16rem 1fr; gap: 1.5rem; }
#item-list { padding-left: 1.4rem; } #item-list li.current button { font-weight: 700; }
#item-list button { background: none; border: 0; cursor: pointer; text-align: left; padding: .1rem 0; }
.answer { white-space: pre-wrap; border: 1px solid #d5dae3; padding: .7rem; border-radius: 4px; }
.claim-span { text-decoration: underline dotted; }
.claim { border-top: 1px solid #e3e6ec; padding: .6rem 0; }
.buttons button { margin: .3rem .4rem .3rem 0; } .buttons button.chosen { outline: 2px solid #2456c9; }
.revealed { margin-top: .3rem; background: #f4f6fa; padding: .4rem; }
.v-supported { color: #18743a; } .v-contradicted { color: #9b1c1c; } .v-unverifiable { color: #8a5a00; }
.contexts li { white-space: pre-wrap; margin-bottom: .5rem; }
"""


#: The page's script, concatenated: the selection helper it shares with the report's review panel (a file of
#: that one helper: no report script, which would carry the judge's verdicts, is loaded here), then the page's own.
SCRIPTS = (Path(__file__).resolve().parent.parent / "report" / "selection.js",
           Path(__file__).resolve().parent / "items.js")


def _embed(data: dict) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(token: str, run: str, blind: bool, queue: bool) -> str:
    """The page for a review of ``run`` (its token, whether it is blind and follows a queue)."""
    script = "\n".join(path.read_text(encoding="utf-8") for path in SCRIPTS)
    if "</" in script or "<!--" in script:
        raise ValueError("selection.js and items.js must not contain '</' or '<!--'")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; connect-src 'self'; "
           "img-src 'none'; base-uri 'none'; form-action 'none'")
    data = _embed({"review": {"mode": "items", "token": token, "run": run, "blind": blind, "queue": queue}})
    title = ("Blind review" if blind else "Review queue").replace("<", "")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n<meta name="referrer" content="no-referrer">\n'
            f"<title>genevals - {title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<h1>genevals review: {title.lower()}</h1>\n<main id=\"main\"></main>\n"
            f'<script type="application/json" id="genevals-data">{data}</script>\n<script>{script}</script>\n'
            "</body>\n</html>\n")
