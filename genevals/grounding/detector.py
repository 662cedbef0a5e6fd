"""The learned hallucination detector: claim- and answer-level features -> two logistic regressions.

Features of a claim (an answer sentence, see :mod:`genevals.grounding.checker`), from its MiniLM alignment and
its tokens (:mod:`genevals.grounding.phrases`):

- ``sim``, ``recall_top``, ``recall_all``: best cosine similarity to a context unit, content-word recall over the
  aligned units and over all contexts;
- ``absent_share``: share of the claim's checkable tokens found in no context; ``absent_log``: log(1 + their
  count); ``absent_run``: the longest run of consecutive absent tokens;
- for numbers, dates and names: how many are absent from every context (``*_absent``) and how many occur in
  the contexts but not in the aligned evidence (``*_elsewhere``: a number or name that belongs to another fact);
- ``negation``: the claim negates and its aligned evidence does not (or the reverse);
- ``field_conflict``, ``field_null``: a JSON record field the claim states with the opposite value, or that is
  null; ``length``: log(1 + words); ``record``: the context is a JSON record.

The **answer model** sees, per feature, the maximum and the mean over the answer's claims (similarity and
recall enter negated, so "max" is the weakest claim), plus ``answer_absent``, the share of the whole answer's
content words absent from the contexts (the word-overlap rule's statistic) and log(1 + number of claims):
``p(answer hallucinated) = sigmoid(w . z + b)`` with ``z`` the standardised features. The **claim model** uses
the claim features plus ``answer_absent`` and gives ``p(claim hallucinated)``; it is trained on whether the
claim overlaps a labelled hallucinated span.

**One rule turns them into labels** (:data:`FLAG_RULE`, :meth:`Detector.flagged`; docs/concepts/offline-verdicts.md):
a claim is flagged when an explicit rule fires (``absent``, always on: none of its content words is in any
context; ``number``, ``date``, ``names``, ``field`` where the weights switch them on), when its own p reaches the
claim threshold, or when the answer's p reaches the answer threshold and it is the answer's likeliest claim;
every other claim is supported, so a supported claim never shows a p at or above the claim threshold. The passage
shown with a verdict is the one it rests on (:func:`passage_for`), or none when no passage is about the claim.

A flagged claim reports the span chosen under cross-validation (``spans``): its unsupported phrase, the clause
around it, or the whole sentence (:func:`genevals.grounding.phrases.answer_span`). The features are computed
with the encoder named in the weights (``encoder``: the first three MiniLM layers, fp32), cheaper than the full model
at no measured cost in F1.

The weights, thresholds, encoder, training data, seed and cross-validated scores are in ``detector.json``,
written by ``tools/train_grounding.py``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from genevals.grounding import phrases
from genevals.grounding.checker import FULL, ClaimFeatures, Encoder, SampleFeatures
from genevals.text import content_words

WEIGHTS_PATH = Path(__file__).with_name("detector.json")
CLAIM_FEATURES = ("sim", "recall_top", "recall_all", "absent_share", "absent_log", "absent_run",
                  "number_absent", "number_elsewhere", "date_absent", "date_elsewhere", "name_absent",
                  "name_elsewhere", "negation", "field_conflict", "field_null", "length", "record")
#: answer-level features (see answer_vector); the compact set won under cross-validation against max/mean of
#: every claim feature, which overfits 468 answers
ANSWER_FEATURES = ("answer_absent", "max_absent_log", "max_absent_run", "mean_recall_top", "mean_sim", "min_sim",
                   "record", "question", "length_ratio", "claims_log", "mean_length")
CLAIM_MODEL_FEATURES = CLAIM_FEATURES + ("answer_absent",)
#: rules on whatever the weights say: a claim none of whose content words occurs in any context
ALWAYS_RULES = ("absent",)
#: words of sentences addressed to the reader ("I hope this helps!", "Let me know if you have any further
#: questions."), which claim nothing about the world: the absent rule does not count them (on RAGTruth dev such
#: sentences were all that made it flag faithful answers)
ADDRESSED = frozenset({"sure", "help", "helps", "helpful", "hope", "know", "further", "questions", "question",
                       "glad", "happy", "assist", "thanks", "thank", "please", "certainly"})
#: why each explicit rule fires, as a verdict's reason says it
RULE_REASONS = {"absent": "none of its content words is in any context",
                "number": "a number no context gives", "date": "a weekday or month the contexts bind elsewhere",
                "names": "two or more names no context gives", "field": "a record field given otherwise"}
#: the one rule that turns the two probabilities into labels (shown in every reason, and in docs/concepts)
FLAG_RULE = ("a sentence is flagged (unverifiable or contradicted) when an explicit rule fires (absent: none of "
             "its content words is in any context; or a number, date, names or record field the contexts do not "
             "give), when its own p(hallucinated) reaches the claim threshold, or when the answer's p reaches the "
             "answer threshold and it is the answer's likeliest sentence; every other sentence is supported")


@dataclass
class ClaimAnalysis:
    features: np.ndarray                  # CLAIM_FEATURES
    tokens: list[phrases.Token]
    phrase: tuple[int, int] | None        # unsupported phrase, relative to the claim text
    conflict: str                         # why it conflicts with the aligned evidence ("" when it does not)
    rule: str = ""                        # the explicit rule it trips: absent / field / number / date / names
    passage: int | None = None            # the unit (SampleFeatures.units) the verdict rests on, None: none is
    #                                       about the claim (see passage_for)


def answer_absent_share(answer: str, contexts: Sequence[str], question: str = "") -> float:
    """Share of the answer's content words (5-letter stems) that occur in no context nor the question."""
    words = content_words(answer)
    if not words:
        return 0.0
    ev = phrases.evidence_of(tuple(contexts) + (question,))
    return sum(1 for w in words if not ev.has_word(w)) / len(words)


def analyse(p: SampleFeatures, contexts: Sequence[str], question: str = "") -> list[ClaimAnalysis]:
    """Per-claim features, tokens and unsupported phrase of a featurised sample (status "ok")."""
    everywhere = phrases.evidence_of(tuple(contexts) + (question,))
    in_contexts = phrases.evidence_of(tuple(contexts))
    out = []
    for c in p.claims:
        aligned_ids = tuple(c.top_units)
        aligned = phrases.evidence_of(tuple(p.units[j].text for j in aligned_ids) + (question,))
        tokens = phrases.claim_tokens(c.text, everywhere, aligned)
        a = _claim_analysis(p, c, tokens, aligned)
        words = [w for w in content_words(c.text) if w not in ADDRESSED and "'" not in w]  # not "it's"
        if words and not any(in_contexts.holds(w) for w in words) and not c.field_conflicts:
            # nothing the claim talks about is in any context, a record's keys included (the question does not
            # count): no passage can support it, whatever its similarity to one (a record field it contradicts
            # keeps that verdict; no RAGTruth dev claim has both)
            a.rule, a.conflict = "absent", ""
        a.passage = passage_for(p, c, a)
        if a.conflict and a.passage is None and a.rule in ("number", "date"):
            # the conflicting value sits in a passage about something else: not a contradiction (the rule still
            # flags the claim), and the passage shown is the one about the clause, if any
            a.conflict = ""
            a.passage = passage_for(p, c, a)
        out.append(a)
    return out


#: a passage is about a clause when it holds at least this share of the clause's content words, or ABOUT_WORDS
#: of them (numbers and times not counted: they are what a contradicted claim gets wrong)
ABOUT_SHARE, ABOUT_WORDS = 1 / 3, 3


def _shared(words: Sequence[str], text: str) -> int:
    ev = phrases.evidence_of((text,))
    return sum(1 for w in words if ev.has_word(w))


def passage_for(p: SampleFeatures, c: ClaimFeatures, a: ClaimAnalysis) -> int | None:
    """The context unit a verdict on claim ``c`` rests on, or None when no aligned unit is about it.

    The clause in question is the one around the claim's unsupported phrase (the whole claim when it has none).
    A unit is about it when it holds at least :data:`ABOUT_SHARE` (or :data:`ABOUT_WORDS`) of the clause's
    content words, numbers and times not counted; of those, the one holding the most wins (ties: the better
    aligned). A conflict (a number or date the aligned evidence gives otherwise) rests only on one of the
    claim's aligned units that is about the clause *and* gives a value of that kind; any other verdict on any
    unit of the sample. A claim tripping the ``absent`` rule rests on none."""
    if a.rule == "absent":
        return None
    span = phrases.answer_span(c.text, a.phrase, "clause") or (0, len(c.text))
    words = [w for w in content_words(c.text[span[0]:span[1]]) if not any(ch.isdigit() for ch in w)]
    if not words:
        return None
    kind = a.rule if a.conflict and a.rule in ("number", "date") else ""
    order = list(c.top_units) + ([] if kind else [j for j in range(len(p.units)) if j not in c.top_units])
    best, best_shared = None, 0
    for j in order:
        text = p.units[j].text
        if kind and not _aligned_has_kind(phrases.evidence_of((text,)), kind):
            continue
        shared = _shared(words, text)
        if shared > best_shared and (shared >= ABOUT_SHARE * len(words) or shared >= ABOUT_WORDS):
            best, best_shared = j, shared
    return best


def _claim_analysis(p: SampleFeatures, c: ClaimFeatures, tokens: list[phrases.Token],
                    aligned: phrases.Evidence) -> ClaimAnalysis:
    n = max(1, len(tokens))
    absent = [t for t in tokens if not t.in_context]
    run = best = 0
    for t in tokens:
        run = run + 1 if not t.in_context else 0
        best = max(best, run)
    counts = {}
    for kind in ("number", "date", "name"):
        counts[f"{kind}_absent"] = sum(1 for t in tokens if t.kind == kind and not t.in_context)
        counts[f"{kind}_elsewhere"] = sum(1 for t in tokens if t.kind == kind and t.in_context and not t.in_aligned)
    claim_neg = any(t.kind == "negation" for t in tokens)
    negation = float(claim_neg != aligned.negated)
    values = {"sim": c.sim, "recall_top": c.recall_top, "recall_all": c.recall_all,
              "absent_share": len(absent) / n, "absent_log": math.log1p(len(absent)), "absent_run": float(best),
              **counts, "negation": negation, "field_conflict": float(bool(c.field_conflicts)),
              "field_null": float(bool(c.field_nulls)), "length": math.log1p(len(c.text.split())),
              "record": float(p.kind == "record")}
    conflict, rule = "", ""
    # a number or date the contexts never give while the aligned evidence gives another one; a date also when
    # the contexts give it for something else (bound to another clause)
    # (records list every weekday's hours, so a weekday there is not bound to one clause: numbers only)
    wrong = [t for t in tokens if (t.kind == "number" and not t.in_context) or
             (t.kind == "date" and not t.in_aligned and p.kind == "text")]
    names = [t for t in tokens if t.kind == "name" and not t.in_context]
    if c.field_conflicts:
        key, value, _, _ = c.field_conflicts[0]
        conflict, rule = f"the claim contradicts the record field '{key}' ({json.dumps(value)})", "field"
    elif wrong and _aligned_has_kind(aligned, wrong[0].kind):
        conflict, rule = f"'{wrong[0].text}' differs from the aligned evidence", wrong[0].kind
    elif len(names) >= 2:
        rule = "names"
    return ClaimAnalysis(np.array([values[f] for f in CLAIM_FEATURES], dtype=float), tokens,
                         phrases.unsupported_phrase(c.text, tokens), conflict, rule)


def _aligned_has_kind(aligned: phrases.Evidence, kind: str) -> bool:
    if kind == "number":
        return bool(aligned.numbers)
    return any(w in aligned.tokens for w in phrases.WEEKDAYS + tuple(m for m in phrases.ent.MONTHS)) or any(
        w.rstrip("s") in phrases.WEEKDAYS for w in aligned.tokens)


def answer_vector(claims: np.ndarray, answer_absent: float, question: str, answer_chars: int,
                  context_chars: int) -> np.ndarray:
    """ANSWER_FEATURES from the (n_claims x CLAIM_FEATURES) matrix and the answer's own statistics."""
    f = {name: claims[:, i] for i, name in enumerate(CLAIM_FEATURES)}
    return np.array([answer_absent, f["absent_log"].max(), f["absent_run"].max(), f["recall_top"].mean(),
                     f["sim"].mean(), f["sim"].min(), f["record"].max(), float(bool(question.strip())),
                     math.log(max(1, answer_chars) / max(1, context_chars)), math.log1p(len(claims)),
                     f["length"].mean()])


def claim_vectors(claims: np.ndarray, answer_absent: float) -> np.ndarray:
    return np.hstack([claims, np.full((len(claims), 1), answer_absent)])


# -- the shipped logistic regressions ------------------------------------------------------------------------
@dataclass(frozen=True)
class Logistic:
    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def proba(self, x: np.ndarray) -> np.ndarray:
        z = (np.atleast_2d(x) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(z @ self.coef + self.intercept)))

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.names), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": float(self.intercept)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], expected: Sequence[str]) -> "Logistic":
        if tuple(d["features"]) != tuple(expected):
            raise ValueError("detector weights: feature list does not match this genevals version; "
                             "rebuild them with tools/train_grounding.py")
        return cls(tuple(d["features"]), np.array(d["mean"]), np.array(d["scale"]), np.array(d["coef"]),
                   float(d["intercept"]))


@dataclass(frozen=True)
class Detector:
    answer: Logistic
    claim: Logistic
    answer_threshold: float
    claim_threshold: float
    spans: str                    # what a flagged claim reports: phrase / clause / sentence (phrases.answer_span)
    digest: str                   # identifies the weights in signatures
    rules: tuple[str, ...] = ()   # explicit rules that flag a claim whatever p (field, number, date, names)
    encoder: Encoder = FULL       # the MiniLM layers (and int8) the features were trained with
    related_similarity: float = 0.35  # a context unit this similar (or sharing half the words) is related

    def answer_span(self, claim: ClaimFeatures, analysis: ClaimAnalysis) -> tuple[int, int] | None:
        """The flagged claim's reported span in the answer (None: the sentence, no phrase found)."""
        span = phrases.answer_span(claim.text, analysis.phrase, self.spans)
        return (claim.start + span[0], claim.start + span[1]) if span else None

    def predict(self, p: SampleFeatures, contexts: Sequence[str], question: str = "", answer: str = ""
                ) -> tuple[float, np.ndarray, list[ClaimAnalysis]]:
        """(p answer hallucinated, p per claim, per-claim analyses) of a featurised sample."""
        analyses = analyse(p, contexts, question)
        claims = np.vstack([a.features for a in analyses])
        answer = answer or " ".join(c.text for c in p.claims)
        absent = answer_absent_share(answer, contexts, question)
        vector = answer_vector(claims, absent, question, len(answer), sum(len(c) for c in contexts))
        pa = float(self.answer.proba(vector)[0])
        pc = self.claim.proba(claim_vectors(claims, absent))
        return pa, pc, analyses

    def flagged(self, pa: float, pc: np.ndarray, rules: Sequence[str] = ()) -> np.ndarray:
        """Which claims are flagged (:data:`FLAG_RULE`): those tripping an active rule (``rules``: each claim's
        rule, "" for none), those whose own p reaches the claim threshold, and, when the answer's p reaches the
        answer threshold, its most likely claim."""
        out = np.array([bool(r) and (r in self.rules or r in ALWAYS_RULES) for r in rules], dtype=bool) \
            if len(rules) else np.zeros(len(pc), dtype=bool)
        if len(pc):
            out |= pc >= self.claim_threshold
            if pa >= self.answer_threshold:
                out[int(np.argmax(pc))] = True
        return out


def from_dict(data: Mapping[str, Any]) -> Detector:
    import hashlib

    digest = hashlib.sha256(json.dumps(data["model"], sort_keys=True).encode()).hexdigest()[:10]
    m = data["model"]
    return Detector(Logistic.from_dict(m["answer"], ANSWER_FEATURES),
                    Logistic.from_dict(m["claim"], CLAIM_MODEL_FEATURES), float(m["answer_threshold"]),
                    float(m["claim_threshold"]), str(m.get("spans", "phrase")), digest, tuple(m.get("rules", ())),
                    Encoder(**m.get("encoder", {})), float(m.get("related_similarity", 0.35)))


@lru_cache(maxsize=4)
def load(path: str | None = None) -> Detector:
    target = Path(path) if path else WEIGHTS_PATH
    if not target.exists():
        raise FileNotFoundError(f"grounding detector weights not found: {target}")
    return from_dict(json.loads(target.read_text(encoding="utf-8")))
