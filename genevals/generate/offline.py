"""The offline generator: what ``genevals generate`` makes with no judge configured. Honest about what it is:
keyword queries and extracted sentences, for ranking retrievers, not natural questions.

**known_item** (simulated known-item queries; Azzopardi, de Rijke & Balog 2007, "Building simulated queries
for known-item topics", SIGIR): the known item is the slot's chunk ``d``. A query length ``k = 1 + K`` with
``K ~ Poisson(3)`` (at most :data:`MAX_TERMS`); then ``k`` distinct terms drawn, each from the mixture

    p(t | q) = (1 - λ) · p_disc(t | d) + λ · p(t),     λ = :data:`NOISE` = 0.2

with the paper's discriminative document model ``p_disc(t | d) = (b(t,d) / p(t)) / Σ_{t'∈d} (1 / p(t'))``
(``b(t,d) = 1`` when ``t`` occurs in ``d``) and the collection model ``p(t) = cf(t) / |C|`` over every chunk.
The noise term stands for a searcher's imperfect memory; a term drawn twice is drawn again (at most 50 tries).
The reference is the chunk itself, its evidence the whole chunk; relevant: the chunk.

**extractive**: a sentence of the chunk (a seeded choice among those with at least :data:`MIN_SENTENCE` words)
is the reference, verbatim, with its offsets as evidence; the question is a query drawn as above from that
sentence alone (so the sentence is what it asks for). The item's language is the chunk's (detected).

Not good for (the card repeats it): judging answer quality, faithfulness, reasoning, multi-hop, refusals or
conversation; the questions are bags of words, not questions people ask.
"""
from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path

from genevals.generate.chunks import words
from genevals.generate.items import Chunk, Evidence, Item
from genevals.generate.slots import Slot
from genevals.language import detect
from genevals.language.sentences import segment

NOISE = 0.2
MEAN_EXTRA_TERMS = 3.0
MAX_TERMS = 8
MIN_SENTENCE = 6
GENERATOR = "offline"
#: what the card says these items are not good for
NOT_GOOD_FOR = ("answer quality or faithfulness (references are extracted text, not answers)",
                "reasoning, multi-hop, summary, refusal or conversational behaviour (no such items are made)",
                "natural-language question understanding (questions are sampled keywords, not questions)")
TYPES = ("known_item", "extractive")
#: the ranking-agreement figures of benchmarks/bench_generate_cranfield.py (its --card), packaged
CARD = Path(__file__).with_name("offline_card.json")


def measured() -> dict:
    """The packaged benchmark figures, with what they say in words (each number read from them): whether the
    offline queries rank systems as the human queries do better than titles do, and their lexical bias."""
    card = json.loads(CARD.read_text(encoding="utf-8"))
    tau = card["kendall_tau_vs_human"]
    ours, title = tau["ndcg@10"]["genevals_offline"], tau["ndcg@10"]["title"]
    beats = card["offline_beats_title"]
    human, offline = card["ndcg10_human"], card["ndcg10_offline"]
    says = [f"Kendall tau with the human ranking of {card['collection']}: nDCG@10 {ours['tau']} "
            f"[{ours['ci95'][0]}, {ours['ci95'][1]}] (titles as queries: {title['tau']}; a random sentence of "
            f"the document: {tau['ndcg@10']['random_sentence']['tau']}), MAP "
            f"{tau['map']['genevals_offline']['tau']} (titles: {tau['map']['title']['tau']}); "
            + ("beats titles on " + " and ".join(m for m, b in beats.items() if b) if any(beats.values())
               else "does not beat titles as queries")
            + ("; does not beat them on " + " and ".join(m for m, b in beats.items() if not b)
               if any(beats.values()) and not all(beats.values()) else ""),
            f"lexical bias: under these queries BM25 has nDCG@10 {offline['bm25']} and dense MiniLM "
            f"{offline['dense']}; under the human queries {human['bm25']} and {human['dense']}: do not compare dense "
            "with lexical retrievers on them"]
    return {**card, "says": says}


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's multiplication method: the number of uniforms whose product stays above e^-mean."""
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


class OfflineGenerator:
    """Known-item and extractive items from the corpus's chunks (module docstring); ``.generate`` as every
    generator has it."""

    name = GENERATOR

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.collection = Counter(w for c in chunks for w in words(c.text))
        self.size = sum(self.collection.values())
        self.vocabulary = sorted(self.collection)
        self.cumulative = list(accumulate(self.collection[v] for v in self.vocabulary))

    def p(self, term: str) -> float:
        return self.collection[term] / self.size

    def query(self, text: str, rng: random.Random) -> tuple[str, int]:
        """(a query drawn from ``text``'s model, its length asked) (module docstring)."""
        terms = sorted(set(words(text)))
        if not terms:
            return "", 0
        weights = [1.0 / max(self.p(t), 1e-12) for t in terms]
        k = min(1 + _poisson(rng, MEAN_EXTRA_TERMS), MAX_TERMS, len(terms))
        chosen: list[str] = []
        for _ in range(50 * k):
            if len(chosen) == k:
                break
            if rng.random() < NOISE:
                term = rng.choices(self.vocabulary, cum_weights=self.cumulative)[0]
            else:
                term = rng.choices(terms, weights=weights)[0]
            if term not in chosen:
                chosen.append(term)
        return " ".join(chosen), k

    def estimate(self, slot: Slot, chunks: Sequence[Chunk]) -> tuple[int, int]:
        """No model is called: (0, 0) tokens."""
        return 0, 0

    def generate(self, slot: Slot, chunks: Sequence[Chunk], language: str) -> Item:
        if slot.type not in TYPES:
            raise ValueError(f"the offline generator makes {' and '.join(TYPES)} items, not {slot.type}; "
                             "configure a judge (--judge-base-url or --judge-model) for the other types")
        chunk = chunks[0]
        rng = random.Random(f"offline:{slot.seed}")
        lang = detect(chunk.text).code
        if slot.type == "known_item":
            source, evidence = chunk.text, Evidence(chunk.id, chunk.text, 0, len(chunk.text))
        else:
            spans = [(s, e) for s, e in segment(chunk.text) if len(words(chunk.text[s:e])) >= MIN_SENTENCE]
            s, e = rng.choice(spans) if spans else (0, len(chunk.text))
            source, evidence = chunk.text[s:e], Evidence(chunk.id, chunk.text[s:e], s, e)
        question, k = self.query(source, rng)
        provenance = {"generator": f"{GENERATOR}:{slot.type}", "seed": slot.seed,
                      "model": "Azzopardi-deRijke-Balog-2007 discriminative term sampling",
                      "noise": NOISE, "query_length": k}
        return Item(f"g{slot.index:05d}", slot.type, question, source, (chunk.id,), (evidence,), language=lang,
                    persona=slot.persona, style=slot.style, length=slot.length, provenance=provenance)
