"""The no-LLM grader: the packaged MiniLM ``context_relevance_local`` model's calibrated probability of relevance,
cut into grades 0-3.

For a topic's text q and a document d, p(q, d) is exactly what ``context_relevance_local`` computes for chunk d
of a sample asking q (:class:`genevals.metrics.triad.local_relevance.ContextRelevanceLocal`: the cosine of
MiniLM embeddings of q and d's first word pieces, whether d is a passage, a logistic regression fit on WikiQA and
Cranfield). The grade is the number of cut points :data:`CUTS` that p reaches:

    grade 0: p < 0.5 (the model's own relevant / not relevant threshold)
    grade 1: 0.5 <= p < 0.6
    grade 2: 0.6 <= p < 0.75
    grade 3: p >= 0.75

0.6 and 0.75 split the pairs the model calls relevant into thirds, measured on the judged documents and 10
random ones of the first 40 Cranfield development topics (the ones ``queries.tsv`` holds; the other 109 are kept
for measuring how far these labels can be trusted).

This variant is coarse. The model was fit for a binary verdict, so only the first cut point is calibrated; the
others split the relevant side by confidence, not by how much of the answer a document holds, and a similarity
model cannot tell a document that answers from one that is merely on the topic. Use it to get labels where there
are none and no judge can be run, and an LLM judge (:mod:`genevals.labels.umbrela`) where the labels matter; how
far the rankings each gives can be trusted is measured in benchmarks/RESULTS.md ("Issue 40").
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

#: the probabilities from which a document gets grade 1, 2 and 3
CUTS = (0.5, 0.6, 0.75)
#: documents embedded at a time (one topic's pool is one call to the model, cut into batches of this size)
BATCH = 64


def grade_of(p: float, cuts: Sequence[float] = CUTS) -> int:
    """The grade of probability ``p``: how many of ``cuts`` it reaches."""
    return sum(1 for cut in cuts if p >= cut)


def identity() -> dict[str, Any]:
    """What the provenance says of this grader."""
    from genevals.grounding.checker import MODEL_NAME
    from genevals.metrics.triad.calibration import calibration
    from genevals.metrics.triad.triad_features import CONTEXT_FEATURES

    return {"judge": "offline", "model": MODEL_NAME, "grader": "context_relevance_local",
            "calibration": calibration("context_relevance", CONTEXT_FEATURES).tag,
            "cut_points": list(CUTS), "prompt_hash": None}


def probabilities(question: str, texts: Sequence[str]) -> list[float]:
    """The calibrated probability that each of ``texts`` is relevant to ``question`` (0 for an empty text)."""
    from genevals.metrics.triad.local_relevance import ContextRelevanceLocal
    from genevals.types import Context, Sample

    metric = ContextRelevanceLocal()
    out: list[float] = []
    for start in range(0, len(texts), BATCH):
        chunk = texts[start:start + BATCH]
        sample = Sample(id="pool", answer="", question=question,
                        contexts=tuple(Context(text=t, rank=i + 1) for i, t in enumerate(chunk)))
        rows, best = metric.chunk_features(sample)
        out += [metric.calibration.probability(row) if span is not None else 0.0
                for row, (_, span) in zip(rows, best)]
    return out


def unsupported(text: str) -> str | None:
    """Why the model cannot grade ``text``: empty, or confidently in a language other than the model's (MiniLM
    knows English); None when it can. A text too short to detect is read as English, as the English-only
    metrics read it."""
    from genevals.language import detect
    from genevals.metrics.triad.local_relevance import ContextRelevanceLocal

    if not text.strip():
        return "empty_document"
    found = detect(text)
    if found.source == "detected" and found.code not in (ContextRelevanceLocal.languages or ()):
        return "unsupported_language"
    return None


def grade(pool: Mapping[str, Sequence[str]], topics: Mapping[str, str], documents: Mapping[str, str],
          progress: Callable[[int], None] | None = None) -> tuple[dict[str, dict[str, int]], dict[str, Any]]:
    """``{topic: {doc: grade}}`` for every pooled pair the model can grade, and how many it left unjudged and why
    (``unsupported_language``: the topic or the document is not English; ``empty_document``): never a grade 0
    for a pair it cannot read."""
    qrels: dict[str, dict[str, int]] = {}
    unjudged: dict[str, int] = {}
    for topic, docs in pool.items():
        topic_problem = unsupported(topics[topic]) and "unsupported_language"
        readable = [] if topic_problem else [d for d in docs if unsupported(documents[d]) is None]
        for doc in docs:
            if doc not in readable:
                why = topic_problem or unsupported(documents[doc])
                unjudged[why] = unjudged.get(why, 0) + 1
        ps = probabilities(topics[topic], [documents[d] for d in readable]) if readable else []
        qrels[topic] = {doc: grade_of(p) for doc, p in zip(readable, ps)}
        if progress is not None:
            progress(len(docs))
    return qrels, unjudged
