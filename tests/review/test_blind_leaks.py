"""A blind review lets nothing derived from the judge's verdicts out before the reveal (issue 52, point 11): real
review servers on 127.0.0.1 in blind mode, over two copies of one run. A reviewer decides flagged claims on one and
supported claims on the other; every reply (``POST /api/decisions``, ``GET /api/state``, ``GET /api/items``) is
the same on both, but for the names of what was decided. With a review queue, the answers come in the same
order and with the same fields whatever the judge said of them (the queue's own order runs stratum by stratum,
flagged first)."""
from __future__ import annotations

import json
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from support.runs import add_judge, make_run

from genevals.registry import declaration_of
from genevals.review.app import ReviewApp, ServeConfig
from genevals.review.claims import load_samples
from genevals.review.server import ReviewServer

#: what names the claim decided, which differs between the two servers by design
NAMING = ("time", "system", "sample_id", "claim", "span", "text")


class Served:
    """``genevals review RUN --blind [--queue N]``'s server, on 127.0.0.1 and a free port, in a thread."""

    def __init__(self, run: Path, queue: int | None = None) -> None:
        self.app = ReviewApp(ServeConfig(run_dir=run, port=0, blind=True, queue=queue), declaration_of)
        self.server = ReviewServer(self.app)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.server.url.rstrip("/") + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Genevals-Token": self.app.token})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)


def unnamed(reply: dict) -> dict:
    """A reply without the names of the claims decided."""
    return {**reply, "decisions": [{k: v for k, v in d.items() if k not in NAMING} for d in reply["decisions"]]}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    run = add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))
    claims = [(s.system, s.id, c.index, c.flagged) for s in load_samples(run).values() for c in s.claims]
    flagged = [c[:3] for c in claims if c[3]]
    supported = [c[:3] for c in claims if not c[3]]
    assert len(flagged) >= 4 and len(supported) >= 4
    return run, flagged[:4], supported[:4]


def test_replies_are_the_same_whether_the_claim_decided_was_flagged_or_not(judged, tmp_path):
    run, flagged, supported = judged
    one, other = (Served(shutil.copytree(run, tmp_path / name)) for name in ("flagged", "supported"))
    try:
        assert unnamed(one.call("GET", "/api/state")[1]) == unnamed(other.call("GET", "/api/state")[1])
        for n, (f, s) in enumerate(zip(flagged, supported)):
            decision = ("confirmed", "false_alarm", "unsure", "withdrawn")[n]
            replies = []
            for server, (system, sample_id, claim) in ((one, f), (other, s)):
                status, reply = server.call("POST", "/api/decisions", {
                    "reviewer": "ann", "system": system, "sample_id": sample_id, "claim": claim,
                    "decision": decision})
                assert status == 201, reply
                replies.append(reply)
            assert unnamed(replies[0]) == unnamed(replies[1]), f"decision {n + 1}"
            assert unnamed(one.call("GET", "/api/state")[1]) == unnamed(other.call("GET", "/api/state")[1])
            assert "flagged" not in json.dumps(replies[0]) and "precision" not in replies[0]
        listings = [server.call("GET", "/api/items?reviewer=ann")[1] for server in (one, other)]
        # the same answers, in the same order, with the same fields (which are done names what was decided)
        assert [{**i, "done": None} for i in listings[0]["items"]] == [{**i, "done": None} for i in listings[1]["items"]]
    finally:
        one.stop()
        other.stop()


def flip_verdicts(run: Path) -> None:
    """results.jsonl as a judge that said the opposite of every verdict would have written it."""
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    flip = {"supported": "contradicted", "contradicted": "supported", "unverifiable": "supported"}
    for row in rows:
        details = (row.get("metrics", {}).get("faithfulness") or {}).get("details") or {}
        for verdict in details.get("verdicts") or []:
            verdict["label"] = flip.get(verdict["label"], verdict["label"])
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_a_blind_queue_comes_in_an_order_the_verdicts_do_not_set(judged, tmp_path):
    run, _, _ = judged
    as_judged = shutil.copytree(run, tmp_path / "as-judged")
    flipped = shutil.copytree(run, tmp_path / "flipped")
    flip_verdicts(flipped)
    everything = sum(1 for s in load_samples(run).values() if s.claims)  # every answer drawn: the same set
    servers = [Served(as_judged, queue=everything), Served(flipped, queue=everything)]
    try:
        listings = [server.call("GET", "/api/items?reviewer=ann")[1] for server in servers]
    finally:
        for server in servers:
            server.stop()
    assert listings[0] == listings[1]
    assert len(listings[0]["items"]) == everything
    assert not any({"stratum", "position"} & set(item) for item in listings[0]["items"])
