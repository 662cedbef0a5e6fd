"""Citation quality after ALCE (Gao et al. 2023, "Enabling Large Language Models to Generate Text with
Citations", EMNLP), from per-sentence support judgments, whichever checker made them.

Let F be the answer's factual sentences, C_s the contexts sentence s cites (references that name no context
excluded), K all retrieved contexts, and phi(X, s) = 1 when the contexts X together support s (the checker's
verdict; phi(empty, s) = 0). Then

.. math::
    \\mathrm{citation\\_recall} = \\frac{|\\{s \\in F : C_s \\neq \\emptyset \\wedge \\phi(C_s, s)\\}|}{|F|}

    \\mathrm{citation\\_precision} = \\frac{\\sum_{s \\in F} \\sum_{c \\in C_s} \\phi(C_s, s)
        \\cdot [\\phi(\\{c\\}, s) \\vee \\neg\\phi(C_s \\setminus \\{c\\}, s)]}{\\sum_{s \\in F} |C_s|}

    \\mathrm{citation\\_coverage} = \\frac{|\\{s \\in F : C_s \\neq \\emptyset\\}|}{|F|}

    \\mathrm{miscited} = \\frac{|\\{s \\in F : C_s \\neq \\emptyset \\wedge \\neg\\phi(C_s, s) \\wedge
        \\phi(K, s)\\}|}{|\\{s \\in F : C_s \\neq \\emptyset\\}|}

A sentence without a citation counts against recall (ALCE); a citation is relevant when the sentence is
supported by its citations and this one supports it alone or is needed by the others (ALCE's conditions A and
B); a sentence is miscited when its citations do not support it but the retrieved contexts do (it is grounded,
and points at the wrong source). Unscored, with a reason and never a 0 or 1 in its place: ``empty_answer``,
``refusal``, ``no_claims`` (no factual sentence), ``empty_context``, ``no_citations`` (no factual sentence
cites anything), ``citation_out_of_range`` (a reference names no context: "[7]" with 5 contexts), ``error``
(a ``citations`` field that does not match the answer), and the judge's statuses.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from genevals import types
from genevals.claims.citations import why_unknown
from genevals.metrics.base import Output, Unscored  # noqa: F401 (raised here and by both variants)
from genevals.metrics.citations.sentences import CitedSentence
from genevals.text import detect_refusal
from genevals.types import MetricResult, Sample

NO_CITATIONS = "no_citations"
OUT_OF_RANGE = "citation_out_of_range"
OUTPUTS = (
    Output("citation_recall", "Share of factual answer sentences supported by the union of the contexts they "
                              "cite (ALCE citation recall; an uncited sentence counts as unsupported)"),
    Output("citation_precision", "Share of citations that are relevant: the sentence is supported by its citations "
                                 "and this one supports it alone or is needed by the others (ALCE)"),
    Output("citation_coverage", "Share of factual answer sentences that carry at least one citation"),
    Output("miscited", "Share of cited sentences whose cited contexts do not support them while the retrieved "
                       "contexts do (grounded, but pointing at the wrong source)", direction="lower"),
)
NAMES = tuple(o.name for o in OUTPUTS)
#: a sentence's verdict
SUPPORTED, MISCITED, UNSUPPORTED, UNCITED, NOT_CHECKED = ("supported", "miscited", "unsupported", "uncited",
                                                           "not_checked")


@dataclass
class CitationCheck:
    """One citation of a sentence: ``alone`` = phi({c}, s); ``rest`` = phi(C_s minus c, s) (False for a single
    citation); the quote in the cited context that supports the sentence, where the checker found one."""

    context: int
    alone: bool
    rest: bool = False
    quote: str = ""
    quote_span: tuple[int, int] | None = None
    score: float | None = None


@dataclass
class SentenceCheck:
    """The checker's verdicts on one cited sentence: ``supported`` = phi(C_s, s); ``elsewhere`` = phi(K, s),
    with ``elsewhere_context`` the retrieved context that supports it best (None: unknown)."""

    supported: bool
    elsewhere: bool
    citations: list[CitationCheck] = field(default_factory=list)
    reason: str = ""
    score: float | None = None
    elsewhere_context: int | None = None


def precheck(sample: Sample, sentences: Sequence[CitedSentence]) -> None:
    """Raise :class:`Unscored` when the answer's citations cannot be scored; the sentences go in its details."""
    shown = {"sentences": [s.to_dict() for s in sentences]}
    if not sample.answer.strip():
        raise Unscored(types.EMPTY_ANSWER, "the answer is empty", **shown)
    refusal = detect_refusal(sample.answer)
    if refusal:
        raise Unscored(types.REFUSAL, f"the answer abstains ('{refusal}'); no citation to check", **shown)
    factual = [s for s in sentences if s.factual]
    if not factual:
        raise Unscored(types.NO_CLAIMS, "no factual sentence (of three or more words, or three letters in a script "
                       "written without spaces) in the answer", **shown)
    if not any(c.text.strip() for c in sample.contexts):
        raise Unscored(types.NO_CONTEXT, types.no_context_reason(
            sample, "the sample has no context text for its citations to point at"), **shown)
    bad = [(s.index, ref) for s in sentences for ref in s.out_of_range]
    if bad:
        where = ", ".join(f"{why_unknown(ref)} in sentence {i + 1}" for i, ref in bad[:5])
        source = "field 'citations': " if sample.citations is not None else ""
        raise Unscored(OUT_OF_RANGE, f"{source}{len(bad)} citation(s) name no context ({where}); the sample has "
                       f"{len(sample.contexts)} context(s), cited by 1-based position or by id", **shown)
    if not any(s.cited for s in factual):
        raise Unscored(NO_CITATIONS, f"none of the answer's {len(factual)} factual sentence(s) cites a context "
                       "(no [n], 【n】, ［n］, (Source n) or ^n marker, and no citations field)", **shown)


def label(sentence: CitedSentence, check: SentenceCheck | None) -> str:
    if not sentence.factual:
        return NOT_CHECKED
    if not sentence.cited or check is None:
        return UNCITED
    if check.supported:
        return SUPPORTED
    return MISCITED if check.elsewhere else UNSUPPORTED


def relevant(check: SentenceCheck, citation: CitationCheck) -> bool:
    """ALCE: the sentence is supported by its citations, and this one supports it alone or the rest do not."""
    return check.supported and (citation.alone or not citation.rest)


def scored(sentences: Sequence[CitedSentence], checks: Mapping[int, SentenceCheck],
           details: Mapping[str, Any]) -> dict[str, MetricResult]:
    """The four outputs from the checks of the cited factual sentences (keyed by sentence index); the
    per-sentence record goes in ``citation_recall``'s details."""
    factual = [s for s in sentences if s.factual]
    cited = [s for s in factual if s.cited]
    records, n_cites, n_relevant, n_supported, n_miscited = [], 0, 0, 0, 0
    for s in sentences:
        check = checks.get(s.index) if s.factual and s.cited else None
        verdict = label(s, check)
        record = {**s.to_dict(), "verdict": verdict}
        if check is not None:
            n_supported += check.supported
            n_miscited += verdict == MISCITED
            record.update({"reason": check.reason, "score": check.score,
                           "elsewhere_context": check.elsewhere_context, "citations": []})
            for c in check.citations:
                rel = relevant(check, c)
                n_cites += 1
                n_relevant += rel
                record["citations"].append({"context": c.context, "relevant": rel, "alone": c.alone,
                                            "needed": not c.rest, "quote": c.quote,
                                            "quote_span": list(c.quote_span) if c.quote_span else None,
                                            "score": c.score})
        records.append(record)
    counts = {"sentences": len(sentences), "factual": len(factual), "cited": len(cited),
              "supported": n_supported, "miscited": n_miscited, "citations": n_cites, "relevant": n_relevant}
    return {
        "citation_recall": MetricResult("citation_recall", n_supported / len(factual),
                                        details={"sentences": records, "counts": counts, **details}),
        "citation_precision": MetricResult("citation_precision", n_relevant / n_cites,
                                           details={"relevant": n_relevant, "citations": n_cites}),
        "citation_coverage": MetricResult("citation_coverage", len(cited) / len(factual),
                                          details={"cited": len(cited), "factual": len(factual)}),
        "miscited": MetricResult("miscited", n_miscited / len(cited),
                                 details={"miscited": n_miscited, "cited": len(cited)}),
    }


def unscored(status: str, reason: str, details: Mapping[str, Any]) -> dict[str, MetricResult]:
    """Every output unscored with ``status``; ``details`` go on ``citation_recall``."""
    return {name: MetricResult.unscored(name, status, reason, **(dict(details) if name == NAMES[0] else {}))
            for name in NAMES}
