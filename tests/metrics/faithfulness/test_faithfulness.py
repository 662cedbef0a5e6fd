"""The faithfulness pipeline (decompose -> verify -> score) driven by the packaged ScriptedProvider.

Checks the verdict-to-score arithmetic, every edge status, span and quote bookkeeping, repair re-asks, context
windows, the cache, usage accounting and the dry run, through the real client (cache, retries, accounting) and
the real parsing. No network, no model.
"""
from __future__ import annotations

import asyncio
import json
import re

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import PermanentError, TransientError
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.types import Context, Sample

ANSWER = ("Marie Curie was born in Warsaw. She won the Nobel Prize in Physics in 1903. "
          "She discovered polonium. She lived to be 120 years old.")
CONTEXTS = (
    Context(text="Marie Curie (born in Warsaw in 1867) was a physicist and chemist.", rank=1),
    Context(text="Curie shared the 1903 Nobel Prize in Physics. With Pierre she discovered polonium and radium. "
                 "She died in 1934, aged 66.", rank=2),
)
SAMPLE = Sample(id="s1", answer=ANSWER, question="Who was Marie Curie?", contexts=CONTEXTS)

CLAIMS = {"claims": [
    {"claim": "Marie Curie was born in Warsaw.", "source": "Marie Curie was born in Warsaw"},
    {"claim": "Marie Curie won the Nobel Prize in Physics in 1903.", "source": "She won the Nobel Prize in Physics in 1903"},
    {"claim": "Marie Curie discovered polonium.", "source": "She discovered polonium"},
    {"claim": "Marie Curie lived to be 120 years old.", "source": "She lived to be 120 years old"},
]}
VERDICTS = {"verdicts": [
    {"id": 1, "context": 1, "quote": "born in Warsaw", "label": "supported", "reason": "stated"},
    {"id": 2, "context": 2, "quote": "shared the 1903 Nobel Prize in Physics", "label": "supported", "reason": "stated"},
    {"id": 3, "context": 2, "quote": "", "label": "unverifiable", "reason": "not clear"},
    {"id": 4, "context": 2, "quote": "She died in 1934, aged 66.", "label": "contradicted", "reason": "66, not 120"},
]}


def faith(script, **config):
    """(metric, provider): Faithfulness judged by a ScriptedProvider, no cache, near-instant backoff."""
    worked_example = config.pop("worked_example", None)
    provider = ScriptedProvider(script)
    config.setdefault("cache", False)
    config.setdefault("backoff_base", 0.001)
    return Faithfulness(JudgeConfig(provider=provider, **config), worked_example=worked_example), provider


def claims_block(content: str) -> str:
    return content.split("Claims:")[1]


def test_arithmetic_spans_and_quotes():
    metric, p = faith({"decompose": CLAIMS, "verify": VERDICTS})
    out = metric.score([SAMPLE])[0]
    f, c, u = out["faithfulness"], out["contradiction_rate"], out["unverifiable_rate"]
    # 2 supported, 1 contradicted, 1 unverifiable of 4 located claims
    assert (f.status, f.value, c.value, u.value) == ("ok", 0.5, 0.25, 0.25)
    assert c.details == {"contradicted": 1, "claims": 4}
    assert u.details == {"unverifiable": 1, "missing": 0, "claims": 4}
    assert [k for k, _ in p.calls] == ["decompose", "verify"]  # 2 calls per answer
    d = f.details
    assert d["counts"] == {"supported": 2, "contradicted": 1, "unverifiable": 1, "missing": 0}
    assert [cl["located"] for cl in d["claims"]] == [True] * 4
    # the source excerpts, located in the answer: "Marie Curie was born in Warsaw" is ANSWER[0:30], ...
    assert [cl["spans"] for cl in d["claims"]] == [[[0, 30]], [[32, 74]], [[76, 99]], [[101, 130]]]
    assert ANSWER[32:74] == "She won the Nobel Prize in Physics in 1903"
    v = {x["claim_index"]: x for x in d["verdicts"]}
    # "Marie Curie (" is 13 characters: the quote "born in Warsaw" is CONTEXTS[0].text[13:27]
    assert (v[0]["context_index"], v[0]["quote_found"], v[0]["quote_span"]) == (0, True, [13, 27])
    assert v[1]["quote_span"] == [6, 44]
    assert v[3]["label"] == "contradicted" and v[3]["quote_span"] == [94, 120]
    assert CONTEXTS[1].text[94:120] == "She died in 1934, aged 66."
    assert v[2]["quote_span"] is None and not v[2]["quote_found"] and v[2]["context_index"] == 1
    assert d["invented_claims"] == [] and d["issues"] == []
    # the model asked for, and the one that answered (the reply's own name for itself)
    assert d["judge"] == {"backend": "scripted", "model": "scripted-judge", "base_url": None,
                          "prompt_version": metric.runtime.prompt_version, "answered_by": "scripted-judge"}
    # usage: the scripted provider counts len(prompt) // 4 and len(reply) // 4 tokens per request
    assert d["usage"] == {"requests": 2, "cached_requests": 0,
                          "prompt_tokens": sum(len(content) // 4 for _, content in p.calls),
                          "completion_tokens": len(json.dumps(CLAIMS)) // 4 + len(json.dumps(VERDICTS)) // 4,
                          "cost_usd": None}
    assert "transcript" not in d and "warning" not in d
    json.dumps(f.to_dict())  # the results file can hold it


def test_missing_verdict_is_reasked_once_then_unverifiable_never_supported():
    partial = {"verdicts": VERDICTS["verdicts"][:2] + [{"id": 9, "context": 1, "quote": "", "label": "supported",
                                                        "reason": "wrong id"}]}
    metric, p = faith({"decompose": CLAIMS, "verify": [partial, {"verdicts": []}]})
    out = metric.score([SAMPLE])[0]
    f = out["faithfulness"]
    assert p.count("verify") == 2
    reask = claims_block([c for k, c in p.calls if k == "verify"][1])
    assert "3. Marie Curie discovered polonium." in reask and "4. Marie Curie lived" in reask
    assert "1. " not in reask and "2. " not in reask  # only the missing ids
    assert "no usable verdict for claim(s) 3, 4" in reask
    # 2 supported of 4; the 2 missing count as unverifiable, never as supported
    assert (f.value, out["unverifiable_rate"].value, out["contradiction_rate"].value) == (0.5, 0.5, 0.0)
    missing = [v for v in f.details["verdicts"] if v["missing"]]
    assert [v["claim_index"] for v in missing] == [2, 3] and all(v["label"] == "unverifiable" for v in missing)
    assert any("unknown claim id 9" in i for i in f.details["issues"])
    assert f.details["counts"] == {"supported": 2, "contradicted": 0, "unverifiable": 0, "missing": 2}
    assert out["unverifiable_rate"].details == {"unverifiable": 0, "missing": 2, "claims": 4}


def test_reask_fills_the_gap():
    metric, p = faith({"decompose": CLAIMS,
                       "verify": [{"verdicts": VERDICTS["verdicts"][:3]}, {"verdicts": VERDICTS["verdicts"][3:]}]})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert p.count("verify") == 2 and f.value == 0.5
    assert not any(v["missing"] for v in f.details["verdicts"])
    assert f.details["counts"] == {"supported": 2, "contradicted": 1, "unverifiable": 1, "missing": 0}


def test_truncated_verify_reply_is_salvaged():
    text = json.dumps(VERDICTS)
    cut = text[: text.index('{"id": 4') + 20]  # cut inside the 4th verdict
    metric, p = faith({"decompose": CLAIMS, "verify": [cut, {"verdicts": [VERDICTS["verdicts"][3]]}]})
    out = metric.score([SAMPLE])[0]
    assert out["faithfulness"].value == 0.5 and out["contradiction_rate"].value == 0.25
    assert p.count("verify") == 2  # the first 3 verdicts were kept; only claim 4 was asked again
    assert "4. Marie Curie lived to be 120 years old." in claims_block([c for k, c in p.calls if k == "verify"][1])
    assert any("truncated" in i for i in out["faithfulness"].details["issues"])


@pytest.mark.parametrize("answer,status", [
    ("", types.EMPTY_ANSWER),
    ("I don't know.", types.REFUSAL),
    ("I cannot answer this based on the context provided.", types.REFUSAL),
    ("Unable to answer based on given passages.", types.REFUSAL),
])
def test_statuses_decided_before_any_call(answer, status):
    metric, p = faith({"decompose": CLAIMS, "verify": VERDICTS})
    out = metric.score([Sample(id="x", answer=answer, contexts=CONTEXTS)])[0]
    assert {r.status for r in out.values()} == {status}
    assert all(r.value is None and r.reason for r in out.values())
    assert p.calls == []


def test_empty_context():
    metric, p = faith({"decompose": CLAIMS, "verify": VERDICTS})
    for contexts in ((), (Context(text="  ", rank=1),)):
        out = metric.score([Sample(id="x", answer=ANSWER, contexts=contexts)])[0]
        assert out["faithfulness"].status == types.NO_CONTEXT
    assert p.calls == []


def test_answer_with_a_claim_after_a_disclaimer_is_not_a_refusal():
    answer = "The context does not mention her height, but Marie Curie was born in Warsaw."
    metric, p = faith({"decompose": {"claims": [CLAIMS["claims"][0]]}, "verify": {"verdicts": [VERDICTS["verdicts"][0]]}})
    f = metric.score([Sample(id="x", answer=answer, contexts=CONTEXTS)])[0]["faithfulness"]
    assert f.status == "ok" and f.value == 1.0 and p.count("verify") == 1


def test_no_claims():
    metric, p = faith({"decompose": {"claims": []}, "verify": VERDICTS})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.NO_CLAIMS and f.value is None and p.count("verify") == 0
    assert f.details["claims"] == [] and f.details["invented_claims"] == []
    assert metric.score([SAMPLE])[0]["invented_claims"].value == 0.0


def test_invented_and_example_copies_are_never_the_answers_claims():
    claims = {"claims": CLAIMS["claims"][:2] + [
        {"claim": "Marie Curie invented the telephone.", "source": "She invented the telephone"},
        {"claim": "The Varnholt Bridge opened in 1931.", "source": "Marie Curie was born in Warsaw"},
        {"claim": "Quantum chromodynamics governs gluon confinement.", "source": "She discovered polonium"},
    ]}
    metric, p = faith({"decompose": claims, "verify": {"verdicts": VERDICTS["verdicts"][:2]}})
    out = metric.score([SAMPLE])[0]
    f = out["faithfulness"]
    assert f.status == "ok" and f.value == 1.0  # 2 of the 2 located claims supported
    assert [c["index"] for c in f.details["claims"]] == [0, 1]  # only the answer's claims are listed
    by_index = {c["index"]: c for c in f.details["invented_claims"]}
    assert sorted(by_index) == [2, 3, 4] and out["invented_claims"].value == 3.0
    assert by_index[2]["note"] == "source excerpt not found in the answer"
    assert by_index[3]["note"] == "copied from the prompt's worked example, not in the answer"
    assert by_index[4]["note"] == "claim words mostly absent from the answer and question (invented content)"
    assert by_index[4]["spans"] == [[76, 99]]  # located, but its words are not the answer's
    assert [c["stage"] for c in f.details["transcript"]] == ["decompose", "verify"]  # beside the warning
    verify_prompt = claims_block([c for k, c in p.calls if k == "verify"][0])
    assert "telephone" not in verify_prompt and "Varnholt" not in verify_prompt and "Quantum" not in verify_prompt
    assert {v["claim_index"] for v in f.details["verdicts"]} == {0, 1}


def test_a_verbatim_claim_with_contractions_is_the_answers():
    answer = "It's Bob's. They don't sell bread."
    claims = {"claims": [{"claim": "It's Bob's.", "source": "It's Bob's."},
                         {"claim": "Bob's shop doesn't sell bread.", "source": "They don't sell bread"}]}
    metric, _ = faith({"decompose": claims, "verify": VERDICTS})
    f = metric.score([Sample(id="c", answer=answer, contexts=CONTEXTS)])[0]["faithfulness"]
    assert [(c["spans"], c["located"]) for c in f.details["claims"]] == [([[0, 11]], True), ([[12, 33]], True)]
    assert f.value == 1.0  # verdicts 1 and 2 of VERDICTS: both supported


def test_all_claims_unlocated_is_no_claims():
    metric, p = faith({"decompose": {"claims": [{"claim": "The Varnholt Bridge spans the river Elde.",
                                                 "source": "It spans the river Elde"}]}, "verify": VERDICTS})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.NO_CLAIMS and "none could be located" in f.reason
    assert f.details["claims"] == [] and len(f.details["invented_claims"]) == 1 and p.count("verify") == 0
    assert metric.score([SAMPLE])[0]["invented_claims"].value == 1.0  # counted even though unscored


def test_fuzzy_and_multi_part_sources():
    claims = {"claims": [
        {"claim": "Marie Curie won the Nobel Prize in Physics in 1903.",
         "source": "she  won the nobel prize in physics in 1903."},  # case/space differences
        {"claim": "Marie Curie was born in Warsaw and discovered polonium.",
         "source": "born in Warsaw ... discovered polonium"},
        {"claim": "Marie Curie lived to be 120 years old.", "source": "She lived to be 120 yeras old"},  # typo
    ]}
    metric, _ = faith({"decompose": claims,
                       "verify": {"verdicts": [{"id": i, "context": 0, "quote": "", "label": "unverifiable",
                                                "reason": ""} for i in (1, 2, 3)]}})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    c = f.details["claims"]
    assert all(x["located"] for x in c)
    assert c[0]["spans"] == [[32, 74]]  # normalised match, mapped back to the original text
    assert c[1]["spans"] == [[16, 30], [80, 99]]  # "born in Warsaw", "discovered polonium"
    assert ANSWER[16:30] == "born in Warsaw" and ANSWER[80:99] == "discovered polonium"
    assert ANSWER[slice(*c[2]["spans"][0])].startswith("She lived to be 120")  # fuzzy
    assert f.value == 0.0 and f.status == "ok" and f.details["verdicts"][0]["context_index"] is None


def test_quote_not_in_context_is_flagged_and_wrong_context_corrected():
    verdicts = {"verdicts": [
        {"id": 1, "context": 2, "quote": "born in  Warsaw", "label": "supported", "reason": "r"},  # in context 1
        {"id": 2, "context": 2, "quote": "won the Nobel Prize twice", "label": "supported", "reason": "r"},
        {"id": 3, "context": 7, "quote": "", "label": "unverifiable", "reason": "r"},
        {"id": 4, "context": 2, "quote": "aged 66", "label": "contradicted", "reason": "r"},
    ]}
    metric, _ = faith({"decompose": CLAIMS, "verify": verdicts})
    v = metric.score([SAMPLE])[0]["faithfulness"].details["verdicts"]
    assert (v[0]["context_index"], v[0]["quote_found"], v[0]["quote_span"]) == (0, True, [13, 27])
    assert v[0]["reason"] == "r [quote found in context 1, not the context 2 the judge named]"
    assert not v[1]["quote_found"] and v[1]["quote_span"] is None and v[1]["label"] == "supported"
    assert v[2]["context_index"] is None  # context 7 does not exist
    assert v[3]["quote_span"] == [112, 119] and CONTEXTS[1].text[112:119] == "aged 66"  # 94 + len("She died in 1934, ")


def test_decompose_parse_error_keeps_transcript():
    metric, p = faith({"decompose": ["Sure! Here are the claims: Marie Curie ...", "still not json"],
                       "verify": VERDICTS})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.PARSE_ERROR and f.value is None
    assert [(t["stage"], t["reply"]) for t in f.details["transcript"]] == [
        ("decompose", "Sure! Here are the claims: Marie Curie ..."), ("decompose-repair", "still not json")]
    assert p.count("decompose") == 2 and p.count("verify") == 0
    # the repair re-ask is a conversation: the unreadable reply, then a request for JSON only
    assert "Reply again with JSON only" in p.calls[1][1]


def test_decompose_repair_succeeds():
    metric, _ = faith({"decompose": ["not json", CLAIMS], "verify": VERDICTS})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == "ok" and f.value == 0.5
    assert f.details["issues"][0].startswith("decompose reply unreadable (") and "repaired" in f.details["issues"][0]
    assert f.details["usage"]["requests"] == 3


def test_verify_parse_error():
    metric, p = faith({"decompose": CLAIMS, "verify": ["<html>oops</html>", "[1, 2"]})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.PARSE_ERROR and len(f.details["claims"]) == 4 and p.count("verify") == 2
    assert [t.get("reply") for t in f.details["transcript"]] == [json.dumps(CLAIMS), "<html>oops</html>", "[1, 2"]
    assert all(v["missing"] for v in f.details["verdicts"])


def test_judge_errors_are_typed_and_retries_bounded():
    metric, p = faith({"decompose": PermanentError("HTTP 401: bad key"), "verify": VERDICTS})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.JUDGE_ERROR and p.count("decompose") == 1
    assert f.reason == "decompose call failed after 1 request(s): HTTP 401: bad key"
    metric, p = faith({"decompose": TransientError("HTTP 503", retry_after=0.0), "verify": VERDICTS}, max_retries=2)
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.reason == "decompose call failed after 3 request(s): HTTP 503" and p.count("decompose") == 3
    assert f.details["usage"]["requests"] == 3
    assert f.details["transcript"] == [{"stage": "decompose", "attempts": 3, "cached": False,
                                        "error": "TransientError: HTTP 503"}]


def test_transient_then_success():
    state = {"n": 0}

    def flaky(messages):
        state["n"] += 1
        return TransientError("HTTP 429", retry_after=0.0) if state["n"] < 3 else CLAIMS

    metric, p = faith({"decompose": flaky, "verify": VERDICTS})
    f = metric.score([SAMPLE])[0]["faithfulness"]
    assert f.status == "ok" and f.value == 0.5
    assert f.details["usage"]["requests"] == 4 and p.count("decompose") == 3  # 3 decompose tries + 1 verify


def test_context_windows_take_the_best_verdict():
    filler = " ".join(f"Sentence {i} talks about unrelated gardening topics." for i in range(40))
    ctx = (Context(text=filler + " Marie Curie was born in Warsaw.", rank=1),
           Context(text="Marie Curie was born in Paris, some say, though Warsaw records exist. " + filler, rank=2))

    def verify(messages):
        passages = messages[0]["content"].split("Context passages:")[1].split("Claims:")[0]
        if "born in Warsaw." in passages:
            return {"verdicts": [{"id": 1, "context": 1, "quote": "Marie Curie was born in Warsaw.",
                                  "label": "supported", "reason": "r"}]}
        if "born in Paris" in passages:
            return {"verdicts": [{"id": 1, "context": 2, "quote": "Marie Curie was born in Paris",
                                  "label": "contradicted", "reason": "r"}]}
        return {"verdicts": [{"id": 1, "context": 0, "quote": "", "label": "unverifiable", "reason": "r"}]}

    metric, p = faith({"decompose": {"claims": [CLAIMS["claims"][0]]}, "verify": verify}, context_token_budget=400)
    f = metric.score([Sample(id="w", answer=ANSWER, contexts=ctx)])[0]["faithfulness"]
    # the claim went to the 2 windows sharing most words with it: one says supported, one contradicted
    assert p.count("verify") == 2 and f.value == 1.0
    v = f.details["verdicts"][0]
    assert v["label"] == "supported" and v["context_index"] == 0
    assert ctx[0].text[slice(*v["quote_span"])] == "Marie Curie was born in Warsaw."
    assert v["quote_span"] == [len(filler) + 1, len(ctx[0].text)]


def test_dry_run_makes_no_calls():
    prices = {"scripted-judge": {"input_per_1k": 0.01, "output_per_1k": 0.03}}
    metric, p = faith({"decompose": CLAIMS, "verify": VERDICTS}, dry_run=True, prices=prices)
    out = metric.score([SAMPLE, Sample(id="r", answer="I don't know.", contexts=CONTEXTS)])
    assert p.calls == []
    f = out[0]["faithfulness"]
    est = f.details["dry_run"]
    assert f.status == types.DRY_RUN and "4 characters per token" in est["method"]
    # 1 decompose + 1 verify window; 4 sentences -> min(12, int(4 * 1.5) + 1) = 7 claims estimated;
    # completion = ceil(len(ANSWER) / 4) * 2 + 40 * 7 * 1 window
    assert est["requests"] == 2
    assert est["completion_tokens"] == -(-len(ANSWER) // 4) * 2 + 40 * 7
    assert est["prompt_tokens"] > 100
    assert est["cost_usd"] == round(est["prompt_tokens"] / 1000 * 0.01 + est["completion_tokens"] / 1000 * 0.03, 8)
    assert out[1]["faithfulness"].status == types.REFUSAL
    totals = metric.corpus_scores(out)
    assert totals["judge_estimated_prompt_tokens"] == est["prompt_tokens"]
    assert totals["judge_estimated_requests"] == 2


def test_cost_from_price_table_and_totals():
    prices = {"scripted-judge": {"input_per_1k": 1.0, "output_per_1k": 2.0}}
    metric, p = faith({"decompose": CLAIMS, "verify": VERDICTS}, prices=prices)
    out = metric.score([SAMPLE, SAMPLE])
    u = out[0]["faithfulness"].details["usage"]
    assert u["cost_usd"] == round(u["prompt_tokens"] / 1000 + 2 * u["completion_tokens"] / 1000, 8)
    totals = metric.corpus_scores(out)
    assert totals["judge_requests"] == 4 and totals["judge_cost_usd"] == pytest.approx(2 * u["cost_usd"])
    assert totals["judge_prompt_tokens"] == sum(len(c) // 4 for _, c in p.calls)
    assert metric.runtime.total.requests == 4 and metric.runtime.total.prompt_tokens == totals["judge_prompt_tokens"]


def test_cache_makes_a_rerun_free(tmp_path):
    first_metric, _ = faith({"decompose": CLAIMS, "verify": VERDICTS}, cache=True, cache_dir=str(tmp_path))
    first = first_metric.score([SAMPLE])[0]["faithfulness"]
    second_metric, p2 = faith({"decompose": CLAIMS, "verify": VERDICTS}, cache=True, cache_dir=str(tmp_path))
    second = second_metric.score([SAMPLE])[0]["faithfulness"]
    assert p2.calls == [] and second.value == first.value == 0.5
    assert second.details["verdicts"] == first.details["verdicts"]
    assert second.details["usage"] == {"requests": 0, "cached_requests": 2, "prompt_tokens": 0,
                                       "completion_tokens": 0, "cost_usd": None}


def test_score_inside_a_running_loop():
    metric, _ = faith({"decompose": CLAIMS, "verify": VERDICTS})

    async def main():
        return metric.score([SAMPLE])

    assert asyncio.run(main())[0]["faithfulness"].value == 0.5


def test_a_provider_bug_does_not_lose_the_sample():
    metric, _ = faith({"decompose": lambda messages: 1 / 0, "verify": VERDICTS})
    out = metric.score([SAMPLE, SAMPLE])
    assert len(out) == 2 and all(o["faithfulness"].status == types.JUDGE_ERROR for o in out)
    assert out[0]["faithfulness"].reason == ("decompose call failed after 1 request(s): "
                                             "ZeroDivisionError: division by zero")


def test_evaluate_integration(tmp_path):
    from genevals.api import evaluate

    rows = [{"id": str(i), "answer": ANSWER if i else "I don't know.", "question": "q",
             "contexts": [c.text for c in CONTEXTS]} for i in range(3)]
    p = ScriptedProvider({"decompose": CLAIMS, "verify": VERDICTS})
    res = evaluate(rows, ["faithfulness"], judge=JudgeConfig(provider=p, cache=False), out_dir=tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted((r["id"], r["metrics"]["faithfulness"]["status"], r["metrics"]["faithfulness"]["value"])
                  for r in lines) == [("0", "refusal", None), ("1", "ok", 0.5), ("2", "ok", 0.5)]
    summary = res.summary()
    assert summary["corpus"]["default"]["judge_requests"] == 4
    assert summary["signatures"]["faithfulness"].startswith("faithfulness|backend:scripted|model:scripted-judge|")


def test_signature_and_cheap_construction(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    m = Faithfulness()  # builds no model, imports no llama_cpp
    assert m.runtime.backend == "llamacpp" and "warning:tiny-base-model-smoke-run-only" in m.signature()
    assert m.worked_example is False and "example:no" in m.signature()  # the tiny model copies the example
    assert re.search(r"\|prompt:[0-9a-f]{12}\|", m.signature())
    assert "budget:1536" in m.signature()  # a 4096-token llama.cpp window: 4096 // 2 - 512
    m = Faithfulness(JudgeConfig(base_url="http://user:pw@127.0.0.1:9/v1?key=abc", model="m", api_key="sk-secret"))
    sig = m.signature()
    assert m.runtime.backend == "openai" and "base_url:http://127.0.0.1:9/v1|" in sig
    assert "sk-secret" not in sig and "pw" not in sig and "abc" not in sig and "warning" not in sig
    assert "budget:6000" in sig
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert Faithfulness().runtime.backend == "openai"


def test_worked_example_can_be_left_out():
    metric, p = faith({"decompose": CLAIMS, "verify": VERDICTS}, worked_example=False)
    assert metric.score([SAMPLE])[0]["faithfulness"].value == 0.5
    assert all("Varnholt" not in c and '"quote": "..."' not in c for _, c in p.calls)
    assert "example:no" in metric.signature()
    with_example, p2 = faith({"decompose": CLAIMS, "verify": VERDICTS})
    with_example.score([SAMPLE])
    assert "example:yes" in with_example.signature()
    assert "Varnholt" in p2.calls[0][1] and '"quote": "..."' in p2.calls[1][1]
