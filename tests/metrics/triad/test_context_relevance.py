"""context_relevance (LLM judge) through the ScriptedProvider: verdicts per chunk, both outputs, statuses."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.triad.context_relevance import ContextRelevance
from genevals.types import Context, Sample

CHUNKS = ("The ferry crossing takes about 55 minutes. It sails twice an hour.", "Tickets cost 18 crowns.",
          "In summer there are six sailings a day.", "The crossing is 12 km long.", "The island has a library.")
SAMPLE = Sample("s", "About 55 minutes.", "How long is the ferry crossing?",
                tuple(Context(t, rank=i + 1, id=f"c{i + 1}") for i, t in enumerate(CHUNKS)))
REPLY = {"passages": [
    {"id": 1, "verdict": "relevant", "sentence": "The ferry crossing takes about 55 minutes.", "reason": "answers"},
    {"id": 2, "verdict": "not_relevant", "sentence": "", "reason": "price"},
    {"id": 3, "verdict": "partly", "sentence": "In summer there are six sailings a day.", "reason": "timetable"},
    {"id": 4, "verdict": "relevant", "sentence": "The crossing is 12 km long.", "reason": "distance"},
    {"id": 5, "verdict": "not relevant", "sentence": "", "reason": "library"},
]}


def judged(reply, **options):
    provider = ScriptedProvider({"context_relevance": reply})
    return ContextRelevance(JudgeConfig(provider=provider, cache=False), **options), provider


def test_share_and_precision_by_hand():
    metric, provider = judged(REPLY)
    out = metric.score([SAMPLE])[0]
    # relevance 1 0 1 1 0 (partly counts): share 3/5; precision (1 + 2/3 + 3/4) / 3
    assert out["context_relevance"].value == pytest.approx(3 / 5)
    assert out["context_precision"].value == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    chunks = out["context_relevance"].details["chunks"]
    assert [c["verdict"] for c in chunks] == ["relevant", "not_relevant", "partly", "relevant", "not_relevant"]
    assert chunks[0]["sentence_span"] == [0, 42] and chunks[0]["id"] == "c1" and chunks[1]["sentence_span"] is None
    assert len(provider.calls) == 1  # all chunks in one call


def test_partly_not_counted_and_cutoff():
    out = judged(REPLY, partly_counts=False, k=3)[0].score([SAMPLE])[0]
    # relevance 1 0 0 1 0: share 2/5; top 3 = 1 0 0 -> precision 1
    assert out["context_relevance"].value == pytest.approx(2 / 5)
    assert out["context_precision"].value == 1.0


def test_a_missing_verdict_counts_as_not_relevant_and_says_so():
    reply = {"passages": REPLY["passages"][:3]}
    r = judged(reply)[0].score([SAMPLE])[0]["context_relevance"]
    assert r.value == pytest.approx(2 / 5)
    assert [c["missing"] for c in r.details["chunks"]] == [False, False, False, True, True]
    assert any("2 passage(s) without a verdict" in i for i in r.details["issues"])


@pytest.mark.parametrize("sample,status", [
    (Sample("n", "a", "q?", ()), types.NO_CONTEXT),
    (Sample("n", "a", "", SAMPLE.contexts), "no_question"),
])
def test_statuses_without_calls(sample, status):
    metric, provider = judged(REPLY)
    out = metric.score([sample])[0]
    assert out["context_relevance"].status == out["context_precision"].status == status and provider.calls == []


def test_no_readable_verdict_is_a_parse_error():
    r = judged({"passages": [{"id": 9, "verdict": "relevant", "sentence": "", "reason": ""}]})[0].score([SAMPLE])[0]
    assert r["context_relevance"].status == types.PARSE_ERROR and r["context_precision"].status == types.PARSE_ERROR


def test_agreement_with_labels_goes_into_the_corpus_scores():
    from genevals.api import evaluate

    provider = ScriptedProvider({"context_relevance": REPLY})
    labelled = Sample(SAMPLE.id, SAMPLE.answer, SAMPLE.question, SAMPLE.contexts, relevant={"c1": 2, "c2": 1})
    results = evaluate([labelled], ["context_relevance"], judge=JudgeConfig(provider=provider, cache=False))
    corpus = results.corpus["default"]
    # scores 1, 0, 0.5, 1, 0 against labels +, +, -, -, -: pairs (1 vs .5, 1, 0) -> 1, .5, 1; (0 vs .5, 1, 0) -> 0, 0, .5
    assert corpus["context_relevance_label_auc"] == pytest.approx(3 / 6)
    # binary: relevant c1 (tp), c3 and c4 (fp), c2 missed (fn)
    assert corpus["context_relevance_label_precision"] == pytest.approx(1 / 3)
    assert corpus["context_relevance_label_recall"] == pytest.approx(1 / 2)
    assert corpus["context_relevance_judge_requests"] == 1
    chunks = results.samples[0].metrics["context_relevance"].details["chunks"]
    assert [c["label"] for c in chunks] == [2.0, 1.0, 0.0, 0.0, 0.0]
