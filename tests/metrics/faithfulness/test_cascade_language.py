"""The cascade's LLM stage judges in the run's language setting, as its local stage does: with --language zh
its details say the language came from the run, and its part of the signature says lang:zh."""
from __future__ import annotations

from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.language import LanguageSetting
from genevals.metrics.faithfulness.cascade import Cascade
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.types import Context, Sample

SCRIPT = {"decompose": {"claims": [{"claim": "居里夫人出生于华沙。", "source": "居里夫人出生于华沙"}]},
          "verify": {"verdicts": [{"id": 1, "context": 1, "quote": "1867年生于华沙", "label": "supported",
                                   "reason": "第1段。"}]}}


def test_the_llm_stage_takes_the_runs_language():
    judge = Faithfulness(JudgeConfig(provider=ScriptedProvider(SCRIPT), cache=False))
    cascade = Cascade(settle_confidence=1.0, llm=judge)
    cascade.language = LanguageSetting.parse("zh")  # what genevals.registry.build does with --language zh
    sample = Sample("s", "居里夫人出生于华沙。", "居里夫人在哪里出生？", (Context("玛丽·居里（1867年生于华沙）。", 1),))
    [result] = cascade.score([sample])
    faith = result["faithfulness"]
    assert (faith.status, faith.value) == ("ok", 1.0)
    assert (faith.details["language"], faith.details["language_source"]) == ("zh", "run")
    assert faith.details["cascade"]["settled_by"] == "llm"
    llm_part = cascade.signature().split("|llm:", 1)[1]
    assert ";lang:zh;" in llm_part
