"""Citations checked by an LLM judge: one batched verification call per answer, whatever its number of
sentences and citations (``prompts/citations.md``), and one repair re-ask only when that reply cannot be read:
at most 2 calls per answer. Cached and retried by the judge client like every judge call.

For each cited factual sentence s the judge says whether its citations together support it (phi(C_s, s)),
whether each cited passage supports it alone (phi({c}, s), with the supporting quote, located in the passage),
and which passages support it at all (phi(K, s) = that list is not empty). phi(C_s minus c, s) is read as
"another cited passage supports s alone", exact for one or two citations and a lower bound beyond. The
formulas are :mod:`genevals.metrics.citations.formulas`'. A cited sentence the reply gives no verdict for
counts as unsupported (flagged ``missing``); a reply with no readable verdict is ``parse_error``; a call that
fails after the client's retries is ``judge_error``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genevals import types
from genevals.claims.locate import locate
from genevals.judge.client import CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.language import sentences as sentence_rules
from genevals.metrics.base import register, usage_statistics
from genevals.metrics.citations import formulas
from genevals.metrics.citations.formulas import CitationCheck, SentenceCheck, Unscored
from genevals.metrics.citations.local import checked_pattern, markers_setting, sentences_of
from genevals.metrics.citations.sentences import CitedSentence
from genevals import prompt_render
from genevals.metrics.judging.judge_metric import GuardedJudge
from genevals.metrics.judging.parse import ParseError, _as_int, _typed, extract_json
from genevals.metrics.judging.prompts import numbered_contexts
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

PROMPT = "citations"
OFFLINE_NOTE = ("no judge configured: citations come from their offline variant (see genevals metrics "
                "citations_local); --judge-base-url for an LLM judge\n"
                "In the offline variant the local grounding checker decides whether the cited chunks support each "
                "sentence.")
#: reply tokens per checked sentence, and for the reply's frame
TOKENS_PER_SENTENCE, TOKENS_BASE = 160, 64


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    return None


def render_sentences(checked: list[CitedSentence]) -> str:
    return "\n".join(f"S{k + 1}: {s.text} (cites: {', '.join(str(c + 1) for c in s.cited)})"
                     for k, s in enumerate(checked))


def schema(n_sentences: int) -> dict[str, Any]:
    cited = {"type": "object", "properties": {"passage": {"type": "integer"}, "alone": {"type": "boolean"},
                                              "quote": {"type": "string", "maxLength": 400}},
             "required": ["passage", "alone", "quote"], "additionalProperties": False}
    item = {"type": "object",
            "properties": {"id": {"type": "integer"}, "supported": {"type": "boolean"},
                           "cited": {"type": "array", "items": cited},
                           "supported_by": {"type": "array", "items": {"type": "integer"}},
                           "reason": {"type": "string", "maxLength": 200}},
            "required": ["id", "supported", "cited", "supported_by", "reason"], "additionalProperties": False}
    return {"type": "object", "properties": {"sentences": {"type": "array", "maxItems": max(1, n_sentences),
                                                           "items": item}},
            "required": ["sentences"], "additionalProperties": False}


@_typed  # a value the reply cannot hold (a 5,000-digit number) is an unreadable reply, not a crash of the metric
def parse_reply(text: str, sample: Sample, checked: list[CitedSentence]) -> tuple[dict[int, SentenceCheck], list[str]]:
    """The checks by sentence index, and the issues met; ParseError when no verdict can be read."""
    reply, salvaged = extract_json(text)
    issues = ["reply was truncated; kept its complete part"] if salvaged else []
    items = reply.get("sentences") if isinstance(reply, Mapping) else None
    if not isinstance(items, list):
        raise ParseError("reply has no 'sentences' list")
    found: dict[int, SentenceCheck] = {}
    n = len(sample.contexts)
    for item in items:
        if not isinstance(item, Mapping):
            continue
        k = _as_int(item.get("id"))
        supported = _flag(item.get("supported"))
        if k is None or not 1 <= k <= len(checked) or checked[k - 1].index in found or supported is None:
            issues.append(f"verdict {item.get('id')!r} unreadable, unknown or repeated: ignored")
            continue
        s = checked[k - 1]
        by_passage: dict[int, Mapping[str, Any]] = {}
        for c in item.get("cited") or []:
            p = _as_int(c.get("passage")) if isinstance(c, Mapping) else None
            if p is not None and 1 <= p <= n:
                by_passage.setdefault(p - 1, c)
        alone = {ci: bool(_flag(by_passage.get(ci, {}).get("alone"))) for ci in s.cited}
        citations = []
        for ci in s.cited:
            quote = by_passage.get(ci, {}).get("quote")
            quote = quote.strip() if isinstance(quote, str) else ""
            at = locate(quote, sample.contexts[ci].text) if quote else None
            citations.append(CitationCheck(ci, alone[ci], any(alone[o] for o in s.cited if o != ci),
                                           quote=sample.contexts[ci].text[at.start:at.end] if at else "",
                                           quote_span=(at.start, at.end) if at else None))
        backers = [p - 1 for p in (_as_int(x) for x in item.get("supported_by") or []) if p is not None and 1 <= p <= n]
        reason = item.get("reason") if isinstance(item.get("reason"), str) else ""
        found[s.index] = SentenceCheck(supported, supported or bool(backers), citations, reason,
                                       elsewhere_context=next((b for b in backers if b not in s.cited),
                                                              backers[0] if backers else None))
    if not found:
        raise ParseError("no verdict for any sentence could be read")
    for s in checked:
        if s.index not in found:
            issues.append(f"sentence {s.index + 1}: no verdict in the reply; counted as unsupported")
            found[s.index] = SentenceCheck(False, False, [CitationCheck(ci, False) for ci in s.cited],
                                           "no verdict in the reply (missing); counted as unsupported")
    return found, issues


@register
class Citations(GuardedJudge):
    """LLM judge: ALCE citation recall, precision, coverage and miscited sentences, one batched call per answer.

    Args:
        judge: the :class:`JudgeConfig`.
        pattern: a regular expression for the citation markers (group ``ref``, else its first group, holds the
            references); None: ``[n]``, ``[n, m]``, ``[n-m]``, ``[id]``, ``(Source n)`` and ``^n``.
    """
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("pattern", str, None, "regex of citation markers (RE2; group 'ref' holds the references)"),
    )

    family = "citations"
    outputs = formulas.OUTPUTS
    order = 84
    offline_alternative = ("citations_local", OFFLINE_NOTE)
    headline = ("citation_recall", "citation_precision", "miscited")

    prompts = (PROMPT,)

    def __init__(self, judge: JudgeConfig | None = None, **values: Any) -> None:
        super().__init__(judge, **values)
        self.pattern_text = self.pattern
        self.pattern = checked_pattern(self.pattern_text)

    def signature(self) -> str:
        return make_signature("citations", variant="llm", **self.runtime.signature_settings(),
                              markers=markers_setting(self.pattern_text), sentences=sentence_rules.name(),
                              **self.language_signature())

    def describe(self) -> dict[str, str]:
        return {o.name: "LLM judge: " + o.definition for o in self.outputs}

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        return usage_statistics(outputs.get("citation_recall"), "citations_judge_")

    async def _call(self, log: CallLog, stage: str, messages, n: int):
        params = self.runtime.params(TOKENS_BASE + TOKENS_PER_SENTENCE * n)
        call = log.add(await self.runtime.client().complete(stage, messages, schema(n), params))
        if not call.ok:
            raise Unscored(types.JUDGE_ERROR, f"{stage} call failed after {call.attempts} request(s): {call.failure}")
        return call.completion

    async def _score_one(self, sample: Sample, log: CallLog) -> dict[str, MetricResult]:
        sentences = sentences_of(sample, self.pattern)
        checked = [s for s in sentences if s.factual and s.cited]
        contexts, cut = numbered_contexts(sample, self.judge.context_budget * 4)
        text = prompt_render.render(PROMPT, contexts=contexts, sentences=render_sentences(checked))
        shown = {"sentences": [s.to_dict() for s in sentences]}
        if self.judge.dry_run:
            p, c = estimate_tokens(text), (TOKENS_BASE + TOKENS_PER_SENTENCE * len(checked)) // 2
            raise Unscored(types.DRY_RUN, f"dry run: no judge calls; about {p} prompt + {c} completion tokens in "
                           "1 request (~4 characters per token)", **shown,
                           usage={"estimated_requests": 1, "estimated_prompt_tokens": p,
                                  "estimated_completion_tokens": c, "estimated_cost_usd": self.runtime.cost(p, c)})
        messages = prompt_render.user(text)
        completion = await self._call(log, PROMPT, messages, len(checked))
        try:
            found, issues = parse_reply(completion.text, sample, checked)
        except ParseError as exc:
            repair = [*messages, {"role": "assistant", "content": completion.text},
                      {"role": "user", "content": f"That reply could not be read ({exc}). Reply again with JSON only, "
                                                  'in the form {"sentences": [{"id": 1, "supported": true, "cited": '
                                                  '[{"passage": 1, "alone": true, "quote": "..."}], "supported_by": '
                                                  '[1], "reason": "..."}]}.'}]
            completion = await self._call(log, f"{PROMPT}-repair", repair, len(checked))
            try:
                found, issues = parse_reply(completion.text, sample, checked)
            except ParseError as exc2:
                raise Unscored(types.PARSE_ERROR, f"the citations reply could not be read, also after one repair "
                                                  f"re-ask: {exc2}", **shown) from None
            issues.insert(0, f"citations reply unreadable ({exc}); repaired by re-asking")
        if completion.finish_reason == "length":
            issues.append("citations reply hit max_tokens")
        details = {**self._details(log), "issues": issues, "source": (
            "field" if sample.citations is not None else "markers"), **self.language_details(sample)}
        if cut:
            details["contexts_truncated"] = True
        return formulas.scored(sentences, found, details)
