"""Where the LLM judge's words stand in the sample: a claim's ``source`` excerpt in the answer (step 1 of
:mod:`genevals.metrics.faithfulness.faithfulness`), and a verdict's evidence quote in the contexts (step 2).

A claim is the answer's only when its excerpt (or, without one, its own text) is found in the answer (exact,
folded, then fuzzy at ``fuzzy_threshold``), it is no copy of the prompt's worked example, every number it states
is the answer's and every name it states is in the answer, the question or the earlier turns
(:mod:`~genevals.metrics.faithfulness.anchors`, issue 52: "Adults pay 20 crowns" is no claim of "Adults pay 18
crowns"), and at least :data:`GROUNDED_MIN` of its content units occur in the answer, the question or the earlier
turns. Any other claim is ``invented``: kept apart, never counted against the answer. A quote is
looked for exactly or folded, never fuzzily, first in the context the judge named, then in the others.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from rapidfuzz import fuzz

from genevals.claims.locate import grounded_fraction, locate, locate_parts
from genevals.metrics.faithfulness import anchors
from genevals.metrics.judging import prompts
from genevals.types import Claim, Context, Sample, Verdict

#: below this share of a claim's content units found in the answer, question or history, it is invented content
GROUNDED_MIN = 0.5
#: rapidfuzz ratio (0-100) at which a claim that is not in the answer counts as a copy of the worked example
EXAMPLE_COPY_RATIO = 90.0


def claim_in_answer(index: int, text: str, source: str, sample: Sample, fuzzy_threshold: float) -> Claim:
    """The claim with its spans in the answer; ``located=False`` with a note when it is not the answer's."""
    answer = sample.answer
    for example in prompts.example_claims():
        if fuzz.ratio(text.lower(), example.lower()) >= EXAMPLE_COPY_RATIO and \
                locate(text, answer, threshold=fuzzy_threshold) is None:
            return Claim(index, text, (), located=False,
                         note="copied from the prompt's worked example, not in the answer")
    matches = locate_parts(source, answer, threshold=fuzzy_threshold) if source else None
    if matches is None:
        # No usable excerpt: the claim text itself may be verbatim.
        match = locate(text, answer, threshold=fuzzy_threshold)
        matches = [match] if match is not None else None
    if matches is None:
        return Claim(index, text, (), located=False, note="source excerpt not found in the answer")
    spans = tuple((m.start, m.end) for m in matches)
    # a conversation's turn: the decomposer resolves "it" from the earlier turns, so their words are no
    # invention either
    earlier = [content for _, content in sample.history]
    absent = anchors.missing(text, answer, [sample.question, *earlier], sample.language)
    if absent is not None:
        return Claim(index, text, spans, located=False, note=f"{absent} (invented content)")
    if grounded_fraction(text, answer, sample.question, *earlier) < GROUNDED_MIN:
        return Claim(index, text, spans, located=False,
                     note="claim words mostly absent from the answer and question (invented content)")
    return Claim(index, text, spans, located=True)


def verdict_in_contexts(claim_index: int, raw: Mapping[str, Any], contexts: Sequence[Context]) -> Verdict:
    """The judge's parsed verdict ``raw`` with its quote located: ``quote_found`` and its span when found, and
    the context it was found in (said in the reason when it is not the one the judge named)."""
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
