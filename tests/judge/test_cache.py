"""The on-disk reply cache, and how the judge client keys and uses it."""
from __future__ import annotations

import asyncio
import hashlib
import json
import pickle

from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.cache import JudgeCache
from genevals.judge.client import JudgeClient
from genevals.judge.protocol import PermanentError
from genevals.judge.retry import RetryPolicy

MESSAGES = [{"role": "user", "content": "Rate this."}]
SCHEMA = {"type": "object"}
PARAMS = {"temperature": 0.0, "seed": 0, "max_tokens": 100}


def test_put_get_len_and_overwrite(tmp_path):
    cache = JudgeCache(tmp_path / "nested" / "cache")
    assert cache.path == tmp_path / "nested" / "cache" / "judge_cache.sqlite" and cache.path.is_file()
    assert len(cache) == 0 and cache.get("k1") is None
    cache.put("k1", {"text": "caf\u00e9 \u2713", "usage": {"prompt_tokens": 3, "completion_tokens": 1}})
    cache.put("k2", {"text": "two"})
    assert len(cache) == 2
    assert cache.get("k1") == {"text": "caf\u00e9 \u2713", "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
    cache.put("k1", {"text": "replaced"})
    assert len(cache) == 2 and cache.get("k1") == {"text": "replaced"}
    cache.close()
    reopened = JudgeCache(tmp_path / "nested" / "cache")  # it is on disk
    assert len(reopened) == 2 and reopened.get("k2") == {"text": "two"}


def test_pickle_round_trip_reopens_the_same_file(tmp_path):
    cache = JudgeCache(tmp_path)
    cache.put("k", {"text": "v"})
    copy = pickle.loads(pickle.dumps(cache))
    assert copy is not cache and copy.path == cache.path
    assert copy.get("k") == {"text": "v"} and len(copy) == 1
    copy.put("k2", {"text": "w"})
    assert cache.get("k2") == {"text": "w"}  # one file, two connections


def client(provider, cache=None, prompt_version="v1", secret=None) -> JudgeClient:
    return JudgeClient(provider, prompt_version=prompt_version, cache=cache, secret=secret,
                       retry=RetryPolicy(max_tries=3, base=0.0))


def test_cache_key_covers_what_changes_the_reply_and_not_the_api_key():
    provider = ScriptedProvider({"other": "x"})
    key = client(provider).cache_key(MESSAGES, SCHEMA, PARAMS)
    payload = {"backend": "scripted", "model": "scripted-judge", "base_url": None, "prompt_version": "v1",
               "params": PARAMS, "schema": SCHEMA, "messages": MESSAGES}
    assert key == hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert client(provider, secret="sk-one").cache_key(MESSAGES, SCHEMA, PARAMS) == key
    assert client(provider, secret="sk-two").cache_key(MESSAGES, SCHEMA, PARAMS) == key
    others = {
        client(provider, prompt_version="v2").cache_key(MESSAGES, SCHEMA, PARAMS),
        client(provider).cache_key(MESSAGES, SCHEMA, {**PARAMS, "temperature": 0.7}),
        client(provider).cache_key(MESSAGES, SCHEMA, {**PARAMS, "max_tokens": 50}),
        client(provider).cache_key(MESSAGES, None, PARAMS),
        client(provider).cache_key([{"role": "user", "content": "Rate that."}], SCHEMA, PARAMS),
        client(ScriptedProvider({}, model="another")).cache_key(MESSAGES, SCHEMA, PARAMS),
    }
    assert key not in others and len(others) == 6


def test_a_second_identical_call_is_served_from_the_cache(tmp_path):
    cache = JudgeCache(tmp_path)
    provider = ScriptedProvider({"other": "the reply"})
    judge = client(provider, cache=cache)
    first = asyncio.run(judge.complete("stage", MESSAGES, SCHEMA, PARAMS))
    assert (first.ok, first.cached, first.attempts, first.reply) == (True, False, 1, "the reply")
    # the scripted provider counts len(prompt) // 4 and len(reply) // 4 tokens: 10 // 4, 9 // 4
    assert (first.completion.usage.prompt_tokens, first.completion.usage.completion_tokens) == (2, 2)
    assert len(cache) == 1 and cache.get(judge.cache_key(MESSAGES, SCHEMA, PARAMS)) == {
        "text": "the reply", "usage": {"prompt_tokens": 2, "completion_tokens": 2}, "finish_reason": None}
    second = asyncio.run(judge.complete("stage", MESSAGES, SCHEMA, PARAMS))
    assert (second.ok, second.cached, second.attempts, second.reply) == (True, True, 0, "the reply")
    assert second.completion.usage == first.completion.usage
    assert len(provider.calls) == 1
    assert second.to_dict() == {"stage": "stage", "attempts": 0, "cached": True, "reply": "the reply"}
    # other parameters: not in the cache
    asyncio.run(judge.complete("stage", MESSAGES, SCHEMA, {**PARAMS, "seed": 1}))
    assert len(provider.calls) == 2 and len(cache) == 2


def test_failures_are_not_cached(tmp_path):
    cache = JudgeCache(tmp_path)
    provider = ScriptedProvider({"other": [PermanentError("HTTP 400: no"), "fine"]})
    judge = client(provider, cache=cache)
    failed = asyncio.run(judge.complete("stage", MESSAGES, SCHEMA, PARAMS))
    assert not failed.ok and len(cache) == 0
    again = asyncio.run(judge.complete("stage", MESSAGES, SCHEMA, PARAMS))
    assert again.ok and not again.cached and again.reply == "fine" and len(provider.calls) == 2
    assert len(cache) == 1
