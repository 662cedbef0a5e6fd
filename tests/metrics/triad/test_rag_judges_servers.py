"""The four one-call judges end to end over HTTP: against the project's fault-injecting server (calls per answer
counted on the server, retries, statuses, the cache) and against llama.cpp's server with the packaged model
(structured replies, statuses, cache)."""
from __future__ import annotations

import json
from collections import Counter

import pytest
from support.fault_server import FaultServer
from support.llama_server import llama_server  # noqa: F401  (fixture)
from support.rag_judge import FAMILIES, honest_judge, prompt_kind

from genevals import types
from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from genevals.types import Context, Sample

CONTEXTS = (Context("The ferry crossing takes 55 minutes.", 1), Context("Bins are emptied on Mondays.", 2))


def row(i: int, marker: str = "") -> dict:
    return Sample(f"s{i}", "The ferry crossing takes 55 minutes. It is cheap.",
                  f"How long is the ferry crossing? {marker}".strip(), CONTEXTS,
                  references=("The ferry crossing takes 55 minutes. Dogs travel free.",)).to_dict()


def per_kind(server: FaultServer, marker: str) -> Counter:
    return Counter(prompt_kind(r["body"]["messages"][0]["content"]) for r in server.requests if r["marker"] == marker)


def test_fault_server_calls_per_answer_statuses_and_cache(tmp_path):
    rows = [row(0), row(1), row(2, "FAULT429"), row(3, "FAULT500"), row(4, "FAULTMALFORMED")]
    with FaultServer(replies=honest_judge) as server:
        judge = JudgeConfig(base_url=server.base_url, model="fault", api_key="sk-test", max_retries=2,
                            backoff_base=0.01, backoff_max=0.05, cache_dir=str(tmp_path / "cache"), timeout=10)
        results = evaluate(rows, FAMILIES, judge=judge, out_dir=tmp_path / "run")
        by_id = {r.sample.id: r.metrics for r in results.samples}
        # clean answers: exactly one call per answer and metric, counted on the server
        assert per_kind(server, "clean") == Counter({f: 2 for f in FAMILIES})
        clean = by_id["s0"]
        assert clean["answer_relevance"].value == 1.0
        assert clean["context_relevance"].value == 0.5 and clean["context_precision"].value == 1.0
        assert clean["context_recall"].value == 0.5  # "Dogs travel free." is in no chunk
        assert clean["context_recall"].details["missed"] == ["Dogs travel free."]
        # TP 1 ("The ferry crossing ..."), FP 1 ("It is cheap."), FN 1 ("Dogs travel free.")
        assert clean["answer_correctness"].details["counts"] == {"tp": 1, "fp": 1, "found": 1, "fn": 1}
        assert clean["answer_correctness"].value == pytest.approx(0.5)
        for f in ("answer_relevance", "context_relevance", "context_recall", "answer_correctness"):
            assert clean[f].details["usage"]["requests"] == 1
        # 429 twice, then served: the first metric's call took 3 requests, the others 1
        assert server.counts["FAULT429"] == 4 + 2 and all(by_id["s2"][f].status == "ok" for f in FAMILIES)
        # 500 on every request: judge_error after 1 + 2 retries, for each metric
        assert per_kind(server, "FAULT500") == Counter({f: 3 for f in FAMILIES})
        for f in FAMILIES:
            r = by_id["s3"][f]
            assert r.status == types.JUDGE_ERROR and "3 request(s)" in r.reason and r.details["transcript"]
        # an unreadable reply: parse_error after its one call, the raw reply kept
        assert per_kind(server, "FAULTMALFORMED") == Counter({f: 1 for f in FAMILIES})
        for f in FAMILIES:
            r = by_id["s4"][f]
            assert r.status == types.PARSE_ERROR and "not as JSON" in r.details["transcript"][0]["reply"]
        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        assert "answer_relevance" in json.dumps(summary["signatures"])
        # the same run again: every served reply comes from the cache
        server.reset_counts()
        again = evaluate(rows[:3], FAMILIES, judge=judge)
        assert server.total == 0
        assert [r.metrics["answer_correctness"].value for r in again.samples] == [
            by_id[f"s{i}"]["answer_correctness"].value for i in range(3)]


def test_llama_server_structured_replies_statuses_and_cache(llama_server, tmp_path):  # noqa: F811
    samples = [Sample.from_dict(row(0)), Sample("r", "I don't know.", "How long is the ferry crossing?", CONTEXTS,
                                                references=("55 minutes.",))]
    judge = JudgeConfig(backend="openai", base_url=llama_server, model="gemma-3-270m", api_key="sk-local-unused",
                        cache_dir=str(tmp_path), max_tokens=200, max_retries=1, timeout=120)
    results = evaluate([s.to_dict() for s in samples], FAMILIES, judge=judge)
    first, refusal = results.samples
    allowed = {types.OK, types.PARSE_ERROR, types.NO_CLAIMS}
    for f in FAMILIES:
        r = first.metrics[f]
        assert r.status in allowed, (f, r.status, r.reason)
        assert r.details["judge_calls"] == 1  # one call per answer and metric
        # llama.cpp's server refuses json_schema: the provider's first request finds that out, then json_object
        assert r.details["usage"]["requests"] in (1, 2)
        assert r.details["judge"]["base_url"] == llama_server and r.details["judge"]["variant"] == "llm"
        if r.status == types.OK:
            assert 0.0 <= r.value <= 1.0
    assert refusal.metrics["answer_relevance"].status == types.REFUSAL
    assert refusal.metrics["answer_correctness"].status == types.REFUSAL
    assert refusal.metrics["context_relevance"].details["judge_calls"] == 1  # judged: no answer needed
    assert refusal.metrics["answer_relevance"].details["judge_calls"] == 0
    again = evaluate([samples[0].to_dict()], FAMILIES, judge=judge).samples[0]
    for f in FAMILIES:
        assert again.metrics[f].details["usage"]["requests"] == 0
        assert again.metrics[f].status == first.metrics[f].status and again.metrics[f].value == first.metrics[f].value


def test_fault_server_pairwise_two_calls_per_pair(tmp_path):
    rows = [dict(row(i, marker), system=system, answer=answer) for i, marker in ((0, ""), (1, ""), (2, "FAULT500"))
            for system, answer in (("long", "The ferry crossing takes 55 minutes."), ("short", "55 minutes."))]
    with FaultServer(replies=honest_judge) as server:
        judge = JudgeConfig(base_url=server.base_url, model="fault", max_retries=2, backoff_base=0.01,
                            backoff_max=0.05, cache=False, timeout=10)
        results = evaluate(rows, ["pairwise"], judge=judge)
        # 2 clean questions x 2 orders, for 4 samples; the failing pair: 3 requests, then judge_error
        assert per_kind(server, "clean") == Counter({"pairwise": 4})
        assert per_kind(server, "FAULT500") == Counter({"pairwise": 3})
    by = {(r.sample.id, r.sample.system): r.metrics["pairwise"] for r in results.samples}
    assert by["s0", "long"].value == 1.0 and by["s0", "short"].value == 0.0
    assert by["s2", "long"].status == by["s2", "short"].status == types.JUDGE_ERROR
    assert results.corpus["long"]["pairwise_vs:short:win_rate"] == 1.0
    assert results.corpus["long"]["pairwise_vs:short:n"] == 2
