"""LLM rubric judge: 1-5 scores for coherence, relevance, fluency, coverage and user-defined criteria.

One judge call per answer grades every criterion (``prompts/rubric.md``); criteria missing from the reply get
one targeted re-ask for just those. Each criterion is an output ``rubric_<name>`` with value
(score - 1) / 4 in [0, 1] and the raw 1-5 score and the judge's reason in details. Same backends, options,
retries, cache and usage accounting as ``faithfulness``. A conversation's turn is graded with its earlier turns
(``prompts/history.md``'s "Conversation so far" block, before the question); a sample without history gets the
prompt it always had, so its request, cache key and prompt hash are unchanged.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from genevals import types
from genevals.judge.client import CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.metrics.base import Output, register, usage_statistics
from genevals import prompt_render
from genevals.metrics.judging import prompts
from genevals.metrics.judging.judge_metric import JudgeMetric
from genevals.metrics.judging.parse import ParseError, parse_rubric
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

DEFAULT_CRITERIA: dict[str, str] = {
    "coherence": "The answer is well organised and logically consistent; its sentences connect and do not "
                 "contradict each other.",
    "relevance": "The answer addresses the question (or the task) and stays on topic.",
    "fluency": "The answer is grammatical, readable and natural.",
    "coverage": "The answer covers the key information from the context that the question needs.",
}
PREFIX = "rubric_"
DRY_RUN = types.DRY_RUN
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


def check_criteria(criteria: Mapping[str, Any]) -> None:
    """Each criterion a lowercase name with a description, else a ValueError naming it."""
    for name, description in criteria.items():
        if not _NAME.match(name):
            raise ValueError(f"rubric criterion name '{name}' must be lowercase letters, digits and _")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(f"rubric criterion '{name}' needs a description (--rubric-criteria NAME=DESCRIPTION)")


@register
class Rubric(JudgeMetric):
    """LLM judge rubric: 1-5 per criterion, reported as (score - 1) / 4.

    Criteria: coherence, relevance, fluency, coverage, plus ``criteria`` (name -> description; a default
    name overrides its description; ``default_criteria=False`` keeps only yours).
    """
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("criteria", dict, None, "extra criteria, NAME=DESCRIPTION", rule=check_criteria),
        Setting("default_criteria", bool, True, "keep the default criteria"),
    )

    family = "llm_rubric"
    outputs = (Output(PREFIX + "{criterion}", "LLM rubric, 1-5 as (s-1)/4, for one criterion"),)
    order = 75

    prompts = ("rubric",)

    def __init__(self, judge: JudgeConfig | None = None, **values: Any) -> None:
        super().__init__(judge, **values)
        # the criteria scored: the defaults (unless left out), then the ones given, which may replace them
        chosen = dict(DEFAULT_CRITERIA) if self.default_criteria else {}
        for name, description in (self.criteria or {}).items():
            chosen[name] = description.strip()
        if not chosen:
            raise ValueError("llm_rubric needs at least one criterion")
        self.criteria = chosen

    def output_names(self) -> list[str]:
        return [PREFIX + name for name in self.criteria]

    def signature(self) -> str:
        return make_signature("llm_rubric", **self.runtime.signature_settings(), criteria=list(self.criteria),
                              scale="1-5", value="(s-1)/4", budget=self.context_token_budget,
                              **self.language_signature())

    def describe(self) -> dict[str, str]:
        return {PREFIX + name: f"LLM rubric, 1-5 as (s-1)/4: {desc}" for name, desc in self.criteria.items()}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """The sample's judge usage (requests, tokens, cost), summed into the system's totals."""
        result = outputs.get(self.output_names()[0])
        return usage_statistics(result, "rubric_judge_")

    def _common(self) -> dict[str, Any]:
        d: dict[str, Any] = {"judge": self.runtime.judge_info()}
        if self.warning:
            d["warning"] = self.warning
        return d

    def _all_unscored(self, status: str, reason: str, usage: dict[str, Any],
                      transcript: list[dict[str, Any]] | None) -> dict[str, MetricResult]:
        out = {}
        for k, name in enumerate(self.criteria):
            details = self._common()
            if k == 0:
                details["usage"] = usage
                if transcript:
                    details["transcript"] = transcript
            out[PREFIX + name] = MetricResult.unscored(PREFIX + name, status, reason, **details)
        return out

    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        log = CallLog()
        try:
            return await self._score_one(sample, log)
        except Exception as exc:  # never lose a sample
            return self._all_unscored(types.ERROR, self.runtime.redact(f"internal error: {type(exc).__name__}: "
                                                                       f"{exc}"), self.runtime.usage_dict(log.usage),
                                      log.transcript())
        finally:
            self.runtime.add_total(log.usage)

    def _context_text(self, sample: Sample) -> tuple[str, bool]:
        budget = self.context_token_budget * 4
        parts, used, truncated = [], 0, False
        for i, ctx in enumerate(sample.contexts):
            text = ctx.text.strip()
            if not text:
                continue
            if used + len(text) > budget:
                text, truncated = text[: max(0, budget - used)], True
            if text:
                parts.append(f"[{i + 1}] {text}")
                used += len(text)
            if truncated:
                break
        return ("\n\n".join(parts) or "(no context)"), truncated

    def _messages(self, sample: Sample, criteria: list[str]) -> tuple[list[dict[str, str]], bool]:
        contexts, truncated = self._context_text(sample)
        listing = "\n".join(f"- {name}: {self.criteria[name]}" for name in criteria)
        # a conversation's turn gets its earlier turns, so "it" in the question has a referent
        text = prompt_render.with_history(prompt_render.render("rubric", criteria=listing, question=sample.question.strip() or
                                                   "(none)", contexts=contexts, answer=sample.answer), sample)
        return prompt_render.user(text), truncated

    def _params(self, n: int) -> dict[str, Any]:
        return self.runtime.params(48 + 90 * n)

    async def _score_one(self, sample: Sample, log: CallLog) -> dict[str, MetricResult]:
        if not sample.answer.strip():
            return self._all_unscored(types.EMPTY_ANSWER, "the answer is empty", self.runtime.usage_dict(log.usage),
                                      None)
        names = list(self.criteria)
        if self.judge.dry_run:
            messages, _ = self._messages(sample, names)
            p, c = estimate_tokens(messages[0]["content"]), self._params(len(names))["max_tokens"] // 2
            est = {"estimated_requests": 1, "estimated_prompt_tokens": p, "estimated_completion_tokens": c,
                   "estimated_cost_usd": self.runtime.cost(p, c)}
            return self._all_unscored(DRY_RUN, f"dry run: no judge calls; about {p} prompt tokens "
                                      "(~4 characters per token; tiktoken unavailable offline)", est, None)
        client = self.runtime.client()
        got: dict[str, dict[str, Any]] = {}
        issues: list[str] = []
        truncated = False
        todo = names
        parsed_any = False
        for attempt in range(2):  # ask, then one targeted re-ask for the criteria that did not come back
            messages, truncated = self._messages(sample, todo)
            call = log.add(await client.complete("rubric" if attempt == 0 else "rubric-reask", messages,
                                                 prompts.rubric_schema(todo), self._params(len(todo))))
            if not call.ok:
                return self._all_unscored(
                    types.JUDGE_ERROR, f"rubric call failed after {call.attempts} request(s): {call.failure}",
                    self.runtime.usage_dict(log.usage), log.transcript())
            completion = call.completion
            try:
                scores, found_issues = parse_rubric(completion.text, todo)
                parsed_any = True
            except ParseError as exc:
                scores, found_issues = {}, [f"reply unreadable: {exc}"]
            got.update(scores)
            issues += found_issues
            todo = [n for n in todo if n not in got]
            if not todo:
                break
        out: dict[str, MetricResult] = {}
        usage_d = self.runtime.usage_dict(log.usage)
        for k, name in enumerate(names):
            details = self._common()
            if k == 0:
                details["usage"] = usage_d
                if issues:
                    details["issues"] = issues
                if truncated:
                    details["contexts_truncated"] = True
            if name in got:
                s = got[name]["score"]
                details.update({"score": s, "reason": got[name]["reason"], "criterion": self.criteria[name]})
                out[PREFIX + name] = MetricResult(PREFIX + name, (s - 1) / 4, details=details)
            else:
                details["transcript"] = log.transcript()
                why = "no reply could be parsed" if not parsed_any else f"no valid 1-5 score for '{name}'"
                out[PREFIX + name] = MetricResult.unscored(PREFIX + name, types.PARSE_ERROR,
                                                           f"{why} (after one re-ask)", **details)
        return out
