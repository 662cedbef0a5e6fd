"""Real model, real servers: the packaged Gemma 3 270M behind ``llama_cpp.server`` (driven through the openai
client) and in-process via llama-cpp-python, plus one RAGTruth answer of each task type end to end.

The model is a tiny base model, so these tests check structure, not judgement: every answer gets a score or a
typed status, spans lie inside their answer, found quotes inside their context, and the smoke-run warning is
present. Calls are kept few and short (small max_claims and max_tokens) so this runs in minutes on 2 CPU cores.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from genevals import types
from genevals.judge.config import JudgeConfig
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.metrics.rubric.rubric import Rubric
from genevals.types import Context, Sample
from support.llama_server import llama_server, packaged_gguf  # noqa: F401  (fixture)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
STATUSES = {types.OK, types.NO_CLAIMS, types.REFUSAL, types.NO_CONTEXT, types.JUDGE_ERROR, types.PARSE_ERROR,
            types.EMPTY_ANSWER}
SMALL = dict(max_tokens=256, max_retries=1, timeout=120)  # judge settings
MAX_CLAIMS = 3

SAMPLES = [
    Sample(id="curie", question="Where was Marie Curie born?", answer="Marie Curie was born in Warsaw in 1867.",
           contexts=(Context(text="Marie Curie was born in Warsaw, Poland, on 7 November 1867. She was a physicist.",
                             rank=1),)),
    Sample(id="refusal", question="What is the price?", answer="I don't know.",
           contexts=(Context(text="The shop opens at nine.", rank=1),)),
]


def check_structure(sample: Sample, out: dict) -> str:
    """Assert the output contract for one sample and return its status."""
    f = out["faithfulness"]
    assert set(out) == {"faithfulness", "contradiction_rate", "unverifiable_rate", "invented_claims"}
    invented = out["invented_claims"]
    if invented.status == types.OK:  # the decompose reply was read: its claims not in the answer, counted apart
        assert invented.value == len(f.details["invented_claims"])
        assert all(c["located"] for c in f.details["claims"])
    assert f.status in STATUSES, f.status
    if f.status == types.OK:
        assert 0.0 <= f.value <= 1.0
        assert abs(f.value + out["contradiction_rate"].value + out["unverifiable_rate"].value - 1.0) < 1e-9
    else:
        assert f.value is None and f.reason
    d = f.details
    for claim in d.get("claims", []):
        assert set(claim) >= {"index", "text", "spans", "located"}
        for s, e in claim["spans"]:
            assert 0 <= s < e <= len(sample.answer)
        assert claim["located"] == bool(claim["spans"]) or not claim["located"]
    for v in d.get("verdicts", []):
        assert v["label"] in types.VERDICT_LABELS
        if v["quote_found"]:
            s, e = v["quote_span"]
            ctx = sample.contexts[v["context_index"]].text
            assert 0 <= s < e <= len(ctx)
            assert " ".join(ctx[s:e].lower().split()) == " ".join(v["quote"].lower().split()).rstrip(".") or \
                " ".join(ctx[s:e].lower().split()) == " ".join(v["quote"].lower().split())
        else:
            assert v["quote_span"] is None
    if f.status in (types.PARSE_ERROR, types.JUDGE_ERROR):
        assert d["transcript"]
    return f.status


def test_llama_server_end_to_end(llama_server, tmp_path):  # noqa: F811
    metric = Faithfulness(JudgeConfig(backend="openai", base_url=llama_server, model="gemma-3-270m",
                                      api_key="sk-local-unused", cache_dir=str(tmp_path), **SMALL),
                          max_claims=MAX_CLAIMS)
    out = metric.score(SAMPLES)
    statuses = [check_structure(s, o) for s, o in zip(SAMPLES, out)]
    assert statuses[0] != types.JUDGE_ERROR, out[0]["faithfulness"].reason
    if statuses[0] == types.NO_CLAIMS:  # what the base model does with the worked example: copy it
        assert out[0]["faithfulness"].details["claims"] == []  # none of them is listed as the answer's
    assert statuses[1] == types.REFUSAL
    d = out[0]["faithfulness"].details
    assert {k: v for k, v in d["judge"].items() if k != "answered_by"} == {
        "backend": "openai", "model": "gemma-3-270m", "base_url": llama_server,
        "prompt_version": metric.runtime.prompt_version}
    assert d["judge"]["answered_by"]  # the name llama.cpp's server gives its model (the reply's "model")
    assert d["usage"]["requests"] >= 1
    # llama.cpp's server takes json_object + schema, not json_schema: the provider found that out
    assert metric.runtime.client().provider.mode == "json_object_schema"
    # a second run is free
    again = Faithfulness(JudgeConfig(backend="openai", base_url=llama_server, model="gemma-3-270m",
                                     cache_dir=str(tmp_path), **SMALL),
                         max_claims=MAX_CLAIMS).score(SAMPLES[:1])[0]["faithfulness"]
    assert again.details["usage"]["requests"] == 0 and again.status == out[0]["faithfulness"].status

    rubric = Rubric(JudgeConfig(backend="openai", base_url=llama_server, model="gemma-3-270m", cache=False,
                                max_tokens=400, max_retries=1, timeout=120))
    r = rubric.score(SAMPLES[:1])[0]
    for res in r.values():
        assert res.status in (types.OK, types.PARSE_ERROR), res
        if res.status == types.OK:
            assert res.value == (res.details["score"] - 1) / 4


def test_in_process_llamacpp(tmp_path):
    packaged_gguf()  # skips when not installed
    metric = Faithfulness(JudgeConfig(backend="llamacpp", options={"n_ctx": 2048}, cache=False, **SMALL), max_claims=MAX_CLAIMS)
    assert "warning:" in metric.signature()
    out = metric.score(SAMPLES[:1])[0]
    check_structure(SAMPLES[0], out)
    d = out["faithfulness"].details
    assert "smoke" in d["warning"] and d["judge"]["backend"] == "llamacpp"
    assert d["usage"]["requests"] >= 1 and d["usage"]["prompt_tokens"] > 0


def ragtruth_rows() -> list[dict]:
    """The first answer of each task type (QA, Summary, Data2txt), in file order. One of each: the test checks the
    whole pipeline's structure on every kind of context; 20 answers (as before) took 9 minutes of two cores and
    added no assertion (a benchmark's figure, not a test's)."""
    path = SHARED / "datasets" / "ragtruth_dev.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is not present")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    picked, want = [], {"QA": 1, "Summary": 1, "Data2txt": 1}
    for row in rows:
        if want.get(row["task_type"], 0) > 0:
            want[row["task_type"]] -= 1
            picked.append(row)
    return picked


def test_ragtruth_one_answer_of_each_task_real_model(llama_server, tmp_path):  # noqa: F811
    rows = ragtruth_rows()
    samples = [Sample(id=str(r["id"]), question=r["question"] or "", answer=r["response"],
                      contexts=(Context(text=r["context"] or "", rank=1),)) for r in rows]
    # worked_example=False: the tiny base model copies any worked example verbatim (then every answer is
    # no_claims, as test_llama_server_end_to_end shows); without it the whole pipeline, verify included, runs.
    metric = Faithfulness(JudgeConfig(backend="openai", base_url=llama_server, model="gemma-3-270m", cache=False,
                                      concurrency=2, **{**SMALL, "max_tokens": 160}),
                          max_claims=MAX_CLAIMS, worked_example=False)
    started = time.monotonic()
    out = metric.score(samples)
    elapsed = time.monotonic() - started
    assert len(out) == len(rows) == 3
    statuses = Counter(check_structure(s, o) for s, o in zip(samples, out))
    assert sum(statuses.values()) == 3 and set(statuses) <= STATUSES
    requests = [o["faithfulness"].details.get("usage", {}).get("requests", 0) for o in out]
    report = {"statuses": dict(statuses),
              "values": [o["faithfulness"].value for o in out], "scored": statuses.get(types.OK, 0), "seconds": round(elapsed, 1),
              "requests": sum(requests), "requests_per_answer": round(sum(requests) / 3, 2),
              "prompt_tokens": metric.runtime.total.prompt_tokens,
              "completion_tokens": metric.runtime.total.completion_tokens,
              "claims": sum(len(o["faithfulness"].details.get("claims", [])) for o in out),
              "located_claims": sum(sum(c["located"] for c in o["faithfulness"].details.get("claims", []))
                                    for o in out),
              "quotes_found": sum(sum(v["quote_found"] for v in o["faithfulness"].details.get("verdicts", []))
                                  for o in out),
              "verdicts": sum(len(o["faithfulness"].details.get("verdicts", [])) for o in out)}
    print("\nRAGTruth, one answer of each task, on packaged Gemma 270M via llama_cpp.server:", json.dumps(report))
    (tmp_path / "ragtruth3.json").write_text(json.dumps(report))
