r"""The review of a generated test set: reviewers' decisions on its items, the queue, and the valid-item rate.

* **Decisions** (:class:`ItemDecision`) go in the set folder's ``review.sqlite`` (the review store,
  :mod:`genevals.review.store`; table ``item_decisions`` since schema version 5), append-only like the claim
  decisions: a reviewer's latest row on an item is current, ``withdrawn`` takes it back, and a decision whose
  item's question or reference changed since (the set was generated again) is stale and left out.
* **Queue** (``--queue N``): a simple random sample without replacement of :math:`n = \min(N, N_k)` of the
  :math:`N_k` kept items (``numpy.random.default_rng(seed)``), and, with ``--queue-rejected S``, of
  :math:`\mathrm{round}(S n)` of the rejected ones, a stratum of its own, reported apart; both in one shuffled
  order. Stored once in the store's queue tables (a second draw would void the first's probabilities).
* **Verdict** of an item: the strict majority of its reviewers' ``valid`` / ``invalid`` decisions; a tie, or
  only ``unsure``, is *unsure* (counted, left out of the rate).
* **Rate** in a stratum: :math:`\hat p = k / m` over the :math:`m` queued items with a verdict, :math:`k` of
  them valid. Under simple random sampling :math:`\hat p` is unbiased for the share of valid items among the
  stratum's items a reviewer can decide. The 95% interval is Wilson's score interval (Wilson 1927):

  .. math:: \frac{\hat p + z^2/2m}{1 + z^2/m} \pm \frac{z}{1 + z^2/m}\sqrt{\frac{\hat p(1-\hat p)}{m}
            + \frac{z^2}{4m^2}}, \quad z = \Phi^{-1}(0.975)

  (no finite-population correction: conservative when the queue is a large share of the set).
"""
from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from genevals.generate.outputs import CARD, write_aside
from genevals.review.queue import Entry
from genevals.review.records import ITEM_DECISIONS, ITEM_REASONS, StoreError, _check_reviewer_and_note
from genevals.review.store import Queue, ReviewStore
from genevals.review.testset import KEPT, REJECTED_ITEMS, GeneratedSet, SetItem

Z95 = 1.959963984540054


@dataclass(frozen=True)
class ItemDecision:
    """One reviewer's decision on a generated item (``group``: kept or rejected; ``item``: its id)."""
    reviewer: str
    group: str
    item: str
    decision: str
    digest: str
    reason: str | None = None
    note: str = ""
    blind: bool = False
    time: str = ""
    id: int | None = None

    def __post_init__(self) -> None:
        _check_reviewer_and_note(self.reviewer, self.note)
        if self.decision not in ITEM_DECISIONS:
            raise StoreError(f"decision: one of {', '.join(ITEM_DECISIONS)}, not {str(self.decision)[:40]!r}")
        if (self.decision == "invalid") != (self.reason is not None):
            raise StoreError("reason: an invalid item needs one, and only an invalid item has one")
        if self.reason is not None and self.reason not in ITEM_REASONS:
            raise StoreError(f"reason: one of {', '.join(ITEM_REASONS)}, not {str(self.reason)[:40]!r}")
        if self.reason == "other" and not self.note.strip():
            raise StoreError("note: the reason 'other' needs a note saying what is wrong")


def add_decision(store: ReviewStore, d: ItemDecision) -> ItemDecision:
    """Store ``d`` in one transaction; it with its id and UTC time."""
    when = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    row = store.insert("item_decisions", reviewer=d.reviewer, time=when, system=d.group, sample_id=d.item,
                       digest=d.digest, decision=d.decision, reason=d.reason, note=d.note, blind=int(d.blind))
    return ItemDecision(**{**asdict(d), "time": when, "id": row})


def _row(row) -> ItemDecision:
    values = {k: row[k] for k in ("reviewer", "time", "system", "sample_id", "digest", "decision", "note")}
    if not all(isinstance(v, str) for v in values.values()) or type(row["id"]) is not int \
            or row["blind"] not in (0, 1) or not (row["reason"] is None or isinstance(row["reason"], str)):
        raise StoreError("a row of the wrong types")
    return ItemDecision(reviewer=values["reviewer"], group=values["system"], item=values["sample_id"],
                        decision=values["decision"], digest=values["digest"], reason=row["reason"],
                        note=values["note"], blind=bool(row["blind"]), time=values["time"], id=row["id"])


def read_decisions(store: ReviewStore) -> list[ItemDecision]:
    """Every item decision that can be read, oldest first (the rest skipped and counted in ``store.skipped``)."""
    return store.rows("SELECT * FROM item_decisions ORDER BY id", _row)


def current(decisions: Iterable[ItemDecision], items: Mapping[tuple[str, str], SetItem]) -> list[ItemDecision]:
    """Each reviewer's latest decision per item, withdrawn and stale ones (the item gone or changed) left out."""
    latest: dict[tuple[str, str, str], ItemDecision] = {}
    for d in decisions:
        latest[(d.reviewer, d.group, d.item)] = d
    return [d for d in latest.values() if d.decision != "withdrawn"
            and (item := items.get((d.group, d.item))) is not None and item.digest == d.digest]


def verdict(decisions: Iterable[ItemDecision]) -> str | None:
    """``valid`` / ``invalid`` by strict majority, ``unsure`` for a tie or only unsure, None for none."""
    votes = [d.decision for d in decisions]
    if not votes:
        return None
    valid, invalid = votes.count("valid"), votes.count("invalid")
    return "valid" if valid > invalid else "invalid" if invalid > valid else "unsure"


def wilson(k: int, m: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``k`` successes in ``m`` trials (module docstring); m > 0."""
    p, z2 = k / m, z * z
    centre, half = (p + z2 / (2 * m)) / (1 + z2 / m), z / (1 + z2 / m) * math.sqrt(p * (1 - p) / m + z2 / (4 * m * m))
    return max(0.0, centre - half), min(1.0, centre + half)


def draw(gen: GeneratedSet, n: int, seed: int, rejected_share: float = 0.0) -> list[Entry]:
    """The queue: a seeded uniform sample of the kept items and (``rejected_share``) of the rejected ones."""
    rng = np.random.default_rng(seed)
    picked: list[tuple[str, str, float, int, int]] = []
    for group, items, k in ((KEPT, gen.kept, min(n, len(gen.kept))),
                            (REJECTED_ITEMS, gen.rejected, min(round(rejected_share * n), len(gen.rejected)))):
        for i in rng.permutation(len(items))[:k]:
            picked.append((group, items[int(i)].id, k / len(items), len(items), k))
    order = rng.permutation(len(picked))  # one order: a reviewer cannot tell a rejected item by its place
    return [Entry(pos, *(p := picked[int(i)])[:2], p[0], *p[2:]) for pos, i in enumerate(order)]


def ensure_queue(gen: GeneratedSet, n: int, seed: int, rejected_share: float) -> tuple[Queue, bool]:
    """The set's queue: the one its store holds, or a new draw stored there; StoreError for another size."""
    with ReviewStore(gen.folder) as store:
        held = store.queue()
        if held is None:
            entries = draw(gen, n, seed, rejected_share)
            if not entries:
                raise StoreError(f"{gen.folder}: no kept item to queue")
            store.set_queue(entries, {KEPT: len(gen.kept), REJECTED_ITEMS: len(gen.rejected)}, seed)
            return store.queue(), True
    if held.drawn.get(KEPT, 0) != min(n, len(gen.kept)):
        raise StoreError(f"{store.path}: already holds a review queue of {held.drawn.get(KEPT, 0)} kept items (seed "
                         f"{held.seed}); serve it with --queue {held.drawn.get(KEPT, 0)}, or move the file aside to "
                         "draw another (its decisions stay in it)")
    return held, False


def estimate(gen: GeneratedSet, queue: Queue | None, decisions: list[ItemDecision]) -> dict[str, Any]:
    """The valid-item rate of each stratum over its queued items (module docstring), JSON-ready; an empty dict
    without a queue (items picked by hand measure nothing about the set)."""
    if queue is None:
        return {}
    items = gen.by_key()
    by_item: dict[tuple[str, str], list[ItemDecision]] = {}
    for d in current(decisions, items):
        by_item.setdefault((d.group, d.item), []).append(d)
    out: dict[str, Any] = {}
    for group in (KEPT, REJECTED_ITEMS):
        keys = [(s, i) for s, i, _, _ in queue.entries if s == group]
        if group == REJECTED_ITEMS and not keys:
            continue
        verdicts = Counter(verdict(by_item.get(k, [])) for k in keys if k in items)
        m = verdicts["valid"] + verdicts["invalid"]
        reasons = Counter(d.reason for k in keys for d in by_item.get(k, []) if d.reason)
        out[group] = {"rate": verdicts["valid"] / m if m else None,
                      "ci95": list(wilson(verdicts["valid"], m)) if m else None, "n": m,
                      "valid": verdicts["valid"], "invalid": verdicts["invalid"], "unsure": verdicts["unsure"],
                      "undecided": verdicts[None], "gone": sum(1 for k in keys if k not in items),
                      "queue": len(keys), "items": queue.sizes.get(group, 0), "reasons": dict(sorted(reasons.items()))}
    return out


def card_section(rates: Mapping[str, Any], queue: Queue) -> dict[str, Any]:
    """The card's ``human_review``: the kept items' rate, CI, n, unsure, queue size, seed and date; the rejected
    items' figures apart."""
    kept = rates[KEPT]
    status = {"status": "ok"} if kept["n"] else \
        {"status": "not_measured", "reason": "no queued kept item has a valid or invalid verdict yet"}
    section = {**status, "valid_item_rate": kept["rate"], "ci95": kept["ci95"], "interval": "Wilson score, 95%",
               "n": kept["n"], "valid": kept["valid"], "invalid": kept["invalid"], "unsure": kept["unsure"],
               "undecided": kept["undecided"], "queue_size": kept["queue"], "items": kept["items"],
               "seed": queue.seed, "date": datetime.now(timezone.utc).date().isoformat(),
               "invalid_reasons": kept["reasons"],
               "estimator": "share valid among the queued kept items with a verdict (a simple random sample: "
                            "unbiased for the set); unsure ones left out and counted"}
    if REJECTED_ITEMS in rates:
        section["rejected"] = {k: rates[REJECTED_ITEMS][k] for k in ("rate", "ci95", "n", "unsure", "queue", "items")}
    return section


def write_card(gen: GeneratedSet, section: Mapping[str, Any]) -> None:
    """card.json again with its ``human_review`` section replaced, written aside and renamed into place."""
    path = gen.folder / CARD
    card = json.loads(path.read_text(encoding="utf-8"))
    card["human_review"] = dict(section)
    write_aside(path, json.dumps(card, ensure_ascii=False, indent=2) + "\n")
    redraw_page(gen)


def redraw_page(gen: GeneratedSet) -> None:
    """The set's report.html drawn again from the card just written, when the set has one (a set made before
    the page existed gets none: ``genevals report SET_DIR`` draws it)."""
    from genevals.report.testset import PAGE, write_testset_page

    if (gen.folder / PAGE).exists():
        write_testset_page(gen.folder)


def export_rows(gen: GeneratedSet, queue: Queue | None, decisions: list[ItemDecision]) -> list[dict[str, Any]]:
    """``genevals review export SET_DIR``'s rows: each decided item with its verdict, whether (and with what
    inclusion probability) the queue drew it, and each reviewer's current decision."""
    items = gen.by_key()
    drawn = {(s, i): p for s, i, _, p in queue.entries} if queue is not None else {}
    by_item: dict[tuple[str, str], list[ItemDecision]] = {}
    for d in current(decisions, items):
        by_item.setdefault((d.group, d.item), []).append(d)
    rows = []
    for key, ds in by_item.items():
        item = items[key]
        rows.append({"id": item.id, "set": item.group, "type": item.type, "question": item.question,
                     "reference": item.reference, "verdict": verdict(ds), "queued": key in drawn,
                     "inclusion_probability": drawn.get(key),
                     "decisions": [{"reviewer": d.reviewer, "decision": d.decision, "reason": d.reason,
                                    "note": d.note, "blind": d.blind, "time": d.time} for d in ds]})
    return rows
