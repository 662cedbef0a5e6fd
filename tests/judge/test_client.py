"""Retries with backoff, the judge client's typed Call records, per-sample usage and transcripts, redaction."""
from __future__ import annotations

import asyncio

import pytest

from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.client import Call, CallLog, JudgeClient, SampleUsage
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import Completion, PermanentError, TransientError, Usage
from genevals.judge.retry import Attempted, RetryPolicy
from genevals.judge.runtime import JudgeRuntime, public_url

MESSAGES = [{"role": "user", "content": "Rate this."}]
SECRET = "sk-PLANTED-secret-0123456789"


# -- RetryPolicy ---------------------------------------------------------------------------------------------
def test_delays_double_up_to_the_cap():
    policy = RetryPolicy(base=0.5, cap=30.0, jitter=0.0)
    # min(30, 0.5 * 2 ** (k - 1)) for k = 1..7: 0.5, 1, 2, 4, 8, 16, then 32 capped at 30
    assert [policy.delay(k, None) for k in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0]


def test_jitter_adds_at_most_ten_percent():
    policy = RetryPolicy(base=1.0, cap=30.0)
    delays = [policy.delay(3, None) for _ in range(200)]
    assert all(4.0 <= d <= 4.4 for d in delays) and len(set(delays)) > 1


def test_retry_after_is_honoured_and_capped():
    policy = RetryPolicy(base=0.5, cap=30.0)
    assert policy.delay(1, 5.0) == 5.0
    assert policy.delay(4, 0.0) == 0.0
    assert policy.delay(1, 120.0) == 30.0  # the server's wish, capped
    assert 0.5 <= policy.delay(1, -1.0) <= 0.55  # a negative Retry-After is ignored


def run_policy(policy: RetryPolicy, outcomes: list) -> tuple[Attempted, list[float], int]:
    """Run ``policy`` over a call that returns or raises ``outcomes`` in turn; (result, sleeps, calls)."""
    sleeps: list[float] = []
    calls = [0]

    async def call():
        outcome = outcomes[min(calls[0], len(outcomes) - 1)]
        calls[0] += 1
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return asyncio.run(policy.run(call, sleep=sleep)), sleeps, calls[0]


def test_transient_errors_are_retried_up_to_max_tries():
    policy = RetryPolicy(max_tries=3, base=0.5, jitter=0.0)
    error = TransientError("HTTP 503", status=503)
    result, sleeps, calls = run_policy(policy, [error])
    assert (result.value, result.attempts, result.error) == (None, 3, error)
    assert sleeps == [0.5, 1.0] and calls == 3  # a wait between tries, none after the last
    result, sleeps, calls = run_policy(policy, [TransientError("429", retry_after=2.0), "ok"])
    assert (result.value, result.attempts, result.error) == ("ok", 2, None)
    assert sleeps == [2.0] and calls == 2


def test_permanent_errors_and_provider_bugs_are_not_retried():
    policy = RetryPolicy(max_tries=5)
    error = PermanentError("HTTP 401: bad key")
    result, sleeps, calls = run_policy(policy, [error, "never"])
    assert (result.attempts, result.error, sleeps, calls) == (1, error, [], 1)
    result, sleeps, calls = run_policy(policy, [ValueError("bad field"), "never"])
    assert isinstance(result.error, PermanentError) and str(result.error) == "ValueError: bad field"
    assert (result.attempts, sleeps, calls) == (1, [], 1)


# -- JudgeClient and Call ------------------------------------------------------------------------------------
def complete(provider, secret=None, max_tries=3):
    judge = JudgeClient(provider, prompt_version="v", secret=secret, retry=RetryPolicy(max_tries=max_tries, base=0))
    return asyncio.run(judge.complete("verify", MESSAGES, None, {"temperature": 0.0}))


def test_a_call_after_retries():
    provider = ScriptedProvider({"other": [TransientError("HTTP 503", retry_after=0.0),
                                           TransientError("HTTP 503", retry_after=0.0), "fine"]})
    call = complete(provider)
    assert call.ok and not call.cached and call.attempts == 3 and call.reply == "fine"
    assert call.error is None and call.failure is None and len(provider.calls) == 3
    assert call.to_dict() == {"stage": "verify", "attempts": 3, "cached": False, "reply": "fine"}


def test_a_failed_call_is_a_record_not_an_exception():
    provider = ScriptedProvider({"other": TransientError("HTTP 503")})
    call = complete(provider, max_tries=2)
    assert (call.ok, call.completion, call.attempts, call.reply) == (False, None, 2, None)
    assert call.error == "TransientError: HTTP 503" and call.failure == "HTTP 503"
    assert call.to_dict() == {"stage": "verify", "attempts": 2, "cached": False, "error": "TransientError: HTTP 503"}
    # a provider bug (the script has no reply for this prompt) becomes a permanent error, asked once
    call = complete(ScriptedProvider({}))
    assert call.attempts == 1 and call.error == ("PermanentError: KeyError: \"the script has no reply for a "
                                                 "'other' prompt\"")


def test_the_secret_is_redacted_from_every_record():
    echo = ScriptedProvider({"other": [PermanentError(f"Incorrect API key provided: {SECRET}."),
                                       f"your key is {SECRET}"]})
    failed = complete(echo, secret=SECRET)
    assert failed.error == "PermanentError: Incorrect API key provided: ***."
    assert failed.failure == "Incorrect API key provided: ***."
    answered = complete(echo, secret=SECRET)
    assert answered.reply == "your key is ***" and SECRET not in str(answered.to_dict())
    # without a secret nothing is touched
    assert complete(ScriptedProvider({"other": f"x {SECRET}"})).reply == f"x {SECRET}"


class Echoing:
    """A provider whose replies carry the secret in every field a Completion has (issue 34)."""

    backend, model, base_url = "echo", "asked", None

    async def complete(self, messages, schema, params):
        return Completion(f"text {SECRET}", Usage(3, 4), raw={"id": SECRET}, finish_reason=f"stop {SECRET}",
                          model=f"m-{SECRET}")


def test_every_string_of_a_reply_is_redacted_before_it_is_cached_or_counted(tmp_path):
    from genevals.judge.cache import JudgeCache

    cache = JudgeCache(tmp_path)
    judge = JudgeClient(Echoing(), prompt_version="v", secret=SECRET, cache=cache)
    call = asyncio.run(judge.complete("verify", MESSAGES, None, {}))
    assert (call.completion.text, call.completion.model, call.completion.finish_reason, call.completion.raw) == (
        "text ***", "m-***", "stop ***", None)
    assert dict(judge.answered) == {"m-***": 1} and SECRET not in str(call.to_dict())
    cache.close()
    assert SECRET.encode() not in (tmp_path / JudgeCache.FILE).read_bytes()


def test_a_cache_entry_is_redacted_as_read_and_a_malformed_one_is_a_miss(tmp_path):
    """An entry written by an older genevals (the raw model name) or another tool passes the same point."""
    from genevals.judge.cache import JudgeCache

    cache = JudgeCache(tmp_path)
    judge = JudgeClient(ScriptedProvider({"other": "asked again"}), prompt_version="v", secret=SECRET, cache=cache)
    key = judge.cache_key(MESSAGES, None, {})
    cache.put(key, {"text": f"old {SECRET}", "model": SECRET, "finish_reason": SECRET, "usage": {"prompt_tokens": 1}})
    call = asyncio.run(judge.complete("verify", MESSAGES, None, {}))
    assert call.cached and (call.reply, call.completion.model, call.completion.finish_reason) == ("old ***", "***",
                                                                                                  "***")
    for bad in ({"text": 5}, {"text": "x", "usage": {"prompt_tokens": "many"}}, ["text"], {"text": "x", "usage": 3}):
        cache.put(key, bad)
        call = asyncio.run(judge.complete("verify", MESSAGES, None, {}))
        assert call.ok and not call.cached and call.reply == "asked again"
    with cache._lock:  # not JSON at all
        cache._conn.execute("UPDATE replies SET value = ? WHERE key = ?", ("{not json", key))
        cache._conn.commit()
    call = asyncio.run(judge.complete("verify", MESSAGES, None, {}))
    assert call.ok and not call.cached


def test_a_long_error_is_redacted_before_it_is_cut():
    """Cut first, a key across the cut would be left in part, unrecognised."""
    message = "x" * 395 + SECRET
    call = complete(ScriptedProvider({"other": PermanentError(message)}), secret=SECRET)
    assert SECRET[:8] not in call.error and SECRET[:8] not in call.failure and len(call.error) < 450


def test_call_to_dict_keeps_the_finish_reason():
    call = Call("decompose", Completion("{", finish_reason="length"), 1, reply="{")
    assert call.to_dict() == {"stage": "decompose", "attempts": 1, "cached": False, "reply": "{",
                              "finish_reason": "length"}


# -- usage ---------------------------------------------------------------------------------------------------
def test_call_log_usage_and_transcript():
    log = CallLog()
    log.add(Call("decompose", Completion("a", Usage(10, 5)), 2, reply="a"))  # 1 retry + 1 request
    log.add(Call("verify", Completion("b", Usage(7, 3), requests=2), 1, reply="b"))  # json_schema fallback
    log.add(Call("verify-reask", Completion("c", Usage(99, 99), cached=True), 0, reply="c"))
    log.add(Call("verify[window 2]", None, 3, error="TransientError: HTTP 500", failure="HTTP 500"))
    usage = log.usage
    # requests: (2 - 1 + 1) + (1 - 1 + 2) + 0 cached + 3 failed = 7; cached tokens are not counted again
    assert (usage.requests, usage.cached_requests, usage.prompt_tokens, usage.completion_tokens) == (7, 1, 17, 8)
    assert [t["stage"] for t in log.transcript()] == ["decompose", "verify", "verify-reask", "verify[window 2]"]
    assert log.transcript()[2] == {"stage": "verify-reask", "attempts": 0, "cached": True, "reply": "c"}
    assert log.transcript()[3] == {"stage": "verify[window 2]", "attempts": 3, "cached": False,
                                   "error": "TransientError: HTTP 500"}


def test_sample_usage_cost_merge_and_dict():
    usage = SampleUsage(requests=2, cached_requests=1, prompt_tokens=1500, completion_tokens=250)
    prices = {"m": {"input_per_1k": 0.5, "output_per_1k": 2.0}}
    assert usage.cost("m", prices) == 1.25  # 1.5 * 0.5 + 0.25 * 2.0
    assert usage.cost("other", prices) is None and usage.cost("m", None) is None
    assert usage.to_dict("m", prices) == {"requests": 2, "cached_requests": 1, "prompt_tokens": 1500,
                                          "completion_tokens": 250, "cost_usd": 1.25}
    usage.merge(SampleUsage(1, 2, 3, 4))
    assert (usage.requests, usage.cached_requests, usage.prompt_tokens, usage.completion_tokens) == (3, 3, 1503, 254)


# -- the runtime behind a metric -----------------------------------------------------------------------------
def test_runtime_params_redaction_and_public_url(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runtime = JudgeRuntime(JudgeConfig(base_url="http://u:p@h:8/v1?key=q#f", api_key=SECRET, max_tokens=100,
                                       temperature=0.2, seed=7, model="gpt-4o-mini"), "pv")
    assert runtime.backend == "openai" and runtime.base_url == "http://h:8/v1"
    assert runtime.params(400) == {"temperature": 0.2, "seed": 7, "max_tokens": 100}  # capped by max_tokens
    assert runtime.params(40) == {"temperature": 0.2, "seed": 7, "max_tokens": 40}
    assert runtime.redact(f"key {SECRET} here") == "key *** here"
    assert runtime.signature_settings() == {"backend": "openai", "model": "gpt-4o-mini", "base_url": "http://h:8/v1",
                                            "prompt": "pv", "temperature": "0.2", "seed": 7}
    assert public_url(None) is None and public_url("https://api.example.com/v1") == "https://api.example.com/v1"


@pytest.mark.parametrize("retries,tries", [(0, 1), (2, 3)])
def test_runtime_builds_its_client_from_the_config(retries, tries, tmp_path):
    provider = ScriptedProvider({})
    runtime = JudgeRuntime(JudgeConfig(provider=provider, max_retries=retries, backoff_base=0.25, backoff_max=2.0,
                                       concurrency=3, cache_dir=str(tmp_path)), "pv")
    judge = runtime.client()
    assert judge is runtime.client() and judge.provider is provider and judge.concurrency == 3
    assert judge.retry == RetryPolicy(max_tries=tries, base=0.25, cap=2.0)
    assert judge.cache.path == tmp_path / "judge_cache.sqlite"
