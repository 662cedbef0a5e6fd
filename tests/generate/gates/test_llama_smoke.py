"""The judge gates against a real model: llama.cpp's server on 127.0.0.1 with the packaged Gemma 3 270M, its replies
constrained by each gate's JSON schema. A smoke test of the plumbing (prompts rendered, schemas accepted, replies
read into a status and a reason for every judge gate, the cache answering a rerun): a 270M model's verdicts
are not a measure of the gates, so the statuses asserted are the ones each gate may give, not the right ones."""
from __future__ import annotations

import pytest
from support.gate_items import CHUNKS, fact, multi_hop, unanswerable
from support.llama_server import llama_server  # noqa: F401  (fixture)

from genevals.generate.gates import GateContext, run_gates
from genevals.generate.gates.judged import version
from genevals.generate.items import PASSED
from genevals.judge.config import JudgeConfig
from genevals.judge.runtime import JudgeRuntime

pytestmark = pytest.mark.slow

JUDGE_GATES = {"reference_not_supported", "unanswerable_from_source", "not_multihop", "accidentally_answerable",
               "answerable_without_context"}
#: what a gate may say with a working judge: passed, or its own status (judge_error: a reply not read)
ALLOWED = JUDGE_GATES | {PASSED}


def test_every_judge_gate_reads_a_real_models_structured_reply(llama_server, tmp_path):  # noqa: F811
    config = JudgeConfig(base_url=llama_server, model="gemma", api_key="none", max_retries=1, timeout=300,
                         cache_dir=str(tmp_path / "cache"))
    ctx = GateContext.build(CHUNKS, judge=JudgeRuntime(config, version()))
    for item in (fact(), multi_hop(), unanswerable()):
        out = run_gates(item, ctx, [])
        print(item.type, {g: (s, out.gate_reasons[g]) for g, s in out.gates.items() if g in JUDGE_GATES})
        assert JUDGE_GATES & set(out.gates), out.gates
        assert set(out.gates.values()) <= ALLOWED, out.gate_reasons  # no judge_error: every reply was read
        assert all(out.gate_reasons[g] for g in out.gates)
        assert run_gates(item, ctx, []) == out  # the cache gives the same item again
