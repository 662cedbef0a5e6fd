"""What every LLM-judge metric shares (faithfulness, llm_rubric, pairwise and the one-call RAG judges): its
:class:`~genevals.judge.config.JudgeConfig` in ``self.judge`` and its
:class:`~genevals.judge.runtime.JudgeRuntime` in ``self.runtime``, which give its concurrency, its caution and
whether it runs offline."""
from __future__ import annotations

from genevals.judge.config import JudgeConfig
from genevals.judge.runtime import JudgeRuntime
from genevals.metrics.base import ConcurrentMetric


class JudgeMetric(ConcurrentMetric):
    judge: JudgeConfig
    runtime: JudgeRuntime

    @classmethod
    def offline(cls, judge: JudgeConfig | None) -> bool:
        return not (judge if judge is not None else JudgeConfig()).configured

    @property
    def warning(self) -> str | None:
        return self.runtime.warning

    @property
    def concurrency(self) -> int:
        return self.judge.concurrency
