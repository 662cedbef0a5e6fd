"""The faithfulness and rubric pipelines driven by a provider that returns scripted replies.

Checks the verdict-to-score arithmetic, every edge status, span and quote bookkeeping, repair re-asks,
context windows, the cache and the dry run. No network, no model.
"""
from __future__ import annotations

import asyncio
import json
import re

import pytest

from genevals import types
from genevals.judge.client import Completion, PermanentError, TransientError, Usage
from genevals.metrics.faithfulness import Faithfulness, split_windows
from genevals.metrics.rubric import Rubric
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


class Scripted:
    """A provider whose reply depends on which prompt it gets; counts and keeps every request."""

    backend = "scripted"
    model = "scripted-judge"
    base_url = None

    def __init__(self, decompose=None, verify=None, rubric=None):
        self.replies = {"decompose": decompose, "verify": verify, "rubric": rubric}
        self.calls: list[tuple[str, str]] = []

    @staticmethod
    def kind(content: str) -> str:
        if "split an answer into atomic claims" in content:
            return "decompose"
        if "check claims against numbered context passages" in content:
            return "verify"
        return "rubric"

    async def complete(self, messages, schema, params):
        content = messages[0]["content"]
        kind = self.kind(content)
        self.calls.append((kind, messages[-1]["content"]))
        reply = self.replies[kind]
        n = sum(1 for k, _ in self.calls if k == kind)
        if isinstance(reply, list):
            reply = reply[min(n - 1, len(reply) - 1)]
        if callable(reply):
            reply = reply(messages)
        if isinstance(reply, Exception):
            raise reply
        if not isinstance(reply, str):
            reply = json.dumps(reply)
        return Completion(text=reply, usage=Usage(len(content) // 4, len(reply) // 4))

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.calls if k == kind)


def faith(provider, **kw):
    kw.setdefault("cache", False)
    kw.setdefault("backoff_base", 0.001)
    return Faithfulness(provider=provider, **kw)


def test_arithmetic_spans_and_quotes():
    p = Scripted(CLAIMS, VERDICTS)
    out = faith(p).score([SAMPLE])[0]
    f, c, u = out["faithfulness"], out["contradiction_rate"], out["unverifiable_rate"]
    assert (f.status, f.value, c.value, u.value) == ("ok", 0.5, 0.25, 0.25)
    assert p.count("decompose") == 1 and p.count("verify") == 1  # 2 calls per answer
    d = f.details
    assert [cl["located"] for cl in d["claims"]] == [True] * 4
    for cl in d["claims"]:
        for s, e in cl["spans"]:
            assert 0 <= s < e <= len(ANSWER)
    assert ANSWER[slice(*d["claims"][1]["spans"][0])] == "She won the Nobel Prize in Physics in 1903"
    v = {x["claim_index"]: x for x in d["verdicts"]}
    assert v[0]["context_index"] == 0 and v[0]["quote_found"]
    assert CONTEXTS[0].text[slice(*v[0]["quote_span"])] == "born in Warsaw"
    assert v[3]["label"] == "contradicted" and CONTEXTS[1].text[slice(*v[3]["quote_span"])] == "She died in 1934, aged 66."
    assert v[2]["quote_span"] is None and not v[2]["quote_found"]
    assert d["unlocated_claims"] == 0 and d["judge"]["backend"] == "scripted"
    assert d["usage"]["requests"] == 2 and d["usage"]["prompt_tokens"] > 0
    assert "transcript" not in d and "warning" not in d
    assert set(d["judge"]) == {"backend", "model", "base_url", "prompt_version"}
    json.dumps(f.to_dict())  # the results file can hold it


def test_missing_verdict_is_reasked_once_then_unverifiable_never_supported():
    partial = {"verdicts": VERDICTS["verdicts"][:2] + [{"id": 9, "context": 1, "quote": "", "label": "supported",
                                                        "reason": "wrong id"}]}
    p = Scripted(CLAIMS, [partial, {"verdicts": []}])
    out = faith(p).score([SAMPLE])[0]
    f = out["faithfulness"]
    assert p.count("verify") == 2
    reask = [c for k, c in p.calls if k == "verify"][1]
    claims_part = reask.split("Claims:")[1]
    assert "3. Marie Curie discovered polonium." in claims_part and "4. Marie Curie lived" in claims_part
    assert "1. " not in claims_part and "2. " not in claims_part  # only the missing ids
    assert f.value == 0.5 and out["unverifiable_rate"].value == 0.5 and out["contradiction_rate"].value == 0
    missing = [v for v in f.details["verdicts"] if v["missing"]]
    assert [v["claim_index"] for v in missing] == [2, 3] and all(v["label"] == "unverifiable" for v in missing)
    assert any("unknown claim id 9" in i for i in f.details["issues"])
    assert f.details["counts"]["missing"] == 2


def test_reask_fills_the_gap():
    p = Scripted(CLAIMS, [{"verdicts": VERDICTS["verdicts"][:3]}, {"verdicts": VERDICTS["verdicts"][3:]}])
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.value == 0.5 and not any(v["missing"] for v in f.details["verdicts"])


def test_truncated_verify_reply_is_salvaged():
    text = json.dumps(VERDICTS)
    cut = text[: text.index('{"id": 4') + 20]  # cut inside the 4th verdict
    p = Scripted(CLAIMS, [cut, {"verdicts": [VERDICTS["verdicts"][3]]}])
    out = faith(p).score([SAMPLE])[0]
    assert out["faithfulness"].value == 0.5 and out["contradiction_rate"].value == 0.25
    assert any("truncated" in i for i in out["faithfulness"].details["issues"])


@pytest.mark.parametrize("answer,status", [
    ("", types.EMPTY_ANSWER),
    ("I don't know.", types.REFUSAL),
    ("I cannot answer this based on the context provided.", types.REFUSAL),
    ("Unable to answer based on given passages.", types.REFUSAL),
])
def test_statuses_decided_before_any_call(answer, status):
    p = Scripted(CLAIMS, VERDICTS)
    out = faith(p).score([Sample(id="x", answer=answer, contexts=CONTEXTS)])[0]
    assert {r.status for r in out.values()} == {status}
    assert all(r.value is None and r.reason for r in out.values())
    assert p.calls == []


def test_empty_context():
    p = Scripted(CLAIMS, VERDICTS)
    for contexts in ((), (Context(text="  ", rank=1),)):
        out = faith(p).score([Sample(id="x", answer=ANSWER, contexts=contexts)])[0]
        assert out["faithfulness"].status == types.NO_CONTEXT
    assert p.calls == []


def test_answer_with_a_claim_after_a_disclaimer_is_not_a_refusal():
    answer = "The context does not mention her height, but Marie Curie was born in Warsaw."
    p = Scripted({"claims": [CLAIMS["claims"][0]]}, {"verdicts": [VERDICTS["verdicts"][0]]})
    f = faith(p).score([Sample(id="x", answer=answer, contexts=CONTEXTS)])[0]["faithfulness"]
    assert f.status == "ok" and f.value == 1.0


def test_no_claims():
    p = Scripted({"claims": []}, VERDICTS)
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.NO_CLAIMS and p.count("verify") == 0


def test_unlocated_and_example_copies_are_flagged_and_not_scored():
    claims = {"claims": CLAIMS["claims"][:2] + [
        {"claim": "Marie Curie invented the telephone.", "source": "She invented the telephone"},
        {"claim": "The Varnholt Bridge opened in 1931.", "source": "Marie Curie was born in Warsaw"},
        {"claim": "Quantum chromodynamics governs gluon confinement.", "source": "She discovered polonium"},
    ]}
    p = Scripted(claims, {"verdicts": VERDICTS["verdicts"][:2]})
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == "ok" and f.value == 1.0
    by_index = {c["index"]: c for c in f.details["claims"]}
    assert [by_index[i]["located"] for i in range(5)] == [True, True, False, False, False]
    assert "not found" in by_index[2]["note"]
    assert "example" in by_index[3]["note"]
    assert "invented" in by_index[4]["note"]
    assert f.details["unlocated_claims"] == 3
    verify_prompt = [c for k, c in p.calls if k == "verify"][0].split("Claims:")[1]
    assert "telephone" not in verify_prompt and "Varnholt" not in verify_prompt
    assert {v["claim_index"] for v in f.details["verdicts"]} == {0, 1}


def test_all_claims_unlocated_is_no_claims():
    p = Scripted({"claims": [{"claim": "The Varnholt Bridge spans the river Elde.", "source": "It spans the river Elde"}]},
                 VERDICTS)
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.NO_CLAIMS and "none could be located" in f.reason
    assert f.details["unlocated_claims"] == 1 and p.count("verify") == 0


def test_fuzzy_and_multi_part_sources():
    claims = {"claims": [
        {"claim": "Marie Curie won the Nobel Prize in Physics in 1903.",
         "source": "she  won the nobel prize in physics in 1903."},  # case/space differences
        {"claim": "Marie Curie was born in Warsaw and discovered polonium.",
         "source": "born in Warsaw ... discovered polonium"},
        {"claim": "Marie Curie lived to be 120 years old.", "source": "She lived to be 120 yeras old"},  # typo
    ]}
    p = Scripted(claims, {"verdicts": [{"id": i, "context": 0, "quote": "", "label": "unverifiable", "reason": ""}
                                       for i in (1, 2, 3)]})
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    c = f.details["claims"]
    assert all(x["located"] for x in c)
    assert len(c[1]["spans"]) == 2 and ANSWER[slice(*c[1]["spans"][1])] == "discovered polonium"
    assert f.value == 0.0 and f.status == "ok"


def test_quote_not_in_context_is_flagged_and_wrong_context_corrected():
    verdicts = {"verdicts": [
        {"id": 1, "context": 2, "quote": "born in  Warsaw", "label": "supported", "reason": "r"},  # in context 1
        {"id": 2, "context": 2, "quote": "won the Nobel Prize twice", "label": "supported", "reason": "r"},
        {"id": 3, "context": 7, "quote": "", "label": "unverifiable", "reason": "r"},
        {"id": 4, "context": 2, "quote": "aged 66", "label": "contradicted", "reason": "r"},
    ]}
    f = faith(Scripted(CLAIMS, verdicts)).score([SAMPLE])[0]["faithfulness"]
    v = f.details["verdicts"]
    assert v[0]["context_index"] == 0 and v[0]["quote_found"] and "context 1" in v[0]["reason"]
    assert CONTEXTS[0].text[slice(*v[0]["quote_span"])] == "born in Warsaw"
    assert not v[1]["quote_found"] and v[1]["quote_span"] is None and v[1]["label"] == "supported"
    assert v[2]["context_index"] is None


def test_decompose_parse_error_keeps_transcript():
    p = Scripted(["Sure! Here are the claims: Marie Curie ...", "still not json"], VERDICTS)
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.PARSE_ERROR and f.value is None
    assert [t["reply"] for t in f.details["transcript"]] == ["Sure! Here are the claims: Marie Curie ...",
                                                              "still not json"]
    assert p.count("decompose") == 2 and p.count("verify") == 0


def test_decompose_repair_succeeds():
    p = Scripted(["not json", CLAIMS], VERDICTS)
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == "ok" and f.value == 0.5
    assert any("repaired" in i for i in f.details["issues"])
    assert f.details["usage"]["requests"] == 3


def test_verify_parse_error():
    p = Scripted(CLAIMS, ["<html>oops</html>", "[1, 2"])
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.PARSE_ERROR and len(f.details["claims"]) == 4
    assert "<html>oops</html>" in [t.get("reply") for t in f.details["transcript"]]


def test_judge_errors_are_typed_and_retries_bounded():
    p = Scripted(PermanentError("HTTP 401: bad key"), VERDICTS)
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.JUDGE_ERROR and "401" in f.reason and p.count("decompose") == 1
    p = Scripted(TransientError("HTTP 503", retry_after=0.0), VERDICTS)
    f = faith(p, max_retries=2).score([SAMPLE])[0]["faithfulness"]
    assert f.status == types.JUDGE_ERROR and "3 request(s)" in f.reason and p.count("decompose") == 3
    assert f.details["usage"]["requests"] == 3 and f.details["transcript"][0]["error"]


def test_transient_then_success():
    state = {"n": 0}

    def flaky(messages):
        state["n"] += 1
        return TransientError("HTTP 429", retry_after=0.0) if state["n"] < 3 else json.dumps(CLAIMS)

    p = Scripted(flaky, VERDICTS)
    f = faith(p).score([SAMPLE])[0]["faithfulness"]
    assert f.status == "ok" and f.details["usage"]["requests"] == 4  # 3 decompose tries + 1 verify


def test_context_windows_take_the_best_verdict():
    filler = " ".join(f"Sentence {i} talks about unrelated gardening topics." for i in range(40))
    ctx = (Context(text=filler + " Marie Curie was born in Warsaw.", rank=1),
           Context(text="Marie Curie was born in Paris, some say, though Warsaw records exist. " + filler, rank=2))
    windows = split_windows(ctx, 400 * 4)
    assert len(windows) >= 2
    for w in windows:  # pieces cover each context exactly, in order
        for piece in w.pieces:
            assert 0 <= piece.start < piece.end <= len(ctx[piece.context_index].text)

    def verify(messages):
        content = messages[0]["content"]
        passages = content.split("Context passages:")[1].split("Claims:")[0]
        if "born in Warsaw." in passages:
            return {"verdicts": [{"id": 1, "context": 1, "quote": "Marie Curie was born in Warsaw.",
                                  "label": "supported", "reason": "r"}]}
        if "born in Paris" in passages:
            return {"verdicts": [{"id": 1, "context": 2, "quote": "Marie Curie was born in Paris",
                                  "label": "contradicted", "reason": "r"}]}
        return {"verdicts": [{"id": 1, "context": 0, "quote": "", "label": "unverifiable", "reason": "r"}]}

    p = Scripted({"claims": [CLAIMS["claims"][0]]}, verify)
    f = faith(p, context_token_budget=400).score([Sample(id="w", answer=ANSWER, contexts=ctx)])[0]["faithfulness"]
    assert p.count("verify") >= 2 and f.value == 1.0
    v = f.details["verdicts"][0]
    assert v["label"] == "supported" and v["context_index"] == 0
    assert ctx[0].text[slice(*v["quote_span"])] == "Marie Curie was born in Warsaw."


def test_dry_run_makes_no_calls():
    p = Scripted(CLAIMS, VERDICTS)
    m = faith(p, dry_run=True, prices={"scripted-judge": {"input_per_1k": 0.01, "output_per_1k": 0.03}})
    out = m.score([SAMPLE, Sample(id="r", answer="I don't know.", contexts=CONTEXTS)])
    assert p.calls == []
    f = out[0]["faithfulness"]
    assert f.status == "dry_run" and "4 characters per token" in f.details["dry_run"]["method"]
    assert f.details["dry_run"]["prompt_tokens"] > 100 and f.details["dry_run"]["cost_usd"] > 0
    assert out[1]["faithfulness"].status == types.REFUSAL
    totals = m.corpus_scores(out)
    assert totals["judge_estimated_prompt_tokens"] == f.details["dry_run"]["prompt_tokens"]


def test_cost_from_price_table_and_totals():
    prices = {"scripted-judge": {"input_per_1k": 1.0, "output_per_1k": 2.0}}
    m = faith(Scripted(CLAIMS, VERDICTS), prices=prices)
    out = m.score([SAMPLE, SAMPLE])
    u = out[0]["faithfulness"].details["usage"]
    assert u["cost_usd"] == pytest.approx(u["prompt_tokens"] / 1000 + 2 * u["completion_tokens"] / 1000)
    totals = m.corpus_scores(out)
    assert totals["judge_requests"] == 4 and totals["judge_cost_usd"] == pytest.approx(2 * u["cost_usd"])
    assert m.runtime.total.requests == 4


def test_cache_makes_a_rerun_free(tmp_path):
    p = Scripted(CLAIMS, VERDICTS)
    first = faith(p, cache=True, cache_dir=str(tmp_path)).score([SAMPLE])[0]["faithfulness"]
    p2 = Scripted(CLAIMS, VERDICTS)
    second = faith(p2, cache=True, cache_dir=str(tmp_path)).score([SAMPLE])[0]["faithfulness"]
    assert p2.calls == [] and second.value == first.value
    assert second.details["usage"]["requests"] == 0 and second.details["usage"]["cached_requests"] == 2


def test_score_inside_a_running_loop():
    async def main():
        return faith(Scripted(CLAIMS, VERDICTS)).score([SAMPLE])

    assert asyncio.run(main())[0]["faithfulness"].value == 0.5


def test_a_provider_bug_does_not_lose_the_sample():
    p = Scripted(lambda m: 1 / 0, VERDICTS)
    out = faith(p).score([SAMPLE, SAMPLE])
    assert len(out) == 2 and all(o["faithfulness"].status == types.JUDGE_ERROR for o in out)
    assert "ZeroDivisionError" in out[0]["faithfulness"].reason


def test_runner_integration(tmp_path):
    from genevals.runner import evaluate

    rows = [{"id": str(i), "answer": ANSWER if i else "I don't know.", "question": "q",
             "contexts": [c.text for c in CONTEXTS]} for i in range(3)]
    p = Scripted(CLAIMS, VERDICTS)
    res = evaluate(rows, ["faithfulness"], options={"faithfulness": {"provider": p, "cache": False}},
                   out_dir=tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["metrics"]["faithfulness"]["status"] for r in lines] == ["refusal", "ok", "ok"]
    summary = res.summary()
    assert summary["corpus"]["default"]["judge_requests"] == 4
    assert "faithfulness|backend:scripted" in summary["signatures"]["faithfulness"]


# -- rubric ---------------------------------------------------------------------------------------------

RUBRIC = {"scores": {"coherence": {"reason": "ok", "score": 5}, "relevance": {"reason": "ok", "score": 4},
                     "fluency": {"reason": "ok", "score": 3}, "coverage": {"reason": "ok", "score": 1}}}


def rubric(provider, **kw):
    kw.setdefault("cache", False)
    return Rubric(provider=provider, **kw)


def test_rubric_scores_normalised():
    p = Scripted(rubric=RUBRIC)
    out = rubric(p).score([SAMPLE])[0]
    assert {k: v.value for k, v in out.items()} == {"rubric_coherence": 1.0, "rubric_relevance": 0.75,
                                                    "rubric_fluency": 0.5, "rubric_coverage": 0.0}
    assert out["rubric_relevance"].details["score"] == 4 and p.count("rubric") == 1
    assert "rubric.md" not in p.calls[0][1] and "coverage:" in p.calls[0][1]


def test_rubric_custom_criteria_and_reask_for_missing():
    replies = [{"scores": {"citation": {"reason": "r", "score": 2}, "coherence": {"reason": "r", "score": 9}}},
               {"scores": {"coherence": {"reason": "r", "score": 4}}}]
    p = Scripted(rubric=replies)
    m = rubric(p, criteria={"citation": "The answer cites its sources."})
    out = m.score([SAMPLE])[0]
    assert set(out) == {"rubric_coherence", "rubric_relevance", "rubric_fluency", "rubric_coverage",
                        "rubric_citation"}
    assert out["rubric_citation"].value == 0.25 and out["rubric_coherence"].value == 0.75
    assert out["rubric_fluency"].status == types.PARSE_ERROR and out["rubric_fluency"].value is None
    reask = p.calls[1][1]
    assert "- coherence:" in reask and "- citation:" not in reask  # only what was missing
    only = rubric(Scripted(rubric={"scores": {"citation": {"reason": "r", "score": 5}}}),
                  criteria={"citation": "The answer cites its sources."}, default_criteria=False)
    assert only.output_names() == ["rubric_citation"]
    assert only.score([SAMPLE])[0]["rubric_citation"].value == 1.0
    with pytest.raises(ValueError):
        Rubric(criteria={"Bad Name": "x"})


def test_rubric_errors():
    out = rubric(Scripted(rubric=["nope", "nope"])).score([SAMPLE])[0]
    assert {r.status for r in out.values()} == {types.PARSE_ERROR}
    out = rubric(Scripted(rubric=PermanentError("HTTP 400: nope"))).score([SAMPLE])[0]
    assert {r.status for r in out.values()} == {types.JUDGE_ERROR}
    assert out["rubric_coherence"].details["transcript"][0]["error"]
    out = rubric(Scripted(rubric=RUBRIC)).score([Sample(id="e", answer=" ", contexts=CONTEXTS)])[0]
    assert {r.status for r in out.values()} == {types.EMPTY_ANSWER}


def test_signature_and_cheap_construction(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    m = Faithfulness()  # builds no model, imports no llama_cpp
    assert m.runtime.backend == "llamacpp" and "warning:" in m.signature()
    assert re.search(r"prompt:[0-9a-f]{12}", m.signature())
    m = Faithfulness(base_url="http://user:pw@127.0.0.1:9/v1?key=abc", model="m", api_key="sk-secret")
    assert m.runtime.backend == "openai" and "sk-secret" not in m.signature() and "pw" not in m.signature()
    assert "abc" not in m.signature() and "warning" not in m.signature()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert Faithfulness().runtime.backend == "openai"


def test_worked_example_can_be_left_out():
    p = Scripted(CLAIMS, VERDICTS)
    m = faith(p, worked_example=False)
    assert m.score([SAMPLE])[0]["faithfulness"].value == 0.5
    assert all("Varnholt" not in c and '"quote": "..."' not in c for _, c in p.calls)
    assert "example:no" in m.signature() and "example:yes" in faith(p).signature()
    p2 = Scripted(CLAIMS, VERDICTS)
    faith(p2).score([SAMPLE])
    assert "Varnholt" in p2.calls[0][1]
