"""The fast grammar sampler at a temperature above 0 (``--judge-temperature 0.8`` with ``--judge-repeats``, as
tests/cli/test_llama_server_repeats.py runs it) draws stock llama-cpp-python's tokens, token for token: the same
seeded replies from the packaged Gemma 3 270M with the stock sampler chain (grammar on all 262k tokens) and with
genevals' (grammar on the likeliest 512, every token put back when fewer than top-k of them are grammatical)."""
from __future__ import annotations

import pytest

from genevals.judge.backends import llamacpp
from support.llama_server import packaged_gguf

pytestmark = pytest.mark.slow

SCHEMA = {"type": "object", "properties": {"label": {"type": "string", "enum": ["supported", "contradicted"]},
                                           "reason": {"type": "string", "maxLength": 60}},
          "required": ["label", "reason"], "additionalProperties": False}
MESSAGES = [{"role": "user", "content": "Context: Marie Curie was born in Warsaw in 1867.\nClaim: Curie was born in "
                                        "Paris.\nReply with JSON: a label and a short reason."}]


def _replies(llm, seeds):
    out = []
    for seed in seeds:
        llm.reset()
        reply = llm.create_chat_completion(messages=MESSAGES, temperature=0.8, seed=seed, max_tokens=40,
                                           response_format={"type": "json_object", "schema": SCHEMA})
        out.append((reply["choices"][0]["message"]["content"], reply["choices"][0]["finish_reason"]))
    return out


def test_sampling_with_a_grammar_draws_stocks_tokens(monkeypatch):
    import llama_cpp

    path = packaged_gguf()  # skips without the llama extra
    assert llamacpp.enable_fast_grammar()
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=1024, n_threads=1, chat_format="gemma", verbose=False, seed=0)
    seeds = (1, 2, 3)
    fast = _replies(llm, seeds)
    with monkeypatch.context() as m:
        m.setattr(llama_cpp.Llama, "_init_sampler", llamacpp._ORIGINAL_INIT_SAMPLER)
        stock = _replies(llm, seeds)
    assert fast == stock
    # the seeds draw different replies (the temperature is in effect), and one at least ends its JSON (the step
    # where only the end is grammatical: fewer than top-k of the shortlist, every token put back)
    assert len({text for text, _ in stock}) > 1, stock
    assert "stop" in {finish for _, finish in stock}, stock
