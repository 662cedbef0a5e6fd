"""What every LLM-judge metric shares (faithfulness, llm_rubric, pairwise and the one-call RAG judges): its
:class:`~genevals.judge.config.JudgeConfig` in ``self.judge`` and its
:class:`~genevals.judge.runtime.JudgeRuntime` in ``self.runtime``, which give its concurrency, its caution and
whether it runs offline.

Each subclass's ``_score_safe`` is wrapped, so that every judge metric's outputs leave it
- redacted: the client already redacts each reply as it arrives, but what a parser decoded or joined from it (a
  key written with JSON escapes, or split across two strings) only exists afterwards
  (:mod:`genevals.judge.redact`);
- saying which model answered: ``details["judge"]["answered_by"]``, the ``model`` the replies named (a local
  server answers with whatever it has loaded, whatever name it was sent), beside ``model``, the one asked for.
"""
from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from genevals.judge.client import ANSWERED
from genevals.judge.config import JudgeConfig
from genevals.judge.runtime import JudgeRuntime
from genevals.metrics.base import ConcurrentMetric


class JudgeMetric(ConcurrentMetric):
    judge: JudgeConfig
    runtime: JudgeRuntime

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("_score_safe")
        if own is None or getattr(own, "redacts", False):
            return

        @functools.wraps(own)
        async def redacted(self, sample):
            token = ANSWERED.set(set())  # filled by the client with each call's model, in this sample's task
            try:
                outputs = await own(self, sample)
                answered = ANSWERED.get()
            finally:
                ANSWERED.reset(token)
            return self.finish_outputs(outputs, answered)

        redacted.redacts = True  # type: ignore[attr-defined]
        cls._score_safe = redacted  # type: ignore[method-assign]

    def finish_outputs(self, outputs: dict[str, Any], answered: set[str] | None) -> dict[str, Any]:
        """``outputs`` with the judge's secrets taken out of every reason and detail (after decoding), and the
        models that ``answered`` in each ``details["judge"]``."""
        redactor = self.runtime.redactor
        out = {}
        for name, result in outputs.items():
            details = redactor.deep(dict(result.details))
            if answered and isinstance(details.get("judge"), dict):
                details["judge"] = {**details["judge"], "answered_by": "+".join(sorted(answered))}
            out[name] = replace(result, reason=redactor(result.reason), details=details)
        return out

    @classmethod
    def offline(cls, judge: JudgeConfig | None) -> bool:
        return not (judge if judge is not None else JudgeConfig()).configured

    @property
    def warning(self) -> str | None:
        return self.runtime.warning

    @property
    def concurrency(self) -> int:
        return self.judge.concurrency
