"""LLM-as-judge faithfulness: decompose the answer into claims, verify them against the contexts, score.

Pipeline per answer (normally 2 judge calls; a repair re-ask only when a reply is unusable):

1. Decompose (``prompts/decompose.md``): the answer -> atomic, self-contained claims, each with a verbatim
   ``source`` excerpt of the answer. The excerpt is located in the answer (exact, then whitespace/case
   normalised, then fuzzy with rapidfuzz ``partial_ratio_alignment`` >= 90); its spans are kept for the
   report. A claim is ``located=False`` (listed, counted in ``unlocated_claims``, never scored) when its
   excerpt is not in the answer, when it copies the prompt's worked example, or when fewer than half of its
   content words occur in the answer or question (invented content).
2. Verify (``prompts/verify.md``): the located claims, numbered, against the numbered contexts; verdicts come
   back by claim id with a label, the context relied on, a verbatim quote and a reason. Quotes are matched in
   their context (whitespace/case normalised; ``quote_found`` flags the rest). Contexts longer than
   ``context_token_budget`` (~4 characters per token) are cut into windows; each claim is checked against the
   windows that share the most content words with it, and its best verdict is kept, in the order
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
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rapidfuzz import fuzz

from genevals import types
from genevals.judge import prompts
from genevals.judge.client import CallRecord, JudgeError, SampleUsage, estimate_tokens
from genevals.judge.locate import FUZZY_THRESHOLD, content_words, grounded_fraction, locate, locate_parts
from genevals.judge.parse import ParseError, parse_claims, parse_verdicts
from genevals.judge.runtime import JudgeRuntime, detect_refusal
from genevals.metrics.base import ConcurrentMetric, usage_statistics
from genevals.signature import make_signature
from genevals.types import Claim, Context, MetricResult, Sample, Verdict

OUTPUTS = ("faithfulness", "contradiction_rate", "unverifiable_rate")
DRY_RUN = "dry_run"
LABEL_ORDER = {types.SUPPORTED: 0, types.CONTRADICTED: 1, types.UNVERIFIABLE: 2}
GROUNDED_MIN = 0.5
EXAMPLE_COPY_RATIO = 90.0
WINDOWS_PER_CLAIM = 2
_BOUNDARY = re.compile(r"\n\s*\n|(?<=[.!?])\s+")


@dataclass
class _Piece:
    context_index: int  # 0-based into sample.contexts
    start: int
    end: int


@dataclass
class _Window:
    pieces: list[_Piece] = field(default_factory=list)
    chars: int = 0


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


def split_windows(contexts: Sequence[Context], budget_chars: int) -> list[_Window]:
    """Cut contexts into pieces of at most ``budget_chars`` at paragraph/sentence ends and pack them in order."""
    pieces: list[_Piece] = []
    for ci, ctx in enumerate(contexts):
        text = ctx.text
        if not text.strip():
            continue
        start = 0
        while len(text) - start > budget_chars:
            limit = start + budget_chars
            cut = None
            for m in _BOUNDARY.finditer(text, start + budget_chars // 2, limit):
                cut = m.end()
            if cut is None:
                space = text.rfind(" ", start + budget_chars // 2, limit)
                cut = space + 1 if space > start else limit
            pieces.append(_Piece(ci, start, cut))
            start = cut
        pieces.append(_Piece(ci, start, len(text)))
    windows: list[_Window] = []
    for piece in pieces:
        size = piece.end - piece.start
        if not windows or windows[-1].chars + size > budget_chars:
            windows.append(_Window())
        windows[-1].pieces.append(piece)
        windows[-1].chars += size
    return windows


class Faithfulness(ConcurrentMetric):
    """Share of the answer's claims that the contexts support (LLM judge: decompose, verify, score).

    faithfulness = supported / n, contradiction_rate = contradicted / n, unverifiable_rate =
    (unverifiable + missing verdicts) / n, over the n claims located in the answer. Claims, spans, verdicts,
    evidence quotes, token usage and the judge are in details; unscored answers carry a typed status.
    """

    family = "faithfulness"

    def __init__(self, backend: str = "auto", base_url: str | None = None, model: str | None = None,
                 api_key: str | None = None, concurrency: int = 4, max_retries: int = 4, timeout: float = 60.0,
                 cache_dir: str | None = None, cache: bool = True, context_token_budget: int | None = None,
                 prices: Mapping[str, Mapping[str, float]] | None = None, dry_run: bool = False, seed: int = 0,
                 max_claims: int = 12, max_tokens: int | None = None, judge_model: str | None = None,
                 n_ctx: int = 4096, n_threads: int | None = None, provider: Any = None,
                 backoff_base: float = 0.5, backoff_max: float = 30.0,
                 fuzzy_threshold: float = FUZZY_THRESHOLD, worked_example: bool | None = None) -> None:
        self.runtime = JudgeRuntime(
            backend=backend, base_url=base_url, model=model or judge_model, api_key=api_key,
            concurrency=concurrency, max_retries=max_retries, timeout=timeout, cache_dir=cache_dir, cache=cache,
            prices=prices, dry_run=dry_run, seed=seed, n_ctx=n_ctx, n_threads=n_threads, provider=provider,
            backoff_base=backoff_base, backoff_max=backoff_max,
            prompt_version=prompts.prompt_version("decompose", "verify"))
        if context_token_budget is None:
            # leave room in a local model's window for the instructions, the claims and the reply
            context_token_budget = max(256, n_ctx // 2 - 512) if self.runtime.backend == "llamacpp" else 6000
        self.context_token_budget = int(context_token_budget)
        self.max_claims = int(max_claims)
        self.max_tokens = max_tokens
        self.fuzzy_threshold = fuzzy_threshold
        # The worked example in decompose.md helps capable judges; tiny base models copy it verbatim, so
        # smoke runs may leave it out (worked_example=False). Either way, copies of it are never scored.
        # By default it is left out only for the packaged tiny model, which copied it for 20 of 20 RAGTruth
        # answers (every answer then came back no_claims).
        if worked_example is None:
            worked_example = self.runtime.warning is None
        self.worked_example = bool(worked_example)
        self.dry_run = dry_run
        self.seed = seed

    # -- metric protocol -------------------------------------------------------------------------------
    def output_names(self) -> list[str]:
        return list(OUTPUTS)

    @property
    def warning(self) -> str | None:
        return self.runtime.warning

    def signature(self) -> str:
        return make_signature("faithfulness", **self.runtime.signature_settings(),
                              budget=self.context_token_budget, max_claims=self.max_claims,
                              example=self.worked_example,
                              order="supported>contradicted>unverifiable")

    def describe(self) -> dict[str, str]:
        return {
            "faithfulness": "LLM judge: share of the answer's claims supported by the contexts (supported / claims)",
            "contradiction_rate": "LLM judge: share of the answer's claims contradicted by the contexts",
            "unverifiable_rate": "LLM judge: share of claims the contexts neither support nor contradict "
                                 "(missing verdicts count here)",
        }

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """The sample's judge usage (requests, tokens, cost or the dry-run estimate), summed per system."""
        return usage_statistics(outputs.get("faithfulness"), "judge_")

    # -- scoring ---------------------------------------------------------------------------------------
    def _base_details(self, usage: SampleUsage) -> dict[str, Any]:
        details: dict[str, Any] = {"judge": self.runtime.judge_info(), "usage": self.runtime.usage_dict(usage)}
        if self.warning:
            details["warning"] = self.warning
        return details

    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        usage = SampleUsage()
        transcript: list[CallRecord] = []
        try:
            return await self._score_one(sample, usage, transcript)
        except _Unscored as exc:
            details = {**self._base_details(usage), **exc.details}
            if exc.status in (types.PARSE_ERROR, types.JUDGE_ERROR, types.ERROR):
                details["transcript"] = [r.to_dict() for r in transcript]
            return self._unscored(exc.status, exc.reason, details)
        except Exception as exc:  # a bug must not lose the sample: record it
            details = {**self._base_details(usage), "transcript": [r.to_dict() for r in transcript]}
            reason = self.runtime.redact(f"internal error: {type(exc).__name__}: {exc}")
            return self._unscored(types.ERROR, reason, details)
        finally:
            self.runtime.add_total(usage)

    @staticmethod
    def _unscored(status: str, reason: str, details: dict[str, Any]) -> dict[str, MetricResult]:
        return {"faithfulness": MetricResult.unscored("faithfulness", status, reason, **details),
                "contradiction_rate": MetricResult.unscored("contradiction_rate", status, reason),
                "unverifiable_rate": MetricResult.unscored("unverifiable_rate", status, reason)}

    def _params(self, max_tokens: int) -> dict[str, Any]:
        cap = self.max_tokens
        return {"temperature": 0.0, "seed": self.seed, "max_tokens": min(max_tokens, cap) if cap else max_tokens}

    async def _score_one(self, sample: Sample, usage: SampleUsage,
                         transcript: list[CallRecord]) -> dict[str, MetricResult]:
        answer = sample.answer
        if not answer.strip():
            raise _Unscored(types.EMPTY_ANSWER, "the answer is empty")
        refusal = detect_refusal(answer)
        if refusal:
            raise _Unscored(types.REFUSAL, f"the answer abstains ('{refusal}'); not sent to the judge")
        contexts = sample.contexts
        if not any(c.text.strip() for c in contexts):
            raise _Unscored(types.NO_CONTEXT, "the sample has no context text to verify claims against")
        if self.dry_run:
            reason, details = self._estimate(sample)
            raise _Unscored(DRY_RUN, reason, **details)

        client = self.runtime.client()
        claims, notes, issues = await self._decompose(client, sample, usage, transcript)
        located = [c for c in claims if c.located]
        claim_dicts = [self._claim_dict(c, notes.get(c.index)) for c in claims]
        n_unlocated = len(claims) - len(located)
        if not claims:
            raise _Unscored(types.NO_CLAIMS, "the judge found no checkable claims in the answer",
                            claims=[], verdicts=[], unlocated_claims=0, issues=issues)
        if not located:
            raise _Unscored(types.NO_CLAIMS, f"the judge returned {len(claims)} claim(s) but none could be "
                            "located in the answer (not verbatim, invented, or copied from the prompt example)",
                            claims=claim_dicts, verdicts=[], unlocated_claims=n_unlocated, issues=issues)

        verdicts, v_issues, any_parsed = await self._verify(client, sample, located, usage, transcript)
        issues += v_issues
        verdict_dicts = [self._verdict_dict(v) for v in verdicts]
        if not any_parsed:
            raise _Unscored(types.PARSE_ERROR, "no verdict could be read from the judge's verify replies "
                            "(after one repair re-ask)", claims=claim_dicts, verdicts=verdict_dicts,
                            unlocated_claims=n_unlocated, issues=issues)

        n = len(located)
        counts = {label: sum(1 for v in verdicts if v.label == label and not v.missing) for label in LABEL_ORDER}
        missing = sum(1 for v in verdicts if v.missing)
        counts["missing"] = missing
        details = {"claims": claim_dicts, "verdicts": verdict_dicts, "unlocated_claims": n_unlocated,
                   "counts": counts, "issues": issues, **self._base_details(usage)}
        return {
            "faithfulness": MetricResult("faithfulness", counts[types.SUPPORTED] / n, details=details),
            "contradiction_rate": MetricResult("contradiction_rate", counts[types.CONTRADICTED] / n,
                                               details={"contradicted": counts[types.CONTRADICTED], "claims": n}),
            "unverifiable_rate": MetricResult("unverifiable_rate", (counts[types.UNVERIFIABLE] + missing) / n,
                                              details={"unverifiable": counts[types.UNVERIFIABLE],
                                                       "missing": missing, "claims": n}),
        }

    # -- decompose -------------------------------------------------------------------------------------
    async def _decompose(self, client, sample: Sample, usage: SampleUsage,
                         transcript: list[CallRecord]) -> tuple[list[Claim], dict[int, str], list[str]]:
        messages = prompts.user(prompts.render("decompose", blocks={"example": self.worked_example}, max_claims=self.max_claims,
                                               question=sample.question.strip() or "(none)", answer=sample.answer))
        schema = prompts.decompose_schema(self.max_claims)
        params = self._params(min(4096, 96 + self.max_claims * 110))
        completion = await self._call(client, "decompose", messages, schema, params, usage, transcript)
        try:
            raw, issues = parse_claims(completion.text, self.max_claims)
        except ParseError as exc:
            repair = [*messages, {"role": "assistant", "content": completion.text},
                      {"role": "user", "content": f"That reply could not be read ({exc}). Reply again with JSON "
                                                  'only, in the form {"claims": [{"claim": "...", "source": "..."}]}.'}]
            completion = await self._call(client, "decompose-repair", repair, schema, params, usage, transcript)
            try:
                raw, issues = parse_claims(completion.text, self.max_claims)
            except ParseError as exc2:
                raise _Unscored(types.PARSE_ERROR, f"the decompose reply could not be parsed, also after one "
                                f"repair re-ask: {exc2}") from None
            issues = [f"decompose reply unreadable ({exc}); repaired by re-asking"] + issues
        if completion.finish_reason == "length":
            issues.append("decompose reply hit max_tokens")
        claims, notes = [], {}
        for i, item in enumerate(raw):
            claim, note = self._locate_claim(i, item["claim"], item["source"], sample)
            claims.append(claim)
            if note:
                notes[i] = note
        return claims, notes, issues

    def _locate_claim(self, index: int, text: str, source: str, sample: Sample) -> tuple[Claim, str | None]:
        """The claim with its spans in the answer, and why it is not located (None when it is)."""
        answer = sample.answer
        for example in prompts.example_claims():
            if fuzz.ratio(text.lower(), example.lower()) >= EXAMPLE_COPY_RATIO and \
                    locate(text, answer, threshold=self.fuzzy_threshold) is None:
                return Claim(index, text, (), located=False), \
                    "copied from the prompt's worked example, not in the answer"
        matches = locate_parts(source, answer, threshold=self.fuzzy_threshold) if source else None
        if matches is None:
            # No usable excerpt: the claim text itself may be verbatim.
            match = locate(text, answer, threshold=self.fuzzy_threshold)
            matches = [match] if match is not None else None
        if matches is None:
            return Claim(index, text, (), located=False), "source excerpt not found in the answer"
        if grounded_fraction(text, answer, sample.question) < GROUNDED_MIN:
            return Claim(index, text, tuple((m.start, m.end) for m in matches), located=False), \
                "claim words mostly absent from the answer and question (invented content)"
        return Claim(index, text, tuple((m.start, m.end) for m in matches), located=True), None

    # -- verify ----------------------------------------------------------------------------------------
    async def _verify(self, client, sample: Sample, located: list[Claim], usage: SampleUsage,
                      transcript: list[CallRecord]) -> tuple[list[Verdict], list[str], bool]:
        contexts = sample.contexts
        ids = {i + 1: claim for i, claim in enumerate(located)}  # claim number shown to the judge
        windows = split_windows(contexts, self.context_token_budget * 4)
        if len(windows) == 1:
            assignments = [list(ids)]
        else:
            assignments = self._assign(windows, ids, contexts)
        outcomes = await asyncio.gather(*(
            self._verify_window(client, sample, w, {i: ids[i] for i in assigned}, usage, transcript, k)
            for k, (w, assigned) in enumerate(zip(windows, assignments)) if assigned))
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
            verdicts.append(self._make_verdict(claim.index, best, contexts))
        return verdicts, issues, any_parsed

    @staticmethod
    def _assign(windows: list[_Window], ids: Mapping[int, Claim], contexts: Sequence[Context]) -> list[list[int]]:
        """Claim ids per window: each claim goes to the WINDOWS_PER_CLAIM windows sharing most words with it."""
        window_words = [set().union(*(content_words(contexts[p.context_index].text[p.start:p.end])
                                      for p in w.pieces)) for w in windows]
        assigned: list[list[int]] = [[] for _ in windows]
        for cid, claim in ids.items():
            words = content_words(claim.text)
            overlap = [(len(words & ww), -k) for k, ww in enumerate(window_words)]
            ranked = sorted(range(len(windows)), key=lambda k: overlap[k], reverse=True)
            chosen = [k for k in ranked[:WINDOWS_PER_CLAIM] if overlap[k][0] > 0] or ranked[:1]
            for k in chosen:
                assigned[k].append(cid)
        return assigned

    def _render_contexts(self, sample: Sample, window: _Window) -> str:
        parts = []
        for piece in window.pieces:
            ctx = sample.contexts[piece.context_index]
            whole = piece.start == 0 and piece.end == len(ctx.text)
            label = f"[{piece.context_index + 1}]" + ("" if whole else " (excerpt)")
            parts.append(f"{label} {ctx.text[piece.start:piece.end].strip()}")
        return "\n\n".join(parts)

    async def _verify_window(self, client, sample: Sample, window: _Window, claims: dict[int, Claim],
                             usage: SampleUsage, transcript: list[CallRecord], k: int) -> _Outcome:
        outcome = _Outcome()
        contexts_text = self._render_contexts(sample, window)
        todo = dict(claims)
        for attempt in range(2):  # the first ask, then one targeted re-ask for the missing ids only
            stage = "verify" if attempt == 0 else "verify-reask"
            reask = "" if attempt == 0 else (
                f"\nAn earlier reply gave no usable verdict for claim(s) {', '.join(map(str, todo))}. Return one "
                "verdict for each of exactly these ids, with a valid label.\n")
            messages = prompts.user(prompts.render(
                "verify", blocks={"example": self.worked_example}, contexts=contexts_text, claims=prompts.format_claims({i: c.text for i, c in todo.items()}),
                reask=reask))
            schema = prompts.verify_schema(len(todo), len(sample.contexts))
            params = self._params(min(4096, 64 + 150 * len(todo)))
            completion = await self._call(client, stage if k == 0 else f"{stage}[window {k + 1}]", messages,
                                          schema, params, usage, transcript)
            try:
                got, issues = parse_verdicts(completion.text, set(todo))
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

    def _make_verdict(self, claim_index: int, raw: Mapping[str, Any], contexts: Sequence[Context]) -> Verdict:
        quote = (raw.get("quote") or "").strip()
        ctx_no = raw.get("context")
        ci = ctx_no - 1 if isinstance(ctx_no, int) and 1 <= ctx_no <= len(contexts) else None
        span = None
        found_in = None
        if quote:
            order = ([ci] if ci is not None else []) + [j for j in range(len(contexts)) if j != ci]
            for j in order:
                match = locate(quote, contexts[j].text, fuzzy=False)
                if match is not None:
                    span, found_in = (match.start, match.end), j
                    break
        reason = raw.get("reason") or ""
        if found_in is not None and found_in != ci:
            reason = (reason + " " if reason else "") + f"[quote found in context {found_in + 1}, " \
                                                        f"not the context {ctx_no} the judge named]"
            ci = found_in
        return Verdict(claim_index=claim_index, label=raw["label"], context_index=ci, quote=quote,
                       quote_found=span is not None, quote_span=span, reason=reason.strip())

    # -- plumbing --------------------------------------------------------------------------------------
    async def _call(self, client, stage, messages, schema, params, usage, transcript):
        try:
            return await client.complete(stage, messages, schema, params, usage, transcript)
        except JudgeError as exc:
            attempts = getattr(exc, "attempts", 1)
            raise _Unscored(types.JUDGE_ERROR, client.redact(
                f"{stage} call failed after {attempts} request(s): {exc}")) from None

    def _claim_dict(self, claim: Claim, note: str | None) -> dict[str, Any]:
        d = {"index": claim.index, "text": claim.text, "spans": [list(s) for s in claim.spans],
             "located": claim.located}
        if note:
            d["note"] = note
        return d

    @staticmethod
    def _verdict_dict(v: Verdict) -> dict[str, Any]:
        return {"claim_index": v.claim_index, "label": v.label, "context_index": v.context_index,
                "quote": v.quote, "quote_found": v.quote_found,
                "quote_span": list(v.quote_span) if v.quote_span is not None else None,
                "reason": v.reason, "missing": v.missing}

    def _estimate(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        """Dry run: prompt tokens of the real decompose prompt and of the verify prompt(s) with claims
        estimated as the answer's length, at ~4 characters per token (tiktoken is not available offline)."""
        decompose = prompts.render("decompose", blocks={"example": self.worked_example}, max_claims=self.max_claims,
                                   question=sample.question.strip() or "(none)", answer=sample.answer)
        sentences = max(1, len(re.findall(r"[.!?](?:\s|$)", sample.answer)))
        n_claims = min(self.max_claims, int(sentences * 1.5) + 1)
        windows = split_windows(sample.contexts, self.context_token_budget * 4)
        prompt_tokens = estimate_tokens(decompose)
        for w in windows:
            prompt_tokens += estimate_tokens(prompts.render("verify", blocks={"example": self.worked_example},
                                                            contexts=self._render_contexts(sample, w),
                                                            claims=sample.answer, reask=""))
        completion_tokens = estimate_tokens(sample.answer) * 2 + 40 * n_claims * len(windows)
        estimate = {"requests": 1 + len(windows), "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "cost_usd": self.runtime.cost(prompt_tokens, completion_tokens),
                    "method": "estimate at ~4 characters per token (tiktoken unavailable offline); no calls made"}
        reason = (f"dry run: no judge calls; about {prompt_tokens} prompt + {completion_tokens} completion tokens "
                  f"in {1 + len(windows)} request(s)")
        return reason, {"dry_run": estimate, "usage": {"estimated_" + k: v for k, v in estimate.items()
                                                       if k != "method"}}
