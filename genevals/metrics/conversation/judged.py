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

from genevals import types
from genevals.claims.locate import FUZZY_THRESHOLD, locate_parts
from genevals.judge.client import CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.judge.runtime import JudgeRuntime
from genevals.metrics.base import Metric, Output, Unscored, usage_statistics
from genevals.metrics.conversation.scope import UNSUPPORTED, ConversationScope, Transcript
from genevals.metrics.judging import prompts
from genevals.metrics.judging.judge_metric import GuardedJudge
from genevals.metrics.judging.parse import ParseError, _as_int, extract_json
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample

JURY_NOTE = ("its value goes on each conversation's last turn, which the planning pass tells the metric, not the "
             "jury's per-judge metrics")


def spans_of(excerpt: str, text: str) -> list[list[int]]:
    """Where a verbatim excerpt (parts may be joined by "...") lies in ``text``: [[start, end], ...], or []."""
    found = locate_parts(excerpt, text, threshold=FUZZY_THRESHOLD) if excerpt and excerpt.strip() else None
    return [[m.start, m.end] for m in found] if found else []


def text_of(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    return value.strip() if isinstance(value, str) else ""


def flag_of(item: Mapping[str, Any], key: str) -> bool | None:
    value = item.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    return None


def turn_of(item: Mapping[str, Any], key: str = "turn") -> int | None:
    return _as_int(item.get(key))


def items_of(reply: Any, key: str) -> list[Mapping[str, Any]]:
    if not isinstance(reply, Mapping) or not isinstance(reply.get(key), list):
        raise ParseError(f"reply has no '{key}' list")
    return [item for item in reply[key] if isinstance(item, Mapping)]


def turn_schema(transcript: Transcript) -> dict[str, Any]:
    numbers = [t.number for t in transcript.turns]
    return {"type": "integer", "minimum": min(numbers), "maximum": max(numbers)}


class ConversationJudge(ConversationScope, GuardedJudge):
    """Base of the conversation judges: subclasses set ``family``, ``outputs`` and ``order`` (the prompt file
    is ``prompts/<family>.md``), and implement :meth:`_schema` and :meth:`_score_reply`."""

    reply_tokens: ClassVar[int] = 1200
    jury_support = JURY_NOTE

    def __init__(self, judge: JudgeConfig | None = None) -> None:
        self.judge = judge if judge is not None else JudgeConfig()
        self.runtime = JudgeRuntime(self.judge, prompts.prompt_version(self.family))
        self._last = {}

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
        text = prompts.render(self.family, transcript=transcript.render())
        params = self.runtime.params(self.reply_tokens)
        if self.judge.dry_run:
            p, c = estimate_tokens(text), params["max_tokens"] // 2
            raise Unscored(types.DRY_RUN, f"dry run: no judge calls; about {p} prompt + {c} completion tokens in "
                           "1 request (~4 characters per token; tiktoken unavailable offline)",
                           usage={"estimated_requests": 1, "estimated_prompt_tokens": p,
                                  "estimated_completion_tokens": c, "estimated_cost_usd": self.runtime.cost(p, c)})
        call = log.add(await self.runtime.client().complete(self.family, prompts.user(text),
                                                            self._schema(transcript), params))
        if not call.ok:
            raise Unscored(types.JUDGE_ERROR, f"{self.family} call failed after {call.attempts} request(s): "
                                              f"{call.failure}", **scope)
        details = {**self._details(log), **scope}
        if call.completion.finish_reason == "length":
            details["issues"] = [f"{self.family} reply hit max_tokens"]
        try:
            reply, salvaged = extract_json(call.completion.text)
            if salvaged:
                details.setdefault("issues", []).append("reply was truncated; kept its complete part")
            return self._score_reply(transcript, reply, details)
        except ParseError as exc:
            raise Unscored(types.PARSE_ERROR, f"the {self.family} reply could not be read: {exc}") from None
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            raise Unscored(types.PARSE_ERROR, f"the {self.family} reply has an unexpected shape: "
                                              f"{type(exc).__name__}: {exc}") from None


class OfflineConversation(ConversationScope, Metric):
    """The offline stand-in of a conversation judge: no offline check measures it, so the conversation's last
    turn gets status ``unsupported`` with the reason, never a number; its other turns ``not_last_turn``."""

    #: why no offline variant measures it
    why: ClassVar[str] = ""

    def __init__(self) -> None:
        self._last = {}

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


def outputs(name: str, definition: str) -> tuple[Output, ...]:
    return (Output(name, definition),)
