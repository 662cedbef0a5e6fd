"""Claims in scripts without Latin-alphabet words go to the context window that holds their evidence: without
that, a Chinese claim shared no "content word" with any window, always went to the first one, and evidence
further on was never shown to the judge (a silent unverifiable)."""
from __future__ import annotations

from genevals.claims import windows
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.types import Context, Sample

FILLER = "今天天气很好，我们去公园散步。" * 120  # 15 characters x 120 = 1,800, no character pair of the claim
EVIDENCE = "玛丽·居里于1867年生于华沙。"


def test_a_chinese_claim_goes_to_the_window_with_its_evidence():
    ctxs = (Context(FILLER, 1), Context(EVIDENCE, 2))
    parts = windows.split_windows(ctxs, 1000)
    # the filler's first 1,000 characters, then its last 800 with the evidence
    assert len(parts) == 2 and [p.context_index for p in parts[-1].pieces] == [0, 1]
    # 居里, 生于, 于华 and 华沙 are the pairs the claim shares with the last window only
    assert windows.assign(parts, {1: "居里夫人出生于华沙。"}, ctxs) == [[], [1]]


def test_an_arabic_claim_too():
    ctxs = (Context("الطقس جميل اليوم. " * 100, 1), Context("ولدت ماري كوري في وارسو.", 2))
    parts = windows.split_windows(ctxs, 800)
    assert windows.assign(parts, {1: "ولدت كوري في وارسو"}, ctxs)[-1] == [1]


def test_faithfulness_sees_the_evidence_in_a_later_window():
    shown = []

    def verify(messages):
        passages = messages[0]["content"].split("Context passages:")[1].split("Claims:")[0]
        shown.append(passages)
        found = "1867年生于华沙" in passages
        return {"verdicts": [{"id": 1, "context": 2 if found else 0, "quote": "1867年生于华沙" if found else "",
                              "label": "supported" if found else "unverifiable", "reason": "第2段。" if found else "无"}]}

    provider = ScriptedProvider({"decompose": {"claims": [{"claim": "居里夫人出生于华沙。", "source": "居里夫人出生于华沙"}]},
                                 "verify": verify})
    metric = Faithfulness(JudgeConfig(provider=provider, cache=False, context_token_budget=250))
    ctxs = (Context(FILLER, 1), Context(EVIDENCE, 2))
    f = metric.score([Sample(id="w", answer="居里夫人出生于华沙。", question="居里夫人在哪里出生？", contexts=ctxs)])[0]
    faith = f["faithfulness"]
    assert (faith.status, faith.value) == ("ok", 1.0)
    assert len(shown) == 1 and EVIDENCE in shown[0]  # one verify call, on the window with the evidence
    v = faith.details["verdicts"][0]
    # 玛0 丽1 ·2 居3 里4 于5 1867 6-9 年10 生11 于12 华13 沙14
    assert v["quote_span"] == [6, 15] and EVIDENCE[6:15] == "1867年生于华沙"
