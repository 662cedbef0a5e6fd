"""What the single-call LLM judges share (answer_relevance, context_relevance, context_recall,
answer_correctness): the judge runtime, one call per answer, typed statuses, usage accounting, the dry run.

Each metric asks its judge exactly once per answer (no repair re-ask: a reply that cannot be read is
``parse_error`` with the raw reply in ``details.transcript``; a call that fails after the client's bounded
retries is ``judge_error``). The metric's prompt files are hashed into ``prompt_version``, which goes into its
signature and into every cache key (:class:`~genevals.judge.client.JudgeClient`). The details (usage, judge,
transcript) go on the metric's first output; its other outputs carry the same status and reason.
"""
from __future__ import annotations

from typing import Any, ClassVar, Mapping

from genevals.judge.client import CallLog
from genevals.metrics.base import usage_statistics
from genevals.metrics.judging.judge_metric import GuardedJudge
from genevals.metrics.judging.one_call import ask_once
from genevals.metrics.triad.rag_formulas import NO_PAIR, NO_QUESTION, Unscored, first_reference  # noqa: F401
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample


class SingleCallJudge(GuardedJudge):
    """Base of the one-call judges: subclasses set ``family`` (also the name of their prompt file) and ``outputs``,
    and implement :meth:`_check` (statuses before any call), :meth:`_prompt`, :meth:`_schema` and
    :meth:`_score_reply`."""

    #: completion tokens allowed for the one reply
    reply_tokens: ClassVar[int] = 1024

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.prompts = (cls.family,)  # prompts/<family>.md

    def settings(self) -> dict[str, Any]:
        """The metric's own settings for its signature (beside the judge's)."""
        return {}

    def signature(self) -> str:
        return make_signature(self.family, variant="llm", **self.runtime.signature_settings(), **self.settings(),
                              **self.language_signature())

    def describe(self) -> dict[str, str]:
        return {name: "LLM judge: " + self.output(name).definition for name in self.output_names()}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """The sample's judge usage (requests, tokens, cost), summed per system."""
        return usage_statistics(outputs.get(self.output_names()[0]), f"{self.family}_judge_")

    # -- to implement ---------------------------------------------------------------------------------
    def _check(self, sample: Sample) -> None:
        """Raise :class:`Unscored` when the sample cannot be judged (before any call)."""

    def _prompt(self, sample: Sample) -> str:
        raise NotImplementedError

    def _schema(self, sample: Sample) -> dict[str, Any]:
        raise NotImplementedError

    def _score_reply(self, sample: Sample, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        """The outputs from the parsed reply (raise ParseError when it does not have the expected shape)."""
        raise NotImplementedError

    async def _score_one(self, sample: Sample, log: CallLog) -> dict[str, MetricResult]:
        self._check(sample)
        return await ask_once(self, log, self.family, self._prompt(sample), self._schema(sample), self.reply_tokens,
                              lambda reply, details: self._score_reply(sample, reply, details))
