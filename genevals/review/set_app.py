"""``genevals review SET_DIR``: a generated test set served item by item on the review server
(:class:`genevals.review.server.ReviewServer`, its routes, checks and token), so reviewers mark each item valid,
invalid (with a reason) or unsure.

Items are addressed by ``ref``, their place in the list (the queue's order with ``--queue N``, else the kept
items in file order, then the rejected ones): in a ``--blind`` review the list, the item and the state carry
nothing of the gates (neither statuses nor reasons, nor which file an item is in), so a reviewer's judgement is
their own. Each decision rewrites card.json's ``human_review`` (:mod:`genevals.review.set_review`) when a queue
is drawn. The page (:file:`set_page.js`) builds everything from the replies with ``textContent``: no item text
is ever parsed as HTML.
"""
from __future__ import annotations

import base64
import hashlib
import json
import secrets
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from genevals.output.terminal import say
from genevals.report.clean import utf16_offsets
from genevals.review import set_review
from genevals.review.requests import RequestError
from genevals.review.store import ReviewStore, StoreError
from genevals.review.testset import SetItem, load_set

_SCRIPT = Path(__file__).resolve().parent / "set_page.js"
_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 1.5rem; color: #1d2330; }
.layout { display: grid; grid-template-columns: 14rem 1fr; gap: 1.5rem; } .muted { color: #5b6475; }
#item-list button { background: none; border: 0; cursor: pointer; text-align: left; }
#item-list li.current button { font-weight: 700; } .box { white-space: pre-wrap; border: 1px solid #d5dae3;
padding: .6rem; border-radius: 4px; } mark { background: #ffe58a; } .buttons button.chosen { outline: 2px solid
#2456c9; } .gates li.passed { color: #18743a; } .gates li.failed { color: #9b1c1c; }
"""


@dataclass(frozen=True)
class SetServeConfig:
    """What the review server reads of its config (:class:`genevals.review.app.ServeConfig`'s names), for a set."""
    run_dir: Path
    host: str = "127.0.0.1"
    port: int = 8765
    allow_remote: bool = False
    request_timeout: float = 10.0
    verbose: bool = False
    blind: bool = False
    queue: int | None = None
    queue_seed: int = 12345
    #: the rejected items drawn beside the kept ones, as a share of ``queue``
    queue_rejected: float = 0.0


def render(token: str, folder: str, blind: bool, queue: bool) -> bytes:
    script = _SCRIPT.read_text(encoding="utf-8")
    if "</" in script or "<!--" in script:
        raise ValueError("set_page.js must not contain '</' or '<!--'")
    sha = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; script-src 'sha256-{sha}'; style-src 'unsafe-inline'; connect-src 'self'; "
           "img-src 'none'; base-uri 'none'; form-action 'none'")
    data = json.dumps({"review": {"mode": "set", "token": token, "set": folder, "blind": blind, "queue": queue}},
                      ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-'
            f'Security-Policy" content="{csp}">\n<meta name="referrer" content="no-referrer">\n<title>genevals - '
            f"test set review</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<h1>genevals review: generated "
            f'test set</h1>\n<p id="rate" class="muted"></p>\n<main id="main"></main>\n<script type="application/json" '
            f'id="genevals-data">{data}</script>\n<script>{script}</script>\n</body>\n</html>\n').encode("utf-8")


def _one(query: Mapping[str, list[str]], name: str) -> str:
    values = query.get(name) or [""]
    return values[0]


class SetApp:
    """The served set (the review server's app): the page, the items in order, the decisions, the rates."""

    def __init__(self, config: SetServeConfig) -> None:
        self.config = config
        self.run_dir = Path(config.run_dir)
        self.token = secrets.token_urlsafe(32)
        self._lock = threading.Lock()
        self.set = load_set(self.run_dir)
        with ReviewStore(self.run_dir) as store:  # create or migrate it now: a store that cannot be used fails here
            store.read()
            self.queue, self.queue_new = store.queue(), False
        if config.queue is not None:
            self.queue, self.queue_new = set_review.ensure_queue(self.set, config.queue, config.queue_seed,
                                                                 config.queue_rejected)
        items = self.set.by_key()
        if self.queue is not None:
            self.order = [items[(s, i)] for s, i, _, _ in self.queue.entries if (s, i) in items]
        else:
            self.order = list(self.set.kept) + ([] if config.blind else list(self.set.rejected))
        self.items_page = True
        self.item_page = self.page = render(self.token, str(self.run_dir), config.blind, self.queue is not None)

    def refresh(self) -> None:
        """The set is read once: a set generated again under the server makes its decisions stale, not wrong."""

    def _decisions(self) -> tuple[list[set_review.ItemDecision], int]:
        with ReviewStore(self.run_dir) as store:
            decisions = set_review.read_decisions(store)
            return decisions, store.skipped

    def _item(self, ref: Any) -> tuple[int, SetItem]:
        if type(ref) is str and ref.isascii() and ref.isdigit() and len(ref) < 10:
            ref = int(ref)
        if type(ref) is not int or not 0 <= ref < len(self.order):
            raise RequestError(HTTPStatus.NOT_FOUND, f"ref: no item {str(ref)[:20]!r} in this review")
        return ref, self.order[ref]

    def rates(self, decisions: list[set_review.ItemDecision]) -> dict[str, Any]:
        rates = set_review.estimate(self.set, self.queue, decisions)
        return {"kept": rates["kept"]} if self.config.blind and rates else rates

    def state(self) -> dict[str, Any]:
        decisions, skipped = self._decisions()
        return {"rates": self.rates(decisions), "stored": len(decisions), "skipped": skipped,
                "blind": self.config.blind, "queue": self.queue is not None}

    def items(self, query: Mapping[str, list[str]]) -> dict[str, Any]:
        """``GET /api/items?reviewer=NAME``: the items in order, each with that reviewer's current decision."""
        decisions, _ = self._decisions()
        mine = {(d.group, d.item): d.decision for d in set_review.current(decisions, self.set.by_key())
                if d.reviewer == _one(query, "reviewer").strip()}
        rows = [{"ref": n, "id": it.id, "type": it.type, "mine": mine.get((it.group, it.id)),
                 **({} if self.config.blind else {"group": it.group})} for n, it in enumerate(self.order)]
        return {"items": rows, **self.state()}

    def item(self, query: Mapping[str, list[str]]) -> dict[str, Any]:
        """``GET /api/item?ref=N&reviewer=NAME``: one item, its chunks with the evidence marked (UTF-16 offsets,
        as JavaScript slices), and, unless blind, its gates."""
        ref, it = self._item(_one(query, "ref"))
        contexts = []
        for chunk, text in it.contexts.items():
            to16 = utf16_offsets(text) if text is not None else None
            marks = [[to16(e.start), to16(e.end)] for e in it.evidence if e.chunk_id == chunk and to16] \
                if to16 else []
            contexts.append({"chunk_id": chunk, "text": text, "marks": sorted(marks),
                             "quotes": [e.quote for e in it.evidence if e.chunk_id == chunk]})
        decisions, _ = self._decisions()
        mine = [d for d in set_review.current(decisions, self.set.by_key())
                if d.reviewer == _one(query, "reviewer").strip() and (d.group, d.item) == (it.group, it.id)]
        out = {"ref": ref, "id": it.id, "question": it.question, "reference": it.reference,
               "type": it.type, "contexts": contexts,
               "mine": {"decision": mine[0].decision, "reason": mine[0].reason, "note": mine[0].note} if mine else None}
        if not self.config.blind:
            out.update(group=it.group, rejection=it.rejection,
                       gates=[{"gate": g, "status": s, "reason": it.gate_reasons.get(g, "")} for g, s in it.gates.items()])
        return out

    def decide(self, body: Any) -> dict[str, Any]:
        """``POST /api/decisions`` ``{reviewer, ref, decision, reason, note}``: store it; the new state."""
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "expected a JSON object")
        _, it = self._item(body.get("ref"))
        for name in ("reviewer", "decision"):
            if not isinstance(body.get(name), str):
                raise RequestError(HTTPStatus.BAD_REQUEST, f"{name}: expected text")
        if not isinstance(body.get("note", ""), str) or not isinstance(body.get("reason"), (str, type(None))):
            raise RequestError(HTTPStatus.BAD_REQUEST, "note, reason: expected text")
        try:
            decision = set_review.ItemDecision(
                reviewer=body["reviewer"].strip(), group=it.group, item=it.id, decision=body["decision"],
                digest=it.digest, reason=body.get("reason") or None, note=body.get("note", ""),
                blind=self.config.blind)
        except StoreError as exc:
            raise RequestError(HTTPStatus.BAD_REQUEST, str(exc)) from None
        with self._lock, ReviewStore(self.run_dir) as store:
            stored = set_review.add_decision(store, decision)
            decisions = set_review.read_decisions(store)
            if self.queue is not None:  # the card carries the rate as it stands after every decision
                rates = set_review.estimate(self.set, self.queue, decisions)
                set_review.write_card(self.set, set_review.card_section(rates, self.queue))
        return {"stored": {"id": stored.id, "time": stored.time}, **self.state()}


def serve(config: SetServeConfig, out=sys.stdout) -> None:
    """Serve the set until interrupted, printing the address first."""
    from genevals.review.server import ReviewServer, is_loopback

    app = SetApp(config)
    server = ReviewServer(app)  # type: ignore[arg-type]  (the server reads the app's names, which SetApp has)
    where = "loopback only: other machines cannot reach it" if is_loopback(config.host) else "REACHABLE FROM OTHER MACHINES"
    say(f"genevals review: serving the generated set {config.run_dir} at {server.url} ({where}); Ctrl-C stops it",
        out, flush=True)
    if app.queue is not None:
        q = app.queue
        say(f"genevals review: queue of {q.drawn.get('kept', 0)} of the {q.sizes.get('kept', 0)} kept items"
            + (f" and {q.drawn['rejected']} of the {q.sizes['rejected']} rejected ones" if q.drawn.get("rejected") else "")
            + f" ({'drawn now' if app.queue_new else 'continued from review.sqlite'}, seed {q.seed})"
            + ("; blind" if config.blind else ""), out, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
