"""What the three conversation judges share: one judge call per conversation, on its last assistant turn
(:mod:`.scope`), with the transcript's turns numbered; typed statuses, usage, the dry run, the cache and
``--judge-repeats`` as every judge metric (:class:`~genevals.metrics.judging.judge_metric.GuardedJudge`).

The prompt file (``prompts/<family>.md``) is hashed into ``prompt_version``, which is in the signature and every
cache key. A reply that cannot be read is ``parse_error`` with the raw reply in ``details.transcript``; a call
that fails after the client's retries is ``judge_error``. Other turns of the conversation get
``not_last_turn`` without a call.
"""
from __future__ import annotations

from typing import Any, ClassVar, Mapping

from genevals.judge.client import CallLog
from genevals.metrics.base import Metric, Output, Unscored, usage_statistics
from genevals.metrics.conversation.jury import ConversationJury
from genevals.metrics.conversation.scope import UNSUPPORTED, ConversationScope, Transcript
from genevals import prompt_render
from genevals.metrics.judging.judge_metric import GuardedJudge
from genevals.metrics.judging.one_call import ask_once
from genevals.metrics.judging.parse import _as_int
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample

def offline_note(family: str) -> str:
    """What a run without a judge says of a conversation judge it was asked for (its offline stand-in's note)."""
    return (f"no judge configured: {family} has no offline variant, so each conversation is 'unsupported'; "
            "--judge-base-url for an LLM judge")


def turn_of(item: Mapping[str, Any], key: str = "turn") -> int | None:
    return _as_int(item.get(key))


def turn_schema(transcript: Transcript) -> dict[str, Any]:
    numbers = [t.number for t in transcript.turns]
    return {"type": "integer", "minimum": min(numbers), "maximum": max(numbers)}


class ConversationJudge(ConversationScope, GuardedJudge):
    """Base of the conversation judges: subclasses set ``family``, ``outputs`` and ``order`` (the prompt file
    is ``prompts/<family>.md``), and implement :meth:`_schema` and :meth:`_score_reply`."""

    reply_tokens: ClassVar[int] = 1200
    #: a jury: every judge reads the transcript, turn-by-turn labels voted (:mod:`.jury`)
    jury_support = ConversationJury

    #: the one output's definition; the output is named after the family, as is the prompt file
    definition: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # what follows from the family's name: its output, its prompt file, its offline stand-in
        cls.outputs = (Output(cls.family, cls.definition),)
        cls.prompts = (cls.family,)
        cls.offline_alternative = (f"{cls.family}_local", offline_note(cls.family))

    def signature(self) -> str:
        return make_signature(self.family, variant="llm", unit="conversation", on="last_turn",
                              **self.runtime.signature_settings(), **self.language_signature())

    def describe(self) -> dict[str, str]:
        return {name: "LLM judge, one value per conversation (on its last assistant turn): "
                + self.output(name).definition for name in self.output_names()}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        return usage_statistics(outputs.get(self.output_names()[0]), f"{self.family}_judge_")

    def _check(self, transcript: Transcript) -> None:
        """Raise :class:`Unscored` when the conversation cannot be judged (before any call)."""

    def _schema(self, transcript: Transcript) -> dict[str, Any]:
        raise NotImplementedError

    def _score_reply(self, transcript: Transcript, reply: Any, details: dict[str, Any]) -> dict[str, MetricResult]:
        raise NotImplementedError

    async def _score_one(self, sample: Sample, log: CallLog) -> dict[str, MetricResult]:
        transcript, scope = self.scope(sample)
        self._check(transcript)
        return await ask_once(self, log, self.family, prompt_render.render(self.family, transcript=transcript.render()),
                              self._schema(transcript), self.reply_tokens,
                              lambda reply, details: self._score_reply(transcript, reply, details), scope)


class OfflineConversation(ConversationScope, Metric):
    """The offline stand-in of a conversation judge: no offline check measures it, so the conversation's last
    turn gets status ``unsupported`` with the reason, never a number; its other turns ``not_last_turn``."""

    #: why no offline variant measures it
    why: ClassVar[str] = ""

    def signature(self) -> str:
        return make_signature(self.writes_for or self.family, variant="offline", status=UNSUPPORTED)

    def describe(self) -> dict[str, str]:
        return {name: f"offline: status {UNSUPPORTED} ({self.why})" for name in self.output_names()}

    def score(self, samples: list[Sample]) -> list[dict[str, MetricResult]]:
        out = []
        for sample in samples:
            try:
                _, scope = self.scope(sample)
                status, reason, details = UNSUPPORTED, (f"{self.writes_for} needs an LLM judge: {self.why}; name one "
                                                        "with --judge-base-url and --judge-model"), scope
            except Unscored as exc:
                status, reason, details = exc.status, exc.reason, exc.details
            out.append({o.name: MetricResult.unscored(o.name, status, reason, **details) for o in self.outputs})
        return out

