"""Every LLM judge in any language: the prompts ask for claims, quotes and reasons in the text's own language
(and their hash, which signs every judge metric and keys its cache, is the files' own), each judged metric
records the sample's language in its details and names the run's setting (``lang:...``) in its signature, and
the quotes a judge copies from Chinese text are located in it, through the packaged ScriptedProvider (the real
prompts, client, parsing and arithmetic) and the engine.
"""
from __future__ import annotations

import hashlib
import json

import pytest

import genevals
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.citations.judged import parse_reply
from genevals.metrics.citations.sentences import CitedSentence
from genevals import prompt_render
from genevals.prompt_files import prompt_file
from genevals.types import Context, Sample

#: prompt file -> the words of its language rule
RULES = {
    "decompose": ['Write each claim in the language of the answer', 'Copy "source" character for character',
                  "never translate it"],
    "verify": ['Copy "quote" character for character from the passage', "never translate or paraphrase it",
               'Write "reason" in the language of the claims'],
    "rubric": ["written in the language of the answer", "never translated"],
    "answer_relevance": ['in the language of the question', 'Copy "off_topic" excerpts character for character'],
    "context_relevance": ['Copy "sentence" character for character', 'write "reason" in the language of the question'],
    "context_recall": ['in the language of the reference answer', 'Copy "source" character for character'],
    "answer_correctness": ["in the language of the text it comes from", "may be in different languages"],
    "pairwise": ["written in the language of the question"],
    "citations": ['in the language of the answer', 'Copy every "quote" character for character'],
}
#: metric family -> the prompt files hashed into its prompt version
HASHED = {"faithfulness": ("decompose", "verify"), "llm_rubric": ("rubric",), "citations": ("citations",),
          "answer_relevance": ("answer_relevance",), "context_relevance": ("context_relevance",),
          "context_recall": ("context_recall",), "answer_correctness": ("answer_correctness",),
          "pairwise": ("pairwise",)}


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_prompt_states_its_language_rule(name):
    text = prompt_file(name).read_text(encoding="utf-8")
    for words in RULES[name]:
        assert words in text, (name, words)


def recomputed(*names: str) -> str:
    """sha256 over name NUL file-bytes NUL, in order, first 12 hex digits: computed here from the files."""
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode() + b"\0" + prompt_file(name).read_bytes() + b"\0")
    return h.hexdigest()[:12]


@pytest.mark.parametrize("family", sorted(HASHED))
def test_prompt_versions_are_the_files_hashes(family):
    assert prompt_render.prompt_version(*HASHED[family]) == recomputed(*HASHED[family])


# -- every judged metric on Chinese samples -----------------------------------------------------------------------
Q = "居里夫人在哪里出生？"
C1 = "玛丽·居里（1867年生于华沙）是一位物理学家。她后来移居巴黎。"
C2 = "巴黎是法国的首都。"
REF = "居里夫人生于华沙。"
X = "居里夫人出生于华沙[1]。"
Y = "居里夫人出生于华沙。巴黎很美。"
ROWS = [{"id": "q", "system": s, "question": Q, "answer": a, "contexts": [C1, C2], "references": [REF]}
        for s, a in (("x", X), ("y", Y))]


def route(messages):
    """The prompt a request was built from, by its first line (the scripted provider's rule, with citations)."""
    content = messages[0]["content"]
    return next(name for name in RULES if content.startswith(prompt_render.load(name).strip().splitlines()[0]))


def answer_relevance(messages):
    off = ["巴黎很美"] if "巴黎很美" in messages[0]["content"] else []
    return {"parts": [{"part": "出生地", "answered": True}], "off_topic": off, "reason": "回答了出生地。"}


SCRIPT = {
    "decompose": {"claims": [{"claim": "居里夫人出生于华沙。", "source": "居里夫人出生于华沙"}]},
    "verify": {"verdicts": [{"id": 1, "context": 1, "quote": "1867年生于华沙", "label": "supported",
                             "reason": "第1段说她生于华沙。"}]},
    "rubric": {"scores": {c: {"reason": "回答正确。", "score": 5}
                          for c in ("coherence", "relevance", "fluency", "coverage")}},
    "answer_relevance": answer_relevance,
    # half-width brackets and a dropped full stop: the sentence is still the chunk's own
    "context_relevance": {"passages": [
        {"id": 1, "verdict": "relevant", "sentence": "玛丽·居里(1867年生于华沙)是一位物理学家", "reason": "提到出生地。"},
        {"id": 2, "verdict": "not_relevant", "sentence": "", "reason": "无关。"}]},
    "context_recall": {"claims": [{"claim": "居里夫人生于华沙。", "source": "居里夫人生于华沙", "passage": 1,
                                   "reason": "第1段提到。"}]},
    "answer_correctness": {"answer_claims": [{"claim": "居里夫人出生于华沙。", "source": "居里夫人出生于华沙",
                                              "in_reference": True}],
                           "reference_claims": [{"claim": "居里夫人生于华沙。", "source": "居里夫人生于华沙",
                                                 "in_answer": True}]},
    "pairwise": {"reason": "两个回答都说出了出生地。", "winner": "tie"},
    "citations": {"sentences": [{"id": 1, "supported": True, "cited": [{"passage": 1, "alone": True,
                                                                      "quote": "1867年生于华沙"}],
                                 "supported_by": [1], "reason": "第1段。"}]},
}
METRICS = ["faithfulness", "llm_rubric", "answer_relevance", "context_relevance", "context_recall",
           "answer_correctness", "pairwise", "citations"]


@pytest.fixture(scope="module")
def results():
    provider = ScriptedProvider(SCRIPT, route=route)
    return genevals.evaluate(ROWS, METRICS, judge=JudgeConfig(provider=provider, cache=False), language="zh")


def by_system(results):
    return {r.sample.system: r.metrics for r in results.samples}


def test_every_judged_metric_records_the_language_and_signs_the_setting(results):
    x = by_system(results)["x"]
    firsts = {"faithfulness": "faithfulness", "llm_rubric": "rubric_coherence", "answer_relevance": "answer_relevance",
              "context_relevance": "context_relevance", "context_recall": "context_recall",
              "answer_correctness": "answer_correctness", "pairwise": "pairwise", "citations": "citation_recall"}
    for family, output in firsts.items():
        result = x[output]
        assert result.status == "ok", (family, result.status, result.reason)
        assert (result.details["language"], result.details["language_source"]) == ("zh", "run"), family
        assert "|lang:zh|" in results.signatures[family], family
        assert f"|prompt:{recomputed(*HASHED[family])}|" in results.signatures[family], family
    # every rubric criterion carries the judge's record, and the language with it
    assert all(x[f"rubric_{c}"].details["language"] == "zh" for c in ("relevance", "fluency", "coverage"))


def test_quotes_located_in_chinese_across_the_judges(results):
    x, y = by_system(results)["x"], by_system(results)["y"]
    faith = x["faithfulness"].details
    assert faith["claims"][0]["spans"] == [[0, 9]] and X[0:9] == "居里夫人出生于华沙"
    assert faith["verdicts"][0]["quote_span"] == [6, 15] and C1[6:15] == "1867年生于华沙"
    assert faith["verdicts"][0]["reason"] == "第1段说她生于华沙。"
    # context_relevance: the sentence quoted with half-width brackets is the chunk's original one, 0-21
    # (玛0 丽1 ·2 居3 里4 （5 1867 6-9 年10 生11 于12 华13 沙14 ）15 是16 一17 位18 物19 理20 学21 家22)
    chunks = x["context_relevance"].details["chunks"]
    assert chunks[0]["sentence_span"] == [0, 23] and C1[0:23] == "玛丽·居里（1867年生于华沙）是一位物理学家"
    assert chunks[0]["reason"] == "提到出生地。"
    recall = x["context_recall"].details["claims"]
    assert recall[0]["spans"] == [[0, 8]] and REF[0:8] == "居里夫人生于华沙" and x["context_recall"].value == 1.0
    assert x["answer_correctness"].value == 1.0
    # answer_relevance of Y: "巴黎很美" is Y[10:14] (居0 ... 沙8 。9 巴10 黎11 很12 美13 。14)
    off = y["answer_relevance"].details["off_topic"]
    assert off == [{"text": "巴黎很美", "spans": [[10, 14]], "located": True}] and Y[10:14] == "巴黎很美"
    assert x["pairwise"].value == 0.5 and x["pairwise"].details["duels"][0]["orders"][0]["reason"] == \
        "两个回答都说出了出生地。"
    assert x["rubric_coherence"].details["reason"] == "回答正确。"
    cited = x["citation_recall"].details["sentences"][0]["citations"][0]
    assert cited["quote_span"] == [6, 15] and cited["quote"] == "1867年生于华沙"
    assert x["citation_recall"].details["sentences"][0]["reason"] == "第1段。"


def test_citation_quotes_located_in_chinese_passages():
    sample = Sample("q", X, Q, (Context(C1, 1), Context(C2, 2)))
    sentence = CitedSentence(0, "居里夫人出生于华沙。", (0, len(X)), ["1"], [0])
    reply = json.dumps({"sentences": [{"id": 1, "supported": True, "supported_by": [1], "reason": "第1段。",
                                       "cited": [{"passage": 1, "alone": True, "quote": "１８６７年生于华沙"}]}]})
    found, issues = parse_reply(reply, sample, [sentence])
    check = found[0]
    assert issues == [] and check.reason == "第1段。"
    # the full-width digits the judge wrote fold to the passage's own: C1[6:15], as the passage spells it
    assert (check.citations[0].quote_span, check.citations[0].quote) == ((6, 15), "1867年生于华沙")
