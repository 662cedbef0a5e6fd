"""Pairwise preference: two systems' answers to the same question, judged twice with the order swapped.

For every question answered by two or more systems, each pair of systems (a, b) gets two judge calls
(``prompts/pairwise.md``): a's answer as "A" and b's as "B", then b's as "A" and a's as "B". Each call names a
winner or a tie, with a reason; when the two orders disagree, the pair is a tie (position bias is not a
preference). The two calls serve both systems' samples: the outcome is memoised in the process (and the
judge cache holds the replies), so a pair costs 2 calls, not 4.

The per-sample value (the mean outcome against the other systems: win 1, tie 0.5, loss 0) and the per-pair
win / tie / loss rates with their paired CI are :mod:`genevals.metrics.triad.preference`'s, written there with
their formulas for both variants. The judge sees the question, the
reference when there is one, and the contexts: once when both systems retrieved the same texts, else each
answer's own. On a conversation's turn the judge also reads the earlier turns: once when both systems' turns
have the same history, else each answer's own conversation ("Before answer A" / "Before answer B"); a turn
without history gets the prompt it always had. Unscored: ``no_pair`` (no other system answered the question),
``empty_answer`` (either answer empty), ``judge_error``, ``parse_error`` (either reply unreadable), ``dry_run``.
Refusals are judged: a refusal can be the better answer.
"""
from __future__ import annotations

import asyncio
from typing import Any, Mapping

from genevals import types
from genevals.judge.client import CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.judge.runtime import REPEAT
from genevals.metrics.base import register
from genevals import prompt_render
from genevals.metrics.judging.judge_metric import JudgeMetric
from genevals.metrics.judging.parse import ParseError, extract_json
from genevals.metrics.triad.preference import PAIRWISE_OUTPUTS, SCORE, PairwiseStats, combine
from genevals.metrics.triad.rag_formulas import NO_PAIR, Unscored
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample
from genevals.settings import Setting


def _winner(reply: Any) -> tuple[str, str]:
    if not isinstance(reply, Mapping):
        raise ParseError("reply is not a JSON object")
    raw = reply.get("winner", reply.get("better"))
    value = str(raw).strip().lower().removeprefix("answer").strip(" .\"'") if raw is not None else ""
    if value not in ("a", "b", "tie"):
        raise ParseError(f"'winner' must be A, B or tie, got {raw!r}")
    reason = reply.get("reason")
    return value, reason if isinstance(reason, str) else ""


OFFLINE_NOTE = ("no judge configured: pairwise comes from its offline variant (see genevals metrics pairwise_local); "
                "--judge-base-url for an LLM judge\n"
                "The offline variant compares the answers' offline answer_correctness against the reference, else their "
                "offline answer_relevance.")


@register
class Pairwise(PairwiseStats, JudgeMetric):
    """LLM judge: preference between systems on the same question, asked in both orders (disagreement = tie).

    Args:
        judge: the :class:`JudgeConfig`.
        contexts: show the retrieved contexts to the judge (default yes).
        references: show the reference answer when there is one (default yes).
    """
    jury_support = ("its verdicts are preferences between two answers, counted into win rates per system; "
                    "a jury of them is not combined yet")
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("contexts", bool, True, "show the judge the contexts"),
        Setting("references", bool, True, "show the judge the reference answers"),
    )

    family = "pairwise"
    outputs = PAIRWISE_OUTPUTS
    order = 76
    offline_alternative = ("pairwise_local", OFFLINE_NOTE)

    prompts = ("pairwise",)

    def __init__(self, judge: JudgeConfig | None = None, **values: Any) -> None:
        super().__init__(judge, **values)
        self._by_id: dict[str, dict[str, Sample]] = {}
        self._done: dict[tuple[str, str, str, int], dict[str, Any]] = {}
        self._tasks: dict[tuple[str, str, str], asyncio.Task] = {}
        self._loop: Any = None

    def __getstate__(self) -> dict[str, Any]:
        # tasks belong to one event loop; a copy sent to another process starts without them
        return {**self.__dict__, "_tasks": {}, "_loop": None}

    # -- metric protocol -------------------------------------------------------------------------------
    def signature(self) -> str:
        return make_signature("pairwise", variant="llm", **self.runtime.signature_settings(), orders="both",
                              disagreement="tie",
                              contexts=self.contexts, references=self.references, budget=self.context_token_budget,
                              **self.language_signature())

    def describe(self) -> dict[str, str]:
        return {"pairwise": "LLM judge: " + self.outputs[0].definition}

    # -- scoring ---------------------------------------------------------------------------------------
    def _details(self, log: CallLog) -> dict[str, Any]:
        return self.judge_details(log, "llm")

    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        log = CallLog()
        try:
            return {"pairwise": await self._score_one(sample, log)}
        except Unscored as exc:
            details = {**self._details(log), **exc.details}
            if exc.status in (types.PARSE_ERROR, types.JUDGE_ERROR):
                details["transcript"] = log.transcript()
            return {"pairwise": MetricResult.unscored("pairwise", exc.status, self.runtime.redact(exc.reason),
                                                      **details)}
        except Exception as exc:  # a bug must not lose the sample
            return {"pairwise": MetricResult.unscored(
                "pairwise", types.ERROR, self.runtime.redact(f"internal error: {type(exc).__name__}: {exc}"),
                **self._details(log), transcript=log.transcript())}
        finally:
            self.runtime.add_total(log.usage)

    async def _score_one(self, sample: Sample, log: CallLog) -> MetricResult:
        others = self.opponents(sample)
        if not others:
            raise Unscored(NO_PAIR, f"no other system answered question '{sample.id}'; nothing to compare with")
        if self.judge.dry_run:
            p = sum(estimate_tokens(self._prompt(sample, self._by_id[sample.id][t])) for t in others) * 2
            raise Unscored(types.DRY_RUN, f"dry run: no judge calls; about {p} prompt tokens in {2 * len(others)} "
                           "request(s), fewer when the other system's sample is judged first",
                           usage={"estimated_requests": 2 * len(others), "estimated_prompt_tokens": p})
        duels = await asyncio.gather(*(self._duel(sample, t, log) for t in others))
        failed = [d for d in duels if d.get("status")]
        if failed:
            d = failed[0]
            raise Unscored(d["status"], f"against {d['opponent']}: {d['reason']}", duels=duels)
        value = sum(SCORE[d["outcome"]] for d in duels) / len(duels)
        return MetricResult("pairwise", value, details={**self._details(log), "duels": duels})

    async def _duel(self, sample: Sample, other: str, log: CallLog) -> dict[str, Any]:
        """The outcome for ``sample``'s system against ``other``, judging the pair unless already judged."""
        a, b = sorted((sample.system, other))
        key = (sample.id, a, b, REPEAT.get())  # each judge repeat judges the pair anew
        pair = self._done.get(key)
        if pair is None:
            loop = asyncio.get_running_loop()
            if self._loop is not loop:
                self._tasks, self._loop = {}, loop
            task = self._tasks.get(key)
            mine = task is None
            if mine:
                group = self._by_id[sample.id]
                task = self._tasks[key] = asyncio.ensure_future(self._judge_pair(group[a], group[b]))
            pair, calls = await task
            if mine:
                for call in calls.calls:
                    log.add(call)
                self._done[key] = pair
        me = "a" if sample.system == a else "b"
        duel: dict[str, Any] = {"opponent": other, "position": me, **pair}
        if not pair.get("status"):
            duel["outcome"] = "tie" if pair["winner"] == "tie" else ("win" if pair["winner"] == me else "loss")
        return duel

    def _prompt(self, first: Sample, second: Sample) -> str:
        extra = []
        ref = next((r for r in first.references if r.strip()), "") or next(
            (r for r in second.references if r.strip()), "")
        if self.references and ref:
            extra.append(f'Reference answer: """{ref}"""')
        if self.contexts:
            budget = self.context_token_budget * 4
            one, two = ([c.text.strip() for c in s.contexts if c.text.strip()] for s in (first, second))
            if one == two and one:
                extra.append("Context:\n" + _cut(one, budget))
            else:
                for label, texts in (("A", one), ("B", two)):
                    if texts:
                        extra.append(f"Context given to answer {label}:\n" + _cut(texts, budget // 2))
        # a conversation's turn: the earlier turns resolve the question's references ("How long does *it* take?")
        return prompt_render.with_histories(prompt_render.render(
            "pairwise", question=first.question.strip() or second.question.strip() or "(none)",
            extra="\n".join(extra), answer_a=first.answer, answer_b=second.answer), first, second)

    async def _judge_pair(self, sa: Sample, sb: Sample) -> tuple[dict[str, Any], CallLog]:
        """Both orders for systems a < b: {"winner": a/b/tie, "agreed", "orders": [...]}, or a status."""
        calls = CallLog()
        for s in (sa, sb):
            if not s.answer.strip():
                return {"status": types.EMPTY_ANSWER, "reason": f"system {s.system}'s answer is empty"}, calls
        schema = {"type": "object", "properties": {"reason": {"type": "string", "maxLength": 300},
                                                   "winner": {"type": "string", "enum": ["A", "B", "tie"]}},
                  "required": ["reason", "winner"], "additionalProperties": False}
        client, params = self.runtime.client(), self.runtime.params(200)
        orders = []
        for stage, (x, y) in (("pairwise", (sa, sb)), ("pairwise-swapped", (sb, sa))):
            call = calls.add(await client.complete(stage, prompt_render.user(self._prompt(x, y)), schema, params))
            if not call.ok:
                return {"status": types.JUDGE_ERROR, "reason": f"{stage} call failed after {call.attempts} "
                                                               f"request(s): {call.failure}"}, calls
            try:
                said, reason = _winner(extract_json(call.completion.text)[0])
            except ParseError as exc:
                return {"status": types.PARSE_ERROR, "reason": f"the {stage} reply could not be read: {exc}"}, calls
            # map "A"/"B" of this order back to the pair's a / b
            mapped = "tie" if said == "tie" else ("a" if (said == "a") == (x is sa) else "b")
            orders.append({"order": [x.system, y.system], "said": said.upper() if said != "tie" else "tie",
                           "winner": mapped, "reason": reason})
        winner, agreed = combine(orders[0]["winner"], orders[1]["winner"])
        return {"winner": winner, "agreed": agreed, "orders": orders, "pair": [sa.system, sb.system]}, calls


def _cut(texts: list[str], budget: int) -> str:
    each = max(200, budget // max(1, len(texts)))
    return "\n".join(f"[{i + 1}] {t[:each] + (' ...' if len(t) > each else '')}" for i, t in enumerate(texts))
