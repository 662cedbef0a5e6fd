"""The OpenAI-compatible backend against a local server that injects faults (tests/support/fault_server.py).

No sample is lost, every failure is recorded with its reason, retries stay bounded (requests are counted),
the cache makes a re-run free, json_schema falls back to json_object, and the API key never leaks.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from genevals import types
from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.types import Context, Sample
from support.fault_server import FaultServer

CONTEXT = ("Marie Curie was born in Warsaw. Marie Curie won the Nobel Prize in Physics in 1903. "
           "Marie Curie discovered polonium.")
FAKE_KEY = "sk-FAKE-genevals-test-key-0123456789"


def rows(markers):
    return [{"id": m or f"clean{i}", "question": "Who was Marie Curie?",
             "answer": f"Marie Curie was born in Warsaw. Marie Curie won the Nobel Prize in Physics in 1903. "
                       f"Marie Curie liked tea. {m}.",
             "contexts": [CONTEXT]} for i, m in enumerate(markers)]


@pytest.fixture
def server():
    with FaultServer(reject_json_schema=True, hang_seconds=2.0) as s:
        yield s


def judge(server, tmp_path, **kw) -> JudgeConfig:
    opts = {"backend": "openai", "base_url": server.base_url, "model": "fault-judge", "api_key": FAKE_KEY,
            "cache_dir": str(tmp_path / "cache"), "max_retries": 2, "timeout": 1.0, "backoff_base": 0.01,
            "concurrency": 4}
    opts.update(kw)
    return JudgeConfig(**opts)


def test_every_fault_is_recorded_and_no_sample_lost(server, tmp_path, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    # four clean answers first: the first burst (concurrency 4) meets the json_schema refusal, not the faults
    markers = ["", "", "", "", "FAULT429", "FAULT500", "FAULTHANG", "FAULTMALFORMED", "FAULTBODY", "FAULTTRUNC",
               "FAULTWRONGID", "FAULTQUOTE", "FAULTAUTH"]
    out = tmp_path / "out"
    evaluate(rows(markers), ["faithfulness"], judge=judge(server, tmp_path), out_dir=out)
    results = {r["id"]: r["metrics"] for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert set(results) == {m or f"clean{i}" for i, m in enumerate(markers)}  # no sample lost
    f = {k: v["faithfulness"] for k, v in results.items()}
    for k, v in f.items():
        assert v["status"] == "ok" or v.get("reason"), k
        assert (v["value"] is None) == (v["status"] != "ok"), k

    # clean: 3 claims of 4 supported. "Marie Curie liked tea." is not in the context; the marker-less last
    # sentence "." is its own claim, whose empty core the honest judge finds in every passage. It went in the
    # first burst, so its decompose took 2 requests (json_schema refused, then json_object) and its verify 1.
    assert (f["clean0"]["status"], f["clean0"]["value"]) == ("ok", 0.75)
    assert [v["label"] for v in f["clean0"]["details"]["verdicts"]] == ["supported", "supported", "unverifiable",
                                                                        "supported"]
    assert f["clean0"]["details"]["usage"]["requests"] == 3
    # every marked answer that got through: 2 of its 4 claims supported (the tea and the marker are not)
    for marker in ("FAULT429", "FAULTBODY", "FAULTTRUNC", "FAULTQUOTE"):
        assert (f[marker]["status"], f[marker]["value"]) == ("ok", 0.5), marker
    # the first burst (no request waits for another to learn the mode) met json_schema -> 400; the mode stepped
    # down once, to json_object+schema, each refused request was re-sent with it, and nothing after used json_schema
    formats = [r["body"].get("response_format", {}).get("type") for r in server.requests]
    refused = [r for r in server.requests if r["body"]["response_format"]["type"] == "json_schema"]
    assert len(refused) == 4 and {r["marker"] for r in refused} == {"clean"}
    assert formats.count("json_object") == len(formats) - 4
    assert all(r["body"]["response_format"].get("schema") for r in server.requests if r not in refused)
    assert all(f[f"clean{i}"]["details"]["usage"]["requests"] == 3 for i in range(4))
    assert all(r["body"]["temperature"] == 0 and r["body"]["seed"] == 0 for r in server.requests)

    # 429 with Retry-After: retried after waiting, then fine
    assert f["FAULT429"]["status"] == "ok"
    t = server.times["FAULT429"]
    assert t[2] - t[1] >= 0.9 and t[1] - t[0] >= 0.9
    # 500 and hangs: bounded retries (max_retries=2 -> 3 requests), then judge_error with the reason
    assert f["FAULT500"]["status"] == types.JUDGE_ERROR and "HTTP 500" in f["FAULT500"]["reason"]
    assert server.counts["FAULT500"] == 3 and "3 request(s)" in f["FAULT500"]["reason"]
    assert f["FAULTHANG"]["status"] == types.JUDGE_ERROR and "timeout" in f["FAULTHANG"]["reason"]
    assert server.counts["FAULTHANG"] == 3
    # malformed JSON reply: one repair re-ask, then parse_error with the raw replies kept
    assert f["FAULTMALFORMED"]["status"] == types.PARSE_ERROR
    assert server.counts["FAULTMALFORMED"] == 2
    assert [t["reply"] for t in f["FAULTMALFORMED"]["details"]["transcript"]][0].startswith("Here you go")
    # a non-JSON HTTP body is retried like a server fault
    assert f["FAULTBODY"]["status"] == "ok"
    # truncated verify reply: complete verdicts kept, only the missing ids re-asked
    trunc = f["FAULTTRUNC"]
    assert trunc["status"] == "ok" and not any(v["missing"] for v in trunc["details"]["verdicts"])
    verify_bodies = [r["body"]["messages"][0]["content"] for r in server.requests
                     if r["marker"] == "FAULTTRUNC" and r["kind"] == "verify"]
    assert len(verify_bodies) == 2
    first, second = (b.split("\nClaims:\n")[1] for b in verify_bodies)
    assert "1. Marie Curie was born in Warsaw." in first and "1. Marie Curie was born in Warsaw." not in second
    assert "no usable verdict" in second
    # wrong ids: ignored, re-asked once, then missing -> unverifiable, never supported
    wrong = f["FAULTWRONGID"]
    assert wrong["status"] == "ok" and wrong["value"] == 0.0
    assert all(v["missing"] and v["label"] == "unverifiable" for v in wrong["details"]["verdicts"])
    assert results["FAULTWRONGID"]["unverifiable_rate"]["value"] == 1.0
    assert any("unknown claim id" in i for i in wrong["details"]["issues"])
    assert server.counts["FAULTWRONGID"] == 3
    # quotes not in the context are flagged
    quote = f["FAULTQUOTE"]
    assert quote["status"] == "ok" and all(not v["quote_found"] and v["quote_span"] is None
                                           for v in quote["details"]["verdicts"])
    # 401: not retried; the key the server echoed is redacted
    assert f["FAULTAUTH"]["status"] == types.JUDGE_ERROR and "401" in f["FAULTAUTH"]["reason"]
    assert server.counts["FAULTAUTH"] == 1 and "***" in f["FAULTAUTH"]["reason"]

    # every found quote and every claim span really lies in its text
    for row in rows(markers):  # results.jsonl is in completion order: pair by id
        d = f[row["id"]].get("details", {})
        for claim in d.get("claims", []):
            for s, e in claim["spans"]:
                assert 0 <= s < e <= len(row["answer"])
        for v in d.get("verdicts", []):
            if v["quote_found"]:
                s, e = v["quote_span"]
                assert row["contexts"][v["context_index"]][s:e].lower() == v["quote"].lower()

    # the key went to the server (it was used) but appears nowhere we write
    assert all(r["authorization"] == f"Bearer {FAKE_KEY}" for r in server.requests)
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert FAKE_KEY.encode() not in written
    captured = capsys.readouterr()
    assert FAKE_KEY not in captured.out + captured.err + caplog.text

    # re-run: everything that succeeded (or was unparseable) comes from the cache; only failures are re-asked
    server.reset_counts()
    out2 = tmp_path / "out2"
    evaluate(rows(markers), ["faithfulness"], judge=judge(server, tmp_path), out_dir=out2)
    again = {r["id"]: r["metrics"]["faithfulness"]
             for r in map(json.loads, (out2 / "results.jsonl").read_text().splitlines())}
    assert set(server.counts) <= {"FAULT500", "FAULTHANG", "FAULTAUTH"}
    for k in f:
        assert again[k]["status"] == f[k]["status"] and again[k]["value"] == f[k]["value"]
    assert again["clean0"]["details"]["usage"]["requests"] == 0


def test_clean_rerun_costs_zero_requests(server, tmp_path):
    data = rows(["", "", ""])
    for r, q in zip(data, ["a", "b", "c"]):
        r["question"] = q
        r["answer"] += f" Variant {q}."
    metric = Faithfulness(judge(server, tmp_path))
    samples = [Sample(id=r["id"], answer=r["answer"], question=r["question"], contexts=(Context(CONTEXT, 1),))
               for r in data]
    first = metric.score(samples)
    n_first = server.total
    assert n_first >= 6 and all(o["faithfulness"].status == "ok" for o in first)
    second = Faithfulness(judge(server, tmp_path)).score(samples)
    assert server.total == n_first  # 0 requests on the re-run
    assert [o["faithfulness"].value for o in second] == [o["faithfulness"].value for o in first]
    cache_file = next(Path(tmp_path / "cache").glob("*.sqlite"))
    assert FAKE_KEY.encode() not in cache_file.read_bytes()


def test_concurrency_limit_is_respected(tmp_path):
    import threading
    import time

    with FaultServer(hang_seconds=0.3) as server:
        active, peak, lock = [0], [0], threading.Lock()
        original = server._handle

        def counting(h, body):
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            try:
                time.sleep(0.05)
            finally:
                # counted out before the reply is written, or the client's next call can race this thread
                with lock:
                    active[0] -= 1
            original(h, body)

        server._handle = counting
        samples = [Sample(id=str(i), answer=f"Marie Curie was born in Warsaw. Item {i}.", contexts=(Context(CONTEXT, 1),))
                   for i in range(8)]
        out = Faithfulness(judge(server, tmp_path, concurrency=2, cache=False)).score(samples)
        assert len(out) == 8 and all(o["faithfulness"].status == "ok" for o in out)
        assert peak[0] <= 2 and server.total == 16
