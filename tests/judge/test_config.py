"""JudgeConfig: one frozen, validated judge configuration handed whole to every judge-backed metric."""
from __future__ import annotations

import dataclasses

import pytest

from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import DEFAULT_CONTEXT_BUDGET, JudgeConfig, resolve_backend


@pytest.fixture
def no_openai_env(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_defaults(no_openai_env):
    config = JudgeConfig()
    assert (config.backend, config.temperature, config.seed, config.max_tokens, config.timeout) == (
        "auto", 0.0, 0, None, None)
    assert (config.request_timeout, config.reply_cap, config.local_server) == (60.0, None, False)


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:8080/v1", True), ("http://[::1]:8000/v1", True),
    ("http://127.8.0.3/v1", True), ("http://api.localhost/v1", True), ("https://api.openai.com/v1", False),
    ("http://10.0.0.5:8080/v1", False), ("http://localhost.example.com/v1", False), ("http://[::1/v1", False),
])
def test_local_defaults_follow_the_server(no_openai_env, url, local):
    """A judge server on this machine gets 300 s a request and 512 tokens a reply unless they are given."""
    config = JudgeConfig(base_url=url)
    assert config.local_server is local
    assert (config.request_timeout, config.reply_cap) == ((300.0, 512) if local else (60.0, None))
    given = JudgeConfig(base_url=url, timeout=20, max_tokens=64)
    assert (given.request_timeout, given.reply_cap) == (20.0, 64)
    assert not JudgeConfig(backend="llamacpp", base_url=url).local_server  # in process: no server
    assert (config.max_retries, config.backoff_base, config.backoff_max, config.concurrency) == (4, 0.5, 30.0, 4)
    assert (config.cache, config.dry_run, config.context_token_budget, config.options) == (True, False, None, {})


@pytest.mark.parametrize("options,message", [
    ({"backend": "gpt"}, "unknown judge backend 'gpt' (auto, openai, llamacpp, scripted)"),
    ({"concurrency": 0}, "judge concurrency: expected a whole number 1 or more, got 0"),
    ({"n_ctx": 0}, "judge n_ctx: expected a whole number from 512 to 1,048,576, got 0"),
    ({"max_retries": -1}, "judge max_retries: expected a whole number 0 or more, got -1"),
    ({"timeout": 0}, "judge timeout: expected a number above 0, got 0"),
    ({"timeout": -2.5}, "judge timeout: expected a number in [0, inf], got -2.5"),
    ({"context_token_budget": 0}, "judge context_token_budget: expected a whole number 1 or more, got 0"),
    ({"base_url": ""}, "judge base_url: must not be empty (leave it out for the default)"),
    ({"model": "  "}, "judge model: must not be empty (leave it out for the default)"),
    ({"context_token_budget": -5}, "judge context_token_budget: expected a whole number 1 or more, got -5"),
])
def test_bad_values_are_refused(options, message, no_openai_env):
    with pytest.raises(ValueError) as err:
        JudgeConfig.from_options(options)
    assert str(err.value) == message


def test_from_options():
    config = JudgeConfig.from_options({"model": "m", "concurrency": 2, "cache": False})
    assert (config.model, config.concurrency, config.cache) == ("m", 2, False)
    assert JudgeConfig.from_options(None) == JudgeConfig() == JudgeConfig.from_options({})
    with pytest.raises(ValueError) as err:
        JudgeConfig.from_options({"modle": "x", "bogus": 1, "seed": 3})
    assert str(err.value).startswith("judge modle: unknown judge setting (did you mean 'model'?) (settings: backend,")
    with pytest.raises(ValueError, match="expected a whole number 1 or more"):
        JudgeConfig.from_options({"concurrency": 0})


def test_frozen_with_options_and_the_key_kept_out_of_sight():
    config = JudgeConfig(api_key="sk-secret", model="m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.model = "other"  # type: ignore[misc]
    changed = config.with_options(model="other", seed=3)
    assert (changed.model, changed.seed, changed.api_key, config.model) == ("other", 3, "sk-secret", "m")
    assert "sk-secret" not in repr(config)
    assert JudgeConfig(api_key="a") == JudgeConfig(api_key="b")  # the key is no part of what a config is


def test_resolved_backend(no_openai_env, monkeypatch):
    assert JudgeConfig().resolved_backend == "llamacpp"
    assert JudgeConfig(base_url="http://127.0.0.1:1/v1").resolved_backend == "openai"
    assert JudgeConfig(backend="llamacpp", base_url="http://x").resolved_backend == "llamacpp"
    assert JudgeConfig(provider=ScriptedProvider({})).resolved_backend == "scripted"
    with pytest.raises(ValueError):
        resolve_backend("gpt", None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert JudgeConfig().resolved_backend == "openai"


def test_context_budget(no_openai_env):
    # llama.cpp: half the window less 512 tokens for the instructions, claims and reply, at least 256
    assert JudgeConfig().context_budget == 4096 // 2 - 512 == 1536
    assert JudgeConfig(backend="llamacpp", options={"n_ctx": 2048}).context_budget == 512
    assert JudgeConfig.from_options({"backend": "llamacpp", "n_ctx": 1024}).context_budget == 256  # max(256, 0)
    assert JudgeConfig(backend="openai").context_budget == DEFAULT_CONTEXT_BUDGET == 6000
    assert JudgeConfig(provider=ScriptedProvider({})).context_budget == 6000
    assert JudgeConfig(backend="llamacpp", context_token_budget=800).context_budget == 800
    assert JudgeConfig(backend="openai", context_token_budget=800).context_budget == 800


def test_configured(no_openai_env, monkeypatch):
    assert JudgeConfig().configured is False  # nothing named: faithfulness runs the local checker
    assert JudgeConfig(concurrency=8, seed=3).configured is False
    for options in ({"backend": "llamacpp"}, {"backend": "openai"}, {"base_url": "http://x"}, {"model": "m.gguf"},
                    {"provider": ScriptedProvider({})}):
        assert JudgeConfig(**options).configured is True, options
    monkeypatch.setenv("OPENAI_BASE_URL", "http://x/v1")
    assert JudgeConfig().configured is True
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    assert JudgeConfig().configured is True


@pytest.mark.parametrize("options,message", [
    ({"concurrency": "4"}, "judge concurrency: expected a whole number, got '4'"),  # was accepted
    ({"concurrency": True}, "judge concurrency: expected a whole number, got True"),
    ({"n_ctx": 2048.0}, "judge n_ctx: expected a whole number, got 2048.0"),
    ({"max_tokens": 0}, "judge max_tokens: expected a whole number 1 or more, got 0"),
    ({"repeats": 0}, "judge repeats: expected a whole number from 1 to 100, got 0"),
    ({"repeats": 101}, "judge repeats: expected a whole number from 1 to 100, got 101"),  # 10**6 took 1.27 GB before its first call
    ({"repeats": 10**6}, "judge repeats: expected a whole number from 1 to 100, got 1000000"),
    ({"repeats": 10**5000}, "judge repeats: expected a whole number from 1 to 100, got a larger number"),
    ({"repeats": 3.0}, "judge repeats: expected a whole number, got 3.0"),
    ({"timeout": "60"}, "judge timeout: expected a number, got '60'"),
    ({"timeout": float("nan")}, "judge timeout: expected a finite number, got nan"),
    ({"timeout": float("inf")}, "judge timeout: expected a finite number, got inf"),
    ({"temperature": -0.5}, "judge temperature: expected a number in [0, inf], got -0.5"),
    ({"cache": "no"}, "judge cache: expected true or false, got 'no'"),  # "no" is truthy: the cache stayed on
    ({"prices": {"m": 5}}, "judge prices: malformed: model 'm': expected {\"MODEL\": {\"input_per_1k\": X, "),
    ({"prices": [1]}, "judge prices: malformed: expected {\"MODEL\""),
    ({"prices": {"m": {"input_per_1k": -1, "output_per_1k": 1}}},
     "judge prices: malformed: model 'm': input_per_1k -1: expected a number >= 0"),
    ({"prices": {"m": {"input_per_1k": "x"}}},
     "judge prices: malformed: model 'm': input_per_1k 'x': expected a number >= 0"),
])
def test_field_types_are_checked(options, message, no_openai_env):
    with pytest.raises(ValueError) as err:
        JudgeConfig.from_options(options)
    assert str(err.value).startswith(message), str(err.value)
    assert err.value.field == next(iter(options))


def test_numpy_integers_are_taken_as_ints():
    np = pytest.importorskip("numpy")
    config = JudgeConfig(concurrency=np.int64(3), prices={"m": {"input_per_1k": np.float32(0.5), "output_per_1k": 1}})
    assert config.concurrency == 3 and type(config.concurrency) is int


def test_backend_settings_live_in_the_backend_and_are_checked_there(no_openai_env):
    """llama.cpp's window and the OpenAI backend's first structured-output mode are declared in their files;
    a setting of another backend than the judge's is refused, naming both."""
    from genevals.judge.backends import llamacpp, openai_compatible

    assert [s.name for s in llamacpp.SETTINGS] == ["n_ctx", "n_threads", "chat_format"]
    assert [s.name for s in openai_compatible.SETTINGS] == ["response_format", "stream"]
    config = JudgeConfig.from_options({"backend": "llamacpp", "n_ctx": 8192, "n_threads": 2})
    assert (config.option("n_ctx"), config.option("n_threads"), config.option("chat_format")) == (8192, 2, None)
    assert JudgeConfig(backend="llamacpp").option("n_ctx") == 4096
    assert JudgeConfig(backend="openai").option("response_format") is None  # json_schema, or the packaged model's
    with pytest.raises(ValueError) as err:
        JudgeConfig.from_options({"backend": "openai", "n_ctx": 8192})
    assert str(err.value) == "judge n_ctx: a setting of the llamacpp backend; this judge is openai"
    with pytest.raises(ValueError) as err:
        JudgeConfig(backend="openai", options={"response_format": "json"})
    assert str(err.value) == ("judge response_format: unknown value 'json' (did you mean 'json_schema'?) "
                              "(one of json_schema, json_object_schema, json_object, none)")
    with pytest.raises(ValueError) as err:
        JudgeConfig(backend="llamacpp", options={"n_ctxx": 1})
    assert "unknown setting of the llamacpp backend (did you mean 'n_ctx'?)" in str(err.value)
