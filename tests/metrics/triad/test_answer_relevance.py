"""answer_relevance (LLM judge) through the packaged ScriptedProvider: arithmetic, spans, statuses, one call."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.triad.answer_relevance import AnswerRelevance
from genevals.types import Sample

QUESTION = "When does the library open on Saturdays, and is there a late-return fine?"
ANSWER = "It opens at 10 am on Saturdays. The building dates from 1890."  # 61 characters


def judged(reply, **config):
    provider = ScriptedProvider({"answer_relevance": reply})
    config.setdefault("cache", False)
    return AnswerRelevance(JudgeConfig(provider=provider, **config)), provider


def test_coverage_times_on_topic_share_by_hand():
    reply = {"parts": [{"part": "Saturday opening", "answered": True}, {"part": "late fine", "answered": False}],
             "off_topic": ["The building dates from 1890."], "reason": "half answered, one aside"}
    metric, provider = judged(reply)
    r = metric.score([Sample("s", ANSWER, QUESTION)])[0]["answer_relevance"]
    # coverage 1/2; off-topic: ANSWER[32:61] is 29 of 61 characters -> 0.5 * (1 - 29/61)
    assert ANSWER[32:61] == "The building dates from 1890."
    assert r.status == "ok" and r.value == pytest.approx(0.5 * (1 - 29 / 61))
    assert r.details["off_topic"] == [{"text": "The building dates from 1890.", "spans": [[32, 61]], "located": True}]
    assert r.details["unanswered"] == ["late fine"] and r.details["coverage"] == 0.5
    assert provider.count("answer_relevance") == 1 and len(provider.calls) == 1


def test_unlocated_off_topic_excerpts_are_listed_not_counted():
    reply = {"parts": [{"part": "x", "answered": True}], "off_topic": ["words the answer never says"], "reason": ""}
    r = judged(reply)[0].score([Sample("s", ANSWER, QUESTION)])[0]["answer_relevance"]
    assert r.value == 1.0 and r.details["off_topic"][0]["located"] is False


@pytest.mark.parametrize("sample,status", [
    (Sample("e", "  ", QUESTION), types.EMPTY_ANSWER),
    (Sample("r", "I don't know based on the provided documents.", QUESTION), types.REFUSAL),
    (Sample("q", ANSWER, ""), "no_question"),
])
def test_unscorable_answers_make_no_call(sample, status):
    metric, provider = judged({})
    r = metric.score([sample])[0]["answer_relevance"]
    assert r.status == status and r.value is None and r.reason and provider.calls == []


def test_unreadable_reply_is_a_parse_error_with_the_transcript_after_one_call():
    metric, provider = judged("no json here")
    r = metric.score([Sample("s", ANSWER, QUESTION)])[0]["answer_relevance"]
    assert r.status == types.PARSE_ERROR and r.details["transcript"][0]["reply"] == "no json here"
    assert len(provider.calls) == 1
    r = judged({"parts": [], "off_topic": [], "reason": ""})[0].score([Sample("s", ANSWER, QUESTION)])[0]
    assert r["answer_relevance"].status == types.PARSE_ERROR


def test_signature_names_the_variant_and_prompt_hash():
    from genevals.prompt_render import prompt_version

    sig = judged({})[0].signature()
    assert sig.startswith("answer_relevance|variant:llm|backend:scripted") and prompt_version("answer_relevance") in sig


def test_dry_run_estimates_and_calls_nothing():
    metric, provider = judged({}, dry_run=True)
    r = metric.score([Sample("s", ANSWER, QUESTION)])[0]["answer_relevance"]
    assert r.status == types.DRY_RUN and provider.calls == []
    assert r.details["usage"]["estimated_requests"] == 1 and r.details["usage"]["estimated_prompt_tokens"] > 20


def test_the_cache_key_holds_the_prompt_hash(tmp_path):
    reply = {"parts": [{"part": "x", "answered": True}], "off_topic": [], "reason": ""}
    metric, _ = judged(reply, cache=True, cache_dir=str(tmp_path))
    metric.score([Sample("s", ANSWER, QUESTION)])
    again, provider2 = judged(reply, cache=True, cache_dir=str(tmp_path))
    r = again.score([Sample("s", ANSWER, QUESTION)])[0]["answer_relevance"]
    assert provider2.calls == [] and r.details["usage"]["cached_requests"] == 1
    # another prompt version is another key: the cached reply is not reused
    again.runtime.prompt_version = "0" * 12
    again.runtime._client = None
    r = again.score([Sample("s", ANSWER, QUESTION)])[0]["answer_relevance"]
    assert len(provider2.calls) == 1 and r.details["usage"]["requests"] == 1
