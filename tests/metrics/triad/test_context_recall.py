"""context_recall (LLM judge) through the ScriptedProvider."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.triad.context_recall import ContextRecall
from genevals.types import Context, Sample

REFERENCE = "The crossing takes 55 minutes. It costs 18 crowns. Dogs travel free."
SAMPLE = Sample("s", "55 minutes.", "Tell me about the ferry.",
                (Context("The crossing takes about 55 minutes.", 1), Context("A return costs 18 crowns.", 2)),
                references=("", REFERENCE))
REPLY = {"claims": [
    {"claim": "The crossing takes 55 minutes.", "source": "The crossing takes 55 minutes", "passage": 1, "reason": ""},
    {"claim": "The ferry costs 18 crowns.", "source": "It costs 18 crowns", "passage": 2, "reason": ""},
    {"claim": "Dogs travel free.", "source": "Dogs travel free", "passage": 0, "reason": "not stated"},
    {"claim": "Cats travel free.", "source": "Cats travel free", "passage": 1, "reason": "invented"},
]}


def judged(reply):
    provider = ScriptedProvider({"context_recall": reply})
    return ContextRecall(JudgeConfig(provider=provider, cache=False)), provider


def test_share_of_reference_facts_found_by_hand():
    metric, provider = judged(REPLY)
    r = metric.score([SAMPLE])[0]["context_recall"]
    # 3 located facts (the 4th is not in the reference), 2 attributed to a chunk
    assert r.value == pytest.approx(2 / 3) and r.details["found"] == 2 and r.details["n_claims"] == 3
    assert r.details["missed"] == ["Dogs travel free."] and r.details["unlocated_claims"] == 1
    assert r.details["reference_index"] == 1  # the first non-empty reference
    claims = r.details["claims"]
    assert claims[0]["spans"] == [[0, 29]] and claims[0]["context_index"] == 0
    assert claims[2]["found"] is False and claims[2]["context_index"] is None
    assert len(provider.calls) == 1


@pytest.mark.parametrize("sample,status", [
    (Sample("r", "a", "q", SAMPLE.contexts), types.EMPTY_REFERENCE),
    (Sample("c", "a", "q", (), references=(REFERENCE,)), types.NO_CONTEXT),
])
def test_statuses_without_calls(sample, status):
    metric, provider = judged(REPLY)
    assert metric.score([sample])[0]["context_recall"].status == status and provider.calls == []


def test_no_located_fact_is_no_claims():
    r = judged({"claims": [REPLY["claims"][3]]})[0].score([SAMPLE])[0]["context_recall"]
    assert r.status == types.NO_CLAIMS and r.details["unlocated_claims"] == 1
