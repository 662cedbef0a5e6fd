"""The cascade: the local grounding checker settles the answers it is sure of, the LLM judge (a real Faithfulness
metric answered by the packaged ScriptedProvider) the rest; settled answers go out first."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import PermanentError, TransientError
from genevals.grounding.domain import DOMAIN
from genevals.metrics.faithfulness.cascade import Cascade
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.metrics.faithfulness.grounding import Grounding
from genevals.types import Context, MetricResult, Sample
from support.judge_scripts import answer_of, label_claims, one_claim_per_answer

CTX = "The Harbour Bridge opened in 1932. It is 503 metres long."
CLEAR = "The Harbour Bridge opened in 1932."
UNSURE = "The bridge is a popular place for weddings and concerts."


def _sample(answer: str, sid: str, context: str = CTX) -> Sample:
    return Sample(id=sid, answer=answer, contexts=(Context(text=context, rank=1),))


SAMPLES = [_sample(CLEAR, "clear"), _sample("I don't know.", "refusal"), _sample(UNSURE, "unsure")]


def llm(decompose=None, verify=None) -> tuple[Faithfulness, ScriptedProvider]:
    provider = ScriptedProvider({"decompose": decompose or one_claim_per_answer(),
                                 "verify": verify or label_claims("supported")})
    return Faithfulness(JudgeConfig(provider=provider, cache=False, backoff_base=0.001)), provider


def asked(provider: ScriptedProvider) -> list[str]:
    """The answers the LLM judge was asked to decompose, in order."""
    return [answer_of([{"content": content}]) for kind, content in provider.calls if kind == "decompose"]


@pytest.fixture(scope="module")
def local():
    """The local checker's own results for SAMPLES (the cascade builds its own, the same)."""
    return Grounding().score(SAMPLES)


def test_settle_one_sends_every_scorable_answer_to_the_llm(local):
    judge, provider = llm()
    cascade = Cascade(settle_confidence=1.0, llm=judge)
    results = cascade.score(SAMPLES)
    assert asked(provider) == [CLEAR, UNSURE]  # refusals never go to the LLM
    tags = [r["faithfulness"].details["cascade"] for r in results]
    assert [t["settled_by"] for t in tags] == ["llm", "local", "llm"]
    assert [t["sent_to_llm"] for t in tags] == [True, False, True]
    assert tags[0]["local_confidence"] == local[0]["faithfulness"].details["confidence"]
    assert tags[1]["local_confidence"] is None and tags[0]["settle_confidence"] == 1.0
    # the LLM's verdicts: one supported claim each
    assert [r["faithfulness"].value for r in results] == [1.0, None, 1.0]
    assert results[1]["faithfulness"].status == types.REFUSAL
    assert results[0]["faithfulness"].details["judge"]["backend"] == "scripted"
    totals = cascade.corpus_scores(results)
    assert (totals["cascade_settled_local"], totals["cascade_sent_to_llm"]) == (1, 2)
    assert totals["judge_requests"] == 4  # decompose + verify for each of the 2 answers sent


def test_a_low_bar_settles_everything_locally(local):
    judge, provider = llm()
    # every confidence is at least 0.5; answers declared of the detector's calibrated domain (issue 52, point 21)
    cascade = Cascade(settle_confidence=0.5, domain=DOMAIN, llm=judge)
    results = cascade.score(SAMPLES)
    assert provider.calls == []
    assert all(r["faithfulness"].details["cascade"]["settled_by"] == "local" for r in results)
    assert [r["faithfulness"].value for r in results] == [r["faithfulness"].value for r in local]
    totals = cascade.corpus_scores(results)
    assert (totals["cascade_settled_local"], totals["cascade_sent_to_llm"]) == (3, 0)


def test_a_failing_llm_falls_back_to_the_local_verdict(local):
    judge, _ = llm(decompose=PermanentError("HTTP 500: down"))
    [result] = Cascade(settle_confidence=1.0, llm=judge).score(SAMPLES[:1])
    tag = result["faithfulness"].details["cascade"]
    assert (tag["settled_by"], tag["sent_to_llm"]) == ("local", True)
    assert tag["fallback"] == "LLM judge judge_error: decompose call failed after 1 request(s): HTTP 500: down"
    assert result["faithfulness"].value == local[0]["faithfulness"].value
    assert result["faithfulness"].details["judge"]["backend"] == "local-grounding"
    # fallback "none": the LLM's unscored result stands
    judge, _ = llm(decompose=PermanentError("HTTP 500: down"))
    [result] = Cascade(settle_confidence=1.0, fallback="none", llm=judge).score(SAMPLES[:1])
    assert result["faithfulness"].status == types.JUDGE_ERROR
    assert result["faithfulness"].details["cascade"]["settled_by"] == "llm"
    assert "fallback" not in result["faithfulness"].details["cascade"]


def test_settings():
    for bad in ({"settle_confidence": 0.2}, {"settle_confidence": 1.5}, {"fallback": "maybe"}):
        with pytest.raises(ValueError):
            Cascade(**bad)
    provider = ScriptedProvider({})
    cascade = Cascade(JudgeConfig(provider=provider, concurrency=6), grounding={"batch_size": 8}, max_claims=3)
    assert cascade.concurrency == 6 and cascade.local.batch_size == 8
    assert isinstance(cascade.llm, Faithfulness) and cascade.llm.max_claims == 3  # built lazily, once
    assert cascade.llm is cascade.llm and cascade.llm.judge.provider is provider
    sig = cascade.signature()
    assert sig.startswith("cascade|settle:0.9|domain:none|fallback:local|local:grounding;model:all-MiniLM-L6-v2-first3;")
    assert Cascade(domain=DOMAIN).signature().startswith(f"cascade|settle:0.9|domain:{DOMAIN}|")
    assert "|llm:faithfulness;backend:scripted;model:scripted-judge;" in sig and "max_claims:3" in sig


def test_settled_answers_go_out_first_and_each_llm_verdict_once():
    """The refusal and the empty answer are final locally and emitted before the LLM is asked. The LLM's
    answers come out as each finishes: "fails" (a permanent error, settled locally by the fallback) before
    "slow", whose first request met a 429 and waited for its retry."""
    slow, failing = "The Harbour Bridge is 503 metres long.", "The Harbour Bridge opened in 1932."
    samples = [_sample("I don't know.", "refusal"), _sample(slow, "slow"), _sample(failing, "fails"),
               _sample("", "empty")]
    emitted: list[int] = []
    outputs: dict[int, dict[str, MetricResult]] = {}
    out_before_asked: list[list[int]] = []
    first_try = one_claim_per_answer(fail={failing: PermanentError("HTTP 500: down")})
    throttled: list[str] = []

    def decompose(messages):
        if not out_before_asked:
            out_before_asked.append(list(emitted))
        if answer_of(messages) == slow and not throttled:
            throttled.append(slow)
            return TransientError("HTTP 429", retry_after=0.0)
        return first_try(messages)

    judge, provider = llm(decompose=decompose)
    cascade = Cascade(settle_confidence=1.0, llm=judge)

    def emit(index: int, out: dict[str, MetricResult]) -> None:
        emitted.append(index)
        outputs[index] = out

    cascade.score_each(samples, emit)
    assert out_before_asked == [[0, 3]]  # the settled answers were out before the judge was asked
    assert emitted == [0, 3, 2, 1]  # then the judge's, in the order it finished them
    settled = {i: outputs[i]["faithfulness"].details["cascade"]["settled_by"] for i in outputs}
    assert settled == {0: "local", 1: "llm", 2: "local", 3: "local"}
    assert outputs[2]["faithfulness"].details["cascade"]["fallback"].startswith("LLM judge judge_error")
    assert outputs[1]["faithfulness"].value == 1.0 and provider.count("decompose") == 3
    # score() gives the same outputs, in input order
    in_order = cascade.score(samples)
    assert [o["faithfulness"].value for o in in_order] == [outputs[i]["faithfulness"].value for i in range(4)]
    assert [o["faithfulness"].status for o in in_order] == [types.REFUSAL, types.OK, types.OK, types.EMPTY_ANSWER]
