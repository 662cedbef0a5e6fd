"""The rubric judge driven by the packaged ScriptedProvider: 1-5 scores as (s - 1) / 4, custom criteria, the
targeted re-ask, typed errors, the dry run and usage."""
from __future__ import annotations

import json

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import PermanentError
from genevals.metrics.rubric.rubric import Rubric
from genevals.types import Context, Sample

SAMPLE = Sample(id="s1", answer="Marie Curie was born in Warsaw.", question="Where was Marie Curie born?",
                contexts=(Context(text="Marie Curie (born in Warsaw in 1867) was a physicist.", rank=1),))
RUBRIC = {"scores": {"coherence": {"reason": "ok", "score": 5}, "relevance": {"reason": "on topic", "score": 4},
                     "fluency": {"reason": "ok", "score": 3}, "coverage": {"reason": "ok", "score": 1}}}
CITATION = {"citation": "The answer cites its sources."}


def rubric(reply, **kw):
    """(metric, provider): Rubric judged by a ScriptedProvider answering ``reply`` to rubric prompts."""
    provider = ScriptedProvider({"rubric": reply})
    config = {k: kw.pop(k) for k in list(kw) if k in JudgeConfig.__dataclass_fields__}
    return Rubric(JudgeConfig(provider=provider, cache=False, **config), **kw), provider


def test_rubric_scores_normalised():
    metric, p = rubric(RUBRIC)
    out = metric.score([SAMPLE])[0]
    # (5-1)/4, (4-1)/4, (3-1)/4, (1-1)/4
    assert {k: v.value for k, v in out.items()} == {"rubric_coherence": 1.0, "rubric_relevance": 0.75,
                                                    "rubric_fluency": 0.5, "rubric_coverage": 0.0}
    relevance = out["rubric_relevance"].details
    assert (relevance["score"], relevance["reason"]) == (4, "on topic")
    assert relevance["criterion"] == "The answer addresses the question (or the task) and stays on topic."
    assert p.count("rubric") == 1
    prompt = p.calls[0][1]
    assert "rubric.md" not in prompt and "- coverage: The answer covers" in prompt
    assert "[1] Marie Curie (born in Warsaw in 1867) was a physicist." in prompt
    # usage sits on the first criterion only, so a system's totals count each request once
    usage = out["rubric_coherence"].details["usage"]
    assert usage == {"requests": 1, "cached_requests": 0, "prompt_tokens": len(prompt) // 4,
                     "completion_tokens": len(json.dumps(RUBRIC)) // 4, "cost_usd": None}
    assert "usage" not in out["rubric_relevance"].details
    assert metric.corpus_scores([out])["rubric_judge_requests"] == 1


def test_rubric_custom_criteria_and_reask_for_missing():
    replies = [{"scores": {"citation": {"reason": "r", "score": 2}, "coherence": {"reason": "r", "score": 9}}},
               {"scores": {"coherence": {"reason": "r", "score": 4}}}]
    metric, p = rubric(replies, criteria=CITATION)
    out = metric.score([SAMPLE])[0]
    assert set(out) == {"rubric_coherence", "rubric_relevance", "rubric_fluency", "rubric_coverage",
                        "rubric_citation"}
    assert out["rubric_citation"].value == 0.25 and out["rubric_coherence"].value == 0.75  # (2-1)/4, (4-1)/4
    assert out["rubric_fluency"].status == types.PARSE_ERROR and out["rubric_fluency"].value is None
    assert out["rubric_fluency"].reason == "no valid 1-5 score for 'fluency' (after one re-ask)"
    assert p.count("rubric") == 2
    reask = p.calls[1][1]
    # only what was missing or out of range (coherence 9) is asked again
    assert "- coherence:" in reask and "- fluency:" in reask and "- citation:" not in reask
    assert any("coherence: missing or out-of-range score" in i for i in out["rubric_coherence"].details["issues"])


def test_rubric_only_custom_criteria():
    metric, _ = rubric({"scores": {"citation": {"reason": "r", "score": 5}}}, criteria=CITATION,
                       default_criteria=False)
    assert metric.output_names() == ["rubric_citation"]
    assert metric.score([SAMPLE])[0]["rubric_citation"].value == 1.0
    assert "criteria:citation|" in metric.signature()


@pytest.mark.parametrize("kwargs", [{"criteria": {"Bad Name": "x"}}, {"criteria": {"ok": "  "}},
                                    {"criteria": {}, "default_criteria": False}])
def test_rubric_rejects_bad_criteria(kwargs):
    with pytest.raises(ValueError):
        Rubric(**kwargs)


def test_rubric_errors():
    metric, p = rubric(["nope", "nope"])
    out = metric.score([SAMPLE])[0]
    assert {r.status for r in out.values()} == {types.PARSE_ERROR} and p.count("rubric") == 2
    assert out["rubric_coherence"].reason == "no reply could be parsed (after one re-ask)"
    assert [t["reply"] for t in out["rubric_coherence"].details["transcript"]] == ["nope", "nope"]

    metric, p = rubric(PermanentError("HTTP 400: nope"))
    out = metric.score([SAMPLE])[0]
    assert {r.status for r in out.values()} == {types.JUDGE_ERROR} and p.count("rubric") == 1
    assert out["rubric_coherence"].reason == "rubric call failed after 1 request(s): HTTP 400: nope"
    assert out["rubric_coherence"].details["transcript"][0]["error"] == "PermanentError: HTTP 400: nope"

    metric, p = rubric(RUBRIC)
    out = metric.score([Sample(id="e", answer=" ", contexts=SAMPLE.contexts)])[0]
    assert {r.status for r in out.values()} == {types.EMPTY_ANSWER} and p.calls == []


def test_rubric_dry_run():
    metric, p = rubric(RUBRIC, dry_run=True)
    out = metric.score([SAMPLE])[0]
    assert p.calls == [] and {r.status for r in out.values()} == {types.DRY_RUN}
    usage = out["rubric_coherence"].details["usage"]
    # 4 criteria: the reply budget is 48 + 90 * 4 = 408 tokens, half of it estimated as used
    assert usage["estimated_requests"] == 1 and usage["estimated_completion_tokens"] == 204
    assert usage["estimated_prompt_tokens"] > 50


def test_rubric_contexts_cut_to_the_budget():
    long = Sample(id="l", answer="An answer.", contexts=(Context(text="a" * 300, rank=1), Context(text="b" * 300, rank=2)))
    metric, p = rubric(RUBRIC, context_token_budget=100)  # 400 characters of context
    out = metric.score([long])[0]
    assert out["rubric_coherence"].details["contexts_truncated"] is True
    prompt = p.calls[0][1]
    assert "[1] " + "a" * 300 in prompt and "[2] " + "b" * 100 + "\n" in prompt and "b" * 101 not in prompt
