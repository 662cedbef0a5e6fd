"""LLM-as-judge faithfulness: decompose the answer into claims, verify them against the contexts, score.

Pipeline per answer (normally 2 judge calls; a repair re-ask only when a reply is unusable):

1. Decompose (``prompts/decompose.md``): the answer -> atomic, self-contained claims, each with a verbatim
   ``source`` excerpt of the answer, in the answer's language. The excerpt is located in the answer (exact,
   then folded: case, whitespace, NFKC-equivalent forms, Arabic vowel marks..., :mod:`genevals.claims.fold`,
   then fuzzy with rapidfuzz ``partial_ratio_alignment`` >= 90); its spans, exact offsets into the answer that
   never cut a grapheme cluster, are kept for the report. A claim is not the answer's when its excerpt is not
   in the answer, when it copies the prompt's worked example, when a number it states is not the answer's or a
   name it states is in none of the answer, question and earlier turns (:mod:`.anchors`, issue 52), or when
   fewer than half of its content units
   (words; Han and kana: pairs of characters, :func:`genevals.claims.locate.grounded_fraction`) occur in the
   answer or question (invented content): it is never listed, counted or verified as the answer's claim, but
   kept apart in ``details["invented_claims"]`` with the judge's transcript, and counted in the
   ``invented_claims`` output (a judge-quality figure, scored whenever the decompose reply was read).
   :mod:`genevals.metrics.faithfulness.locating` places claims in the answer and quotes in the contexts.
2. Verify (``prompts/verify.md``): the located claims, numbered, against the numbered contexts; verdicts come
   back by claim id with a label, the context relied on, a verbatim quote and a reason. Quotes are matched in
   their context (exact or folded, never fuzzy; ``quote_found`` flags the rest: a translated quote is not
   found). Contexts longer than ``context_token_budget`` (~4 characters per token) are cut into windows; each
   claim is checked against the windows that share the most content words with it, and its best verdict is
   kept, in the order
   supported > contradicted > unverifiable (evidence in any part of the contexts supports a claim; an
   explicit conflict is more informative than silence). Verdicts for unknown ids are ignored; missing ones
   get one targeted re-ask for just those ids, and if still missing count as unverifiable with
   ``missing=True`` -- never as supported.
3. Score over the n located claims: faithfulness = supported / n, contradiction_rate = contradicted / n,
   unverifiable_rate = (unverifiable + missing) / n.

Unscored, with a reason and no value: ``empty_answer``, ``refusal`` (detected before any judge call),
``empty_context``, ``no_claims``, ``judge_error`` (after bounded retries), ``parse_error`` (the raw replies are
kept in ``details.transcript``), and ``dry_run`` (token/cost estimate only, no calls).
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Mapping

from genevals import types
from genevals.claims import windows
from genevals.grounding import figure
from genevals.metrics.faithfulness import turn_overlap
from genevals.judge.client import CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.judge.runtime import REPEAT
from genevals.language.sentences import count_ends
from genevals.metrics.base import Output, register, usage_statistics
from genevals.metrics.faithfulness import jury, locating, repeated
from genevals.metrics.faithfulness.verdicts import FAITHFULNESS_OUTPUTS, LABEL_ORDER, scored_outputs, unscored_outputs
from genevals import prompt_render
from genevals.metrics.judging import prompts
from genevals.metrics.judging.judge_metric import JudgeMetric
from genevals.metrics.judging.jury import ClaimJury
from genevals.metrics.judging.parse import ParseError, parse_claims, parse_verdicts
from genevals.signature import make_signature
from genevals.text import detect_refusal
from genevals.types import Claim, MetricResult, Sample, Verdict
from genevals.metrics.settings import FUZZY_THRESHOLD, MAX_CLAIMS, WORKED_EXAMPLE

DRY_RUN = types.DRY_RUN
# The figure is read from the detector's weights file (genevals.grounding.figure), where train_grounding.py wrote
# it (out-of-fold, beside the word-overlap baseline on the same folds): users are told what was measured.
OFFLINE_FIGURE = figure.packaged()
OFFLINE_DEFAULT_NOTE = (
    f"no judge configured: faithfulness is scored offline ({OFFLINE_FIGURE.brief()}); --judge-base-url for an "
    "LLM judge\n"
    f"faithfulness comes from the local grounding checker (no LLM). {OFFLINE_FIGURE.sentence()}. Good for: a free, offline first pass that points at answers with words, "
    "numbers, dates or names missing from their contexts, and smoke tests. Not for: ranking close systems or "
    "trusting one answer's verdict (" + ("it is no better than counting missing words, and it " if
                                         OFFLINE_FIGURE.tie else "it ") +
    "flags nearly every answer written from a JSON record). For those, use --judge-base-url with an instruction-tuned LLM judge and "
    "check it on labelled answers with genevals validate (--judge-backend llamacpp runs the embedded tiny model, "
    "for smoke runs only)" + (". " + turn_overlap.sentence() if turn_overlap.sentence() else ""))


INVENTED_CLAIMS = Output("invented_claims", "claims the judge returned that are not in the answer (invented, or "
                         "copied from the prompt's example): a judge-quality count, never the answer's claims",
                         direction="neither", range=(0.0, None), integer=True)


@dataclass
class _Outcome:
    """What one verify window produced: parsed verdicts by claim index, and whether anything parsed."""

    verdicts: dict[int, dict[str, Any]] = field(default_factory=dict)
    parsed: bool = False
    issues: list[str] = field(default_factory=list)


class _Unscored(Exception):
    def __init__(self, status: str, reason: str, **details: Any):
        super().__init__(reason)
        self.status, self.reason, self.details = status, reason, details


@register
class Faithfulness(JudgeMetric):
    """Share of the answer's claims that the contexts support (LLM judge: decompose, verify, score).

    faithfulness = supported / n, contradiction_rate = contradicted / n, unverifiable_rate =
    (unverifiable + missing verdicts) / n, over the n claims located in the answer. Claims, spans, verdicts,
    evidence quotes, token usage and the judge are in details; unscored answers carry a typed status.

    Args:
        judge: the :class:`JudgeConfig` (default: nothing configured, i.e. the packaged llama.cpp model).
        max_claims: claims asked for per answer.
        worked_example: keep the worked example in the prompts (default: yes, except for the tiny packaged
            model, which copies it).
        fuzzy_threshold: rapidfuzz score (0-100) at which a claim's source excerpt counts as found.
    """
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (MAX_CLAIMS, WORKED_EXAMPLE, FUZZY_THRESHOLD)

    family = "faithfulness"
    repeats_itself = True  # one decomposition, N verifications (:mod:`.repeated`)
    jury_support = ClaimJury  # one decomposition, each judge verifies the same claims (:mod:`.jury`)
    outputs = FAITHFULNESS_OUTPUTS + (INVENTED_CLAIMS,)
    presets = ("all",)
    order = 70
    offline_alternative = ("grounding", OFFLINE_DEFAULT_NOTE)
    # conversation turns: the word-overlap rule where it beats the detector on people's labels (turn_overlap)
    offline_settings = {"turns": turn_overlap.DEFAULT_FOR_TURNS}

    prompts = ("decompose", "verify")

    def __init__(self, judge: JudgeConfig | None = None, **values: Any) -> None:
        super().__init__(judge, **values)
        # The worked example in decompose.md helps capable judges; tiny base models copy it verbatim, so
        # smoke runs may leave it out (worked_example=False). Either way, copies of it are never scored.
        # By default it is left out only for the packaged tiny model, which copied it for 20 of 20 RAGTruth
        # answers (every answer then came back no_claims).
        if self.worked_example is None:
            self.worked_example = self.runtime.warning is None

    # -- metric protocol -------------------------------------------------------------------------------
    def signature(self) -> str:
        return make_signature("faithfulness", **self.runtime.signature_settings(),
                              budget=self.context_token_budget, max_claims=self.max_claims,
                              example=self.worked_example,
                              order="supported>contradicted>unverifiable", **self.language_signature())

    def describe(self) -> dict[str, str]:
        return {name: "LLM judge: " + self.output(name).definition for name in self.output_names()}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """The sample's judge usage (requests, tokens, cost or the dry-run estimate), summed per system."""
        return usage_statistics(outputs.get("faithfulness"), "judge_")

    # -- scoring ---------------------------------------------------------------------------------------
    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        log = CallLog()
        try:
            outputs = await self._score_one(sample, log)
            details = outputs["faithfulness"].details
        except _Unscored as exc:
            details = {**self.judge_details(log), **exc.details}
            if exc.status in (types.PARSE_ERROR, types.JUDGE_ERROR, types.ERROR):
                details["transcript"] = log.transcript()
            outputs = unscored_outputs(exc.status, exc.reason, details)
        except Exception as exc:  # a bug must not lose the sample: record it
            details = {**self.judge_details(log), "transcript": log.transcript()}
            reason = self.runtime.redact(f"internal error: {type(exc).__name__}: {exc}")
            return {**unscored_outputs(types.ERROR, reason, details),
                    "invented_claims": MetricResult.unscored("invented_claims", types.ERROR, reason)}
        finally:
            self.runtime.add_total(log.usage)
        return {**outputs, "invented_claims": self._invented(outputs["faithfulness"], details, log)}

    @staticmethod
    def _invented(faith: MetricResult, details: dict[str, Any], log: CallLog) -> MetricResult:
        """The count of claims not found in the answer; with any, the transcript goes beside them (a
        judge-quality warning the report shows). Unscored, like faithfulness, when no claims were read."""
        invented = details.get("invented_claims")
        if invented is None:
            return MetricResult.unscored("invented_claims", faith.status, faith.reason or "no claims were read")
        if invented and "transcript" not in details:
            details["transcript"] = log.transcript()
        return MetricResult("invented_claims", float(len(invented)))

    async def _score_one(self, sample: Sample, log: CallLog) -> dict[str, MetricResult]:
        answer = sample.answer
        if not answer.strip():
            raise _Unscored(types.EMPTY_ANSWER, "the answer is empty")
        refusal = detect_refusal(answer)
        if refusal:
            raise _Unscored(types.REFUSAL, f"the answer abstains ('{refusal}'); not sent to the judge")
        if not any(c.text.strip() for c in sample.contexts):
            raise _Unscored(types.NO_CONTEXT, types.no_context_reason(
                sample, "the sample has no context text to verify claims against"))
        if self.judge.dry_run:
            reason, details = jury.estimate(self, sample) if getattr(self, "members", None) \
                else self._estimate(sample)
            raise _Unscored(DRY_RUN, reason, **details)

        claims, issues = await self._decompose(sample, log)
        located = [c for c in claims if c.located]
        claim_dicts = [c.to_dict() for c in located]
        invented = [c.to_dict() for c in claims if not c.located]
        if not claims:
            raise _Unscored(types.NO_CLAIMS, "the judge found no checkable claims in the answer",
                            claims=[], verdicts=[], invented_claims=[], issues=issues)
        if not located:
            raise _Unscored(types.NO_CLAIMS, f"the judge returned {len(claims)} claim(s) but none could be "
                            "located in the answer (not verbatim, invented, or copied from the prompt example)",
                            claims=[], verdicts=[], invented_claims=invented, issues=issues)

        if getattr(self, "members", None):  # a jury: each judge verifies these claims (:mod:`.jury`)
            return await jury.score(self, sample, located, log, issues, claim_dicts, invented, _Unscored)
        if self.runtime.repeats > 1:
            return await self._verify_repeated(sample, located, log, issues, claim_dicts, invented)
        verdicts, v_issues, any_parsed = await self._verify(sample, located, log)
        issues += v_issues
        if not any_parsed:
            raise _Unscored(types.PARSE_ERROR, "no verdict could be read from the judge's verify replies "
                            "(after one repair re-ask)", claims=claim_dicts,
                            verdicts=[v.to_dict() for v in verdicts], invented_claims=invented, issues=issues)
        return scored_outputs(located, verdicts, {"issues": issues, "invented_claims": invented,
                                                  **self.judge_details(log)})

    async def _verify_repeated(self, sample: Sample, located: list[Claim], log: CallLog, issues: list[str],
                               claim_dicts: list[dict[str, Any]], invented: list[dict[str, Any]]
                               ) -> dict[str, MetricResult]:
        """--judge-repeats N: verify N times, one majority verdict per claim (:mod:`.repeated`)."""
        got = await repeated.verify_repeats(lambda order: self._verify(sample, order, log), located,
                                            self.runtime.repeats, self.judge.seed, sample.id, _Unscored)
        issues = issues + got.issues
        if got.failure is not None:
            raise _Unscored(got.failure[0], f"every judge repeat failed; the first: {got.failure[1]}",
                            claims=claim_dicts, invented_claims=invented, issues=issues, repeats=got.info)
        return scored_outputs(located, got.verdicts, {"issues": issues, "invented_claims": invented,
                                                      "repeats": got.info, **self.judge_details(log)})

    async def _call(self, log: CallLog, stage: str, messages, schema, max_tokens: int):
        if REPEAT.get():  # the transcript says which repeat asked
            stage = f"{stage} (repeat {REPEAT.get() + 1})"
        call = log.add(await self.runtime.client().complete(stage, messages, schema, self.runtime.params(max_tokens)))
        if not call.ok:
            raise _Unscored(types.JUDGE_ERROR, f"{stage} call failed after {call.attempts} request(s): {call.failure}")
        return call.completion

    # -- decompose -------------------------------------------------------------------------------------
    def _decompose_prompt(self, sample: Sample) -> str:
        return prompt_render.with_history(prompt_render.render(
            "decompose", blocks={"example": self.worked_example}, max_claims=self.max_claims,
            question=sample.question.strip() or "(none)", answer=sample.answer), sample)

    async def _decompose(self, sample: Sample, log: CallLog) -> tuple[list[Claim], list[str]]:
        messages = prompt_render.user(self._decompose_prompt(sample))
        schema = prompts.decompose_schema(self.max_claims)
        budget = min(4096, 96 + self.max_claims * 110)
        completion = await self._call(log, "decompose", messages, schema, budget)
        try:
            raw, issues = parse_claims(completion.text, self.max_claims)
        except ParseError as exc:
            repair = [*messages, {"role": "assistant", "content": completion.text},
                      {"role": "user", "content": f"That reply could not be read ({exc}). Reply again with JSON "
                                                  'only, in the form {"claims": [{"claim": "...", "source": "..."}]}.'}]
            completion = await self._call(log, "decompose-repair", repair, schema, budget)
            try:
                raw, issues = parse_claims(completion.text, self.max_claims)
            except ParseError as exc2:
                raise _Unscored(types.PARSE_ERROR, f"the decompose reply could not be parsed, also after one "
                                f"repair re-ask: {exc2}") from None
            issues = [f"decompose reply unreadable ({exc}); repaired by re-asking"] + issues
        if completion.finish_reason == "length":
            issues.append("decompose reply hit max_tokens")
        return [locating.claim_in_answer(i, item["claim"], item["source"], sample, self.fuzzy_threshold)
                for i, item in enumerate(raw)], issues

    # -- verify ----------------------------------------------------------------------------------------
    async def _verify(self, sample: Sample, located: list[Claim], log: CallLog
                      ) -> tuple[list[Verdict], list[str], bool]:
        contexts = sample.contexts
        ids = {i + 1: claim for i, claim in enumerate(located)}  # claim number shown to the judge
        parts = windows.split_windows(contexts, self.context_token_budget * 4)
        if len(parts) == 1:
            assignments = [list(ids)]
        else:
            assignments = windows.assign(parts, {i: c.text for i, c in ids.items()}, contexts)
        outcomes = await asyncio.gather(*(
            self._verify_window(sample, w, {i: ids[i] for i in assigned}, log, k)
            for k, (w, assigned) in enumerate(zip(parts, assignments)) if assigned))
        issues = [issue for o in outcomes for issue in o.issues]
        any_parsed = any(o.parsed for o in outcomes)
        verdicts = []
        for cid, claim in ids.items():
            candidates = [o.verdicts[cid] for o in outcomes if cid in o.verdicts]
            if not candidates:
                verdicts.append(Verdict(claim.index, types.UNVERIFIABLE, missing=True,
                                        reason="no verdict came back for this claim"))
                continue
            best = min(candidates, key=lambda v: LABEL_ORDER[v["label"]])
            verdicts.append(locating.verdict_in_contexts(claim.index, best, contexts))
        return verdicts, issues, any_parsed

    async def _verify_window(self, sample: Sample, window: windows.Window, claims: dict[int, Claim],
                             log: CallLog, k: int) -> _Outcome:
        outcome = _Outcome()
        contexts_text = windows.render(sample.contexts, window)
        todo = dict(claims)
        for attempt in range(2):  # the first ask, then one targeted re-ask for the missing ids only
            stage = "verify" if attempt == 0 else "verify-reask"
            reask = "" if attempt == 0 else (
                f"\nAn earlier reply gave no usable verdict for claim(s) {', '.join(map(str, todo))}. Return one "
                "verdict for each of exactly these ids, with a valid label.\n")
            messages = prompt_render.user(prompt_render.with_history(prompt_render.render(
                "verify", blocks={"example": self.worked_example}, contexts=contexts_text,
                claims=prompts.format_claims({i: c.text for i, c in todo.items()}), reask=reask),
                sample, "Context passages:", "verify"))
            schema = prompts.verify_schema(len(todo), len(sample.contexts), bool(sample.history))
            completion = await self._call(log, stage if k == 0 else f"{stage}[window {k + 1}]", messages, schema,
                                          min(4096, 64 + 150 * len(todo)))
            try:
                got, issues = parse_verdicts(completion.text, set(todo), bool(sample.history))
                outcome.parsed = True
            except ParseError as exc:
                got, issues = {}, [f"{stage}: reply unreadable: {exc}"]
            outcome.issues += [f"{stage}: {i}" if not i.startswith(stage) else i for i in issues]
            outcome.verdicts.update(got)
            todo = {i: c for i, c in todo.items() if i not in got}
            if not todo:
                break
            if attempt == 0:
                outcome.issues.append(f"{stage}: no verdict for claim id(s) {sorted(todo)}; re-asking for those only")
        if todo:
            outcome.issues.append(f"no verdict for claim id(s) {sorted(todo)}: counted as unverifiable (missing)")
        return outcome

    # -- dry run ---------------------------------------------------------------------------------------
    def _estimate(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        """Dry run: prompt tokens of the real decompose prompt and of the verify prompt(s) with claims
        estimated as the answer's length, at ~4 characters per token (tiktoken is not available offline)."""
        sentences = max(1, count_ends(sample.answer))  # in every script (genevals.language.sentences)
        n_claims = min(self.max_claims, int(sentences * 1.5) + 1)
        parts = windows.split_windows(sample.contexts, self.context_token_budget * 4)
        repeats = self.runtime.repeats  # one decomposition, then each window verified once per repeat
        prompt_tokens = estimate_tokens(self._decompose_prompt(sample))
        for w in parts:
            prompt_tokens += repeats * estimate_tokens(prompt_render.with_history(prompt_render.render(
                "verify", blocks={"example": self.worked_example}, contexts=windows.render(sample.contexts, w),
                claims=sample.answer, reask=""), sample, "Context passages:", "verify"))
        completion_tokens = estimate_tokens(sample.answer) + repeats * (estimate_tokens(sample.answer)
                                                                         + 40 * n_claims * len(parts))
        requests = 1 + repeats * len(parts)
        estimate = {"requests": requests, "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "cost_usd": self.runtime.cost(prompt_tokens, completion_tokens),
                    "method": "estimate at ~4 characters per token (tiktoken unavailable offline); no calls made"}
        reason = (f"dry run: no judge calls; about {prompt_tokens} prompt + {completion_tokens} completion tokens "
                  f"in {requests} request(s)" + (f" ({repeats} judge repeats of verify)" if repeats > 1 else ""))
        return reason, {"dry_run": estimate, "usage": {"estimated_" + k: v for k, v in estimate.items()
                                                       if k != "method"}}
