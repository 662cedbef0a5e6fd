"""The served run behind ``genevals review RUN_DIR`` (:mod:`genevals.review.server`): its report page and
samples, rebuilt when results.jsonl changes; its decisions; and, in a blind or queued review, the
item-by-item page and its answers (:mod:`genevals.review.items`)."""
from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from http import HTTPStatus
from pathlib import Path
from typing import Any

from genevals.output import runfolder
from genevals.report.model import build_data
from genevals.report.render import render
from genevals.review.claims import ReviewSample, load_samples
from genevals.review.items import blind_now, stale_count
from genevals.review.requests import RequestError, decision_of
from genevals.review.store import CitationDecision, ReviewStore, StoreError
from genevals.review.tally import blind_tally, tally


@dataclass(frozen=True)
class ServeConfig:
    run_dir: Path
    host: str = "127.0.0.1"
    #: 0 picks a free port
    port: int = 8765
    #: needed to bind anything but a loopback address
    allow_remote: bool = False
    #: embed the texts of at most this many samples (the report's --max-samples)
    max_samples: int | None = None
    #: seconds a client has to send a whole request (and to take each part of a response)
    request_timeout: float = 10.0
    #: log every request on stderr
    verbose: bool = False
    #: serve the item-by-item page without the judge's verdicts until each answer is decided (--blind)
    blind: bool = False
    #: draw (or continue) a review queue of this many answers (--queue N), with this seed
    queue: int | None = None
    queue_seed: int = 12345


class ReviewApp:
    """The served run: its page and samples (rebuilt when results.jsonl changes) and its decisions."""

    def __init__(self, config: ServeConfig, declared: Callable[[str], Mapping[str, Any] | None] | None = None):
        self.config = config
        self.run_dir = Path(config.run_dir)
        self.token = secrets.token_urlsafe(32)
        self._declared = declared
        self._lock = threading.Lock()
        self._version: tuple[int, int] | None = None
        self.samples: dict[tuple[str, str], ReviewSample] = {}
        self.page = b""
        with ReviewStore(self.run_dir) as store:  # create it and read it through: a store that cannot be used
            store.read()                          # (its queue too) fails now, naming the file, not at a request
        if config.queue is not None:
            from genevals.review.queue import ensure_queue

            self.queue, self.queue_new = ensure_queue(self.run_dir, config.queue, config.queue_seed)
        else:
            with ReviewStore(self.run_dir) as store:
                self.queue, self.queue_new = store.queue(), False
        #: the item-by-item page replaces the report at / (the report stays at /report unless blind)
        self.items_page = config.blind or self.queue is not None
        self.refresh()
        if self.queue is not None and self.queue.entries and self.stale == len(self.queue.entries):
            raise StoreError(f"{self.run_dir / 'review.sqlite'}: none of the {len(self.queue.entries)} answers of "
                             f"its review queue is in {self.run_dir / runfolder.RESULTS_FILE} any more (scored "
                             "again?); move review.sqlite aside to draw a new queue (its decisions stay in it)")

    @property
    def stale(self) -> int:
        """How many of the queue's answers the run no longer has (:func:`genevals.review.items.stale_count`)."""
        return stale_count(self.samples, self.queue)

    def refresh(self) -> None:
        """Rebuild the page and the sample index when results.jsonl changed (a re-run)."""
        stat = (self.run_dir / runfolder.RESULTS_FILE).stat()
        version = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if version == self._version:
                return
            kwargs: dict[str, Any] = {"declared": self._declared}
            if self.config.max_samples is not None:
                kwargs["max_detailed_samples"] = self.config.max_samples
            data = build_data([self.run_dir], **kwargs)
            data["review"] = {"mode": "live", "token": self.token, "run": str(self.run_dir)}
            self.page = b"" if self.config.blind else render(data, connect_src="'self'").encode("utf-8")
            self.samples = load_samples(self.run_dir)
            if self.items_page:
                from genevals.review import page
                from genevals.review.items import verdicts_by_answer

                self.verdicts = verdicts_by_answer(self.run_dir, self.samples)
                self.item_page = page.render(self.token, str(self.run_dir), self.config.blind,
                                             self.queue is not None).encode("utf-8")
            self._version = version

    def state(self) -> dict[str, Any]:
        with ReviewStore(self.run_dir) as store:
            return self._tally(store)

    def _tally(self, store: ReviewStore) -> dict[str, Any]:
        """The state a reply carries; in a blind review, nothing derived from the judge's verdicts."""
        stored = store.read(queue=False)
        count = blind_tally if self.config.blind else tally
        return {**count(stored.decisions, self.samples, stored.citations), "skipped": stored.skipped}

    def decide(self, body: Any) -> dict[str, Any]:
        """Store one decision from a request body and return the new state; RequestError when it is bad."""
        try:
            decision = decision_of(body, self.samples)
        except StoreError as exc:
            raise RequestError(HTTPStatus.BAD_REQUEST, str(exc)) from None
        with ReviewStore(self.run_dir) as store:
            if isinstance(decision, CitationDecision):
                if self.config.blind:  # the citation panel shows the check's verdict: not on a blind page
                    raise RequestError(HTTPStatus.FORBIDDEN, "blind review: citation verdicts are reviewed "
                                       "without --blind")
                store.add_citation(decision)
            else:
                if self.config.blind and blind_now(store.all(), decision, self.samples):
                    decision = replace(decision, blind=True)
                store.add(decision)
            return self._tally(store)

    def items(self, query: Mapping[str, list[str]]) -> dict[str, Any]:
        """``GET /api/items?reviewer=NAME``: the answers to review in order (:func:`genevals.review.items.listing`)."""
        from genevals.review.items import listing

        with ReviewStore(self.run_dir) as store:
            decisions = store.all()
        return listing(self.samples, self.queue, decisions, _one(query, "reviewer"), self.config.blind)

    def item(self, query: Mapping[str, list[str]]) -> dict[str, Any]:
        """``GET /api/item?system=S&sample_id=ID&reviewer=NAME``: one answer, its verdicts only when allowed."""
        from genevals.review.items import item

        key = (_one(query, "system"), _one(query, "sample_id"))
        sample = self.samples.get(key)
        if sample is None or not sample.claims:
            raise RequestError(HTTPStatus.NOT_FOUND, "system, sample_id: no answer with claims by that id")
        raw, value = self.verdicts.get(key, ({}, None))
        with ReviewStore(self.run_dir) as store:
            decisions = store.all()
        return item(sample, raw, value, decisions, _one(query, "reviewer").strip(), self.config.blind, self.samples)


def _one(query: Mapping[str, list[str]], name: str) -> str:
    """A query parameter's value ("" when absent)."""
    values = query.get(name) or [""]
    return values[0]
