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

from genevals import types
from genevals.claims.locate import FUZZY_THRESHOLD, locate_parts
from genevals.judge.client import CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.judge.runtime import JudgeRuntime
from genevals.metrics.base import usage_statistics
from genevals.metrics.judging import prompts
from genevals.metrics.judging.judge_metric import GuardedJudge
from genevals.metrics.judging.parse import ParseError, extract_json
from genevals.metrics.triad.rag_formulas import NO_PAIR, NO_QUESTION, Unscored, first_reference  # noqa: F401
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample


def spans_of(source: str, text: str) -> list[list[int]]:
    """Where a verbatim excerpt (parts may be joined by "...") lies in ``text``: [[start, end], ...], or []."""
    found = locate_parts(source, text, threshold=FUZZY_THRESHOLD) if source and source.strip() else None
    return [[m.start, m.end] for m in found] if found else []


def numbered_contexts(sample: Sample, budget_chars: int) -> tuple[str, bool]:
    """The sample's chunks numbered [1], [2], ... in retrieval order, each cut to an equal share of
    ``budget_chars``; and whether any was cut."""
    n = max(1, len(sample.contexts))
    each = max(200, budget_chars // n)
    parts, truncated = [], False
    for i, ctx in enumerate(sample.contexts):
        text = ctx.text.strip() or "(empty)"
        if len(text) > each:
            text, truncated = text[:each] + " ...", True
        parts.append(f"[{i + 1}] {text}")
    return "\n\n".join(parts), truncated


class SingleCallJudge(GuardedJudge):
    """Base of the one-call judges: subclasses set ``family``, ``outputs``, ``prompt`` and implement
    :meth:`_check` (statuses before any call), :meth:`_prompt`, :meth:`_schema` and :meth:`_score_reply`."""

    #: the prompt file (prompts/<prompt>.md)
    prompt: ClassVar[str] = ""
    #: completion tokens allowed for the one reply
    reply_tokens: ClassVar[int] = 1024

    def __init__(self, judge: JudgeConfig | None = None) -> None:
        self.judge = judge if judge is not None else JudgeConfig()
        self.runtime = JudgeRuntime(self.judge, prompts.prompt_version(self.prompt))
        self.context_token_budget = self.judge.context_budget

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
        text = self._prompt(sample)
        params = self.runtime.params(self.reply_tokens)
        if self.judge.dry_run:
            p, c = estimate_tokens(text), params["max_tokens"] // 2
            raise Unscored(types.DRY_RUN, f"dry run: no judge calls; about {p} prompt + {c} completion tokens in "
                           "1 request (~4 characters per token; tiktoken unavailable offline)",
                           usage={"estimated_requests": 1, "estimated_prompt_tokens": p,
                                  "estimated_completion_tokens": c, "estimated_cost_usd": self.runtime.cost(p, c)})
        call = log.add(await self.runtime.client().complete(self.prompt, prompts.user(text), self._schema(sample),
                                                            params))
        if not call.ok:
            raise Unscored(types.JUDGE_ERROR, f"{self.prompt} call failed after {call.attempts} request(s): "
                                              f"{call.failure}")
        details = self._details(log)
        if call.completion.finish_reason == "length":
            details["issues"] = [f"{self.prompt} reply hit max_tokens"]
        try:
            reply, salvaged = extract_json(call.completion.text)
            if salvaged:
                details.setdefault("issues", []).append("reply was truncated; kept its complete part")
            return self._score_reply(sample, reply, details)
        except ParseError as exc:
            raise Unscored(types.PARSE_ERROR, f"the {self.prompt} reply could not be read: {exc}") from None
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            raise Unscored(types.PARSE_ERROR, f"the {self.prompt} reply has an unexpected shape: "
                                              f"{type(exc).__name__}: {exc}") from None


def text_field(item: Mapping[str, Any], *keys: str) -> str:
    """The first string among ``item[key]`` for ``keys``, stripped ('' when none)."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def flag(item: Mapping[str, Any], *keys: str) -> bool | None:
    """A yes/no field as bool (true/false, "yes"/"no", 1/0); None when absent or unreadable."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
            return value.strip().lower() in ("true", "yes")
    return None


def items_of(reply: Any, key: str) -> list[Mapping[str, Any]]:
    """The list of objects under ``reply[key]``; ParseError when there is none."""
    if not isinstance(reply, Mapping) or not isinstance(reply.get(key), list):
        raise ParseError(f"reply has no '{key}' list")
    return [item for item in reply[key] if isinstance(item, Mapping)]
