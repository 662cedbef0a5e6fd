"""The LLM citation judge end to end over HTTP: against the fault-injecting server (requests per answer counted
on the server, retries, statuses, the repair re-ask, the cache) and against llama.cpp's server with the packaged
model, through a counting proxy (at most 2 requests per answer)."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from support.citation_judge import citation_judge
from support.fault_server import FaultServer
from support.llama_server import llama_server  # noqa: F401  (fixture)

from genevals import types
from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from genevals.types import Context, Sample

CONTEXTS = (Context("The ferry crossing takes 55 minutes.", 1, "ferry#1"),
            Context("Bins are emptied on Mondays.", 2, "bins#1"),
            Context("The library closes at 8 pm on Thursdays.", 3, "lib#1"))


def row(i: int, answer: str) -> dict:
    return Sample(f"s{i}", answer, "What happens on the island?", CONTEXTS).to_dict()


CLEAN = [row(0, "The ferry crossing takes 55 minutes [1]. Bins are emptied on Mondays [1]."),
         row(1, "The ferry crossing takes 55 minutes; bins are emptied on Mondays [1, 2]. "
                "The library closes at 8 pm on Thursdays [2, 3]. It is open most days [3].")]


def test_fault_server_one_call_per_answer_statuses_repair_and_cache(tmp_path):
    rows = CLEAN + [row(2, "The ferry crossing takes 55 minutes FAULT500 [1]."),
                    row(3, "The ferry crossing takes 55 minutes FAULTMALFORMED [1]."),
                    row(4, "The ferry crossing takes 55 minutes FAULT429 [1]."),
                    row(5, "The ferry crossing takes 55 minutes [9]."), row(6, "The ferry crossing takes 55 minutes.")]
    with FaultServer(replies=citation_judge) as server:
        judge = JudgeConfig(base_url=server.base_url, model="fault", api_key="sk-test", max_retries=2,
                            backoff_base=0.01, backoff_max=0.05, cache_dir=str(tmp_path / "cache"), timeout=10)
        results = evaluate(rows, ["citations"], judge=judge, out_dir=tmp_path / "run")
        by_id = {r.sample.id: r.metrics for r in results.samples}
        # one batched call per clean answer, whatever its sentences and citations (4 sentences, 5 citations in s1)
        assert server.counts["clean"] == 2
        first = by_id["s0"]
        assert (first["citation_recall"].value, first["citation_precision"].value, first["miscited"].value) == (
            0.5, 0.5, 0.5)
        assert [s["verdict"] for s in first["citation_recall"].details["sentences"]] == ["supported", "miscited"]
        second = by_id["s1"]
        # S1 needs [1] and [2] together; S2 cites [2] (irrelevant, not needed) and [3]; S3 is unsupported anywhere
        assert second["citation_recall"].value == pytest.approx(2 / 3)
        assert second["citation_precision"].value == pytest.approx(3 / 5)
        assert second["miscited"].value == 0.0
        quoted = second["citation_recall"].details["sentences"][1]["citations"][1]
        assert quoted["relevant"] and CONTEXTS[2].text[slice(*quoted["quote_span"])] == quoted["quote"]
        # 500 on every request: judge_error after 1 + 2 retries, the transcript kept
        assert server.counts["FAULT500"] == 3
        failed = by_id["s2"]["citation_recall"]
        assert failed.status == types.JUDGE_ERROR and "3 request(s)" in failed.reason and failed.details["transcript"]
        # an unreadable reply: one repair re-ask, then parse_error: 2 requests, never more
        assert server.counts["FAULTMALFORMED"] == 2
        assert by_id["s3"]["citation_recall"].status == types.PARSE_ERROR
        assert by_id["s3"]["citation_recall"].details["judge_calls"] == 2
        # 429 twice, then served
        assert by_id["s4"]["citation_recall"].status == types.OK
        # statuses decided before any call: no request at all
        assert by_id["s5"]["citation_recall"].status == "citation_out_of_range"
        assert by_id["s6"]["citation_recall"].status == "no_citations"
        assert sum(server.counts.values()) == 2 + 3 + 2 + 3
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert "citations|variant:llm" in json.dumps(summary["signatures"])
        # the same answers again: every reply from the cache
        server.reset_counts()
        again = evaluate(CLEAN, ["citations"], judge=judge)
        assert server.total == 0
        assert again.samples[1].metrics["citation_precision"].value == second["citation_precision"].value


class _Counting:
    """A proxy in front of a server that counts the chat requests for each sample (by a word of its sentences)."""

    def __init__(self, target: str, words: list[str]) -> None:
        self.counts: Counter = Counter()
        self.statuses: list[int] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self._forward(None)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                content = body.decode("utf-8", "replace").split("Sentences:")[-1]
                proxy.counts[next((w for w in words if w in content), "other")] += 1
                self._forward(body)

            def _forward(self, body):
                req = urllib.request.Request(target + self.path.removeprefix("/v1"), data=body, method=self.command,
                                             headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(req, timeout=300) as r:
                        status, data = r.status, r.read()
                except urllib.error.HTTPError as e:
                    status, data = e.code, e.read()
                proxy.statuses.append(status)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


def test_llama_server_at_most_two_requests_per_answer_and_cache(llama_server, tmp_path):  # noqa: F811
    words = ["ferry", "library"]
    rows = [row(0, "The ferry crossing takes 55 minutes [1]."),
            row(1, "The library closes at 8 pm on Thursdays [3].")]
    proxy = _Counting(llama_server, words)
    try:
        judge = JudgeConfig(backend="openai", base_url=proxy.base_url, model="gemma-3-270m", api_key="sk-unused",
                            cache_dir=str(tmp_path), max_tokens=200, max_retries=1, timeout=180,
                            concurrency=1)  # the server answers one request at a time
        results = evaluate(rows, ["citations"], judge=judge)
        # llama.cpp's server may refuse the first json_schema request (an HTTP error; the provider then sends
        # json_object): that probe is not a call; every answer takes at most 2 calls (the verification and one
        # repair), measured here: 2 requests for the first answer (the probe and its call), 1 for the second
        probes = sum(1 for s in proxy.statuses if s != 200)
        assert probes <= 1
        for word in words:
            assert 1 <= proxy.counts[word] <= 2 + probes, proxy.counts
        allowed = {types.OK, types.PARSE_ERROR}
        for r in results.samples:
            head = r.metrics["citation_recall"]
            assert head.status in allowed, (head.status, head.reason)
            assert head.details["judge_calls"] <= 2 and head.details["judge"]["variant"] == "llm"
            if head.status == types.OK:
                assert 0.0 <= head.value <= 1.0 and head.details["sentences"]
        before = sum(proxy.counts.values())
        again = evaluate(rows, ["citations"], judge=judge)
        assert sum(proxy.counts.values()) == before  # all from the cache
        assert [r.metrics["citation_recall"].status for r in again.samples] == [
            r.metrics["citation_recall"].status for r in results.samples]
    finally:
        proxy.httpd.shutdown()
        proxy.httpd.server_close()
