"""The numbers the offline citation checker sees for one (cited text, cited contexts) check, shared by
``citations_local`` and by ``benchmarks/bench_citations.py`` (which measures them on expert labels), so that the
card and the metric compute the same thing.

A cited text can hold several of the checker's claims (sentences); the check is as strong as its weakest claim,
so each feature is that of the claim with the lowest support score (:func:`genevals.grounding.checker.decide`).
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from genevals import types
from genevals.grounding import entities as ent
from genevals.text import WORD, content_words

#: the weakest claim's support score, MiniLM similarity to its best unit, word recall over its top units and over
#: every context, whether a number or a name of it is nowhere in the contexts (or a number conflicts), the rule
#: verdict (1 supported), log(1 + words) of the cited text and of the contexts, and the claims in the text
FEATURES = ("support_score", "similarity", "recall_top", "recall_all", "missing_number", "number_conflict",
            "missing_names", "rule_supported", "log_claim_words", "log_context_words", "claims")


def stems(text: str) -> set[str]:
    return {ent.stem(w) for w in content_words(text)}


def word_overlap(claim: str, contexts: Sequence[str]) -> float:
    """Share of the cited text's content words (5-letter stems) found in the contexts: the trivial baseline."""
    own = stems(claim)
    return len(own & stems(" ".join(contexts))) / len(own) if own else 0.0


def features(f: Any, thresholds: Mapping[str, Mapping[str, Any]], claim: str,
             contexts: Sequence[str]) -> list[float] | None:
    """:data:`FEATURES` of one featurized check (``f``: a :class:`genevals.grounding.checker.SampleFeatures`);
    None when the checker could not check it (its status says why)."""
    from genevals.grounding import checker

    if f.status != "ok" or not f.claims:
        return None
    t = thresholds[f.kind]
    decisions = [checker.decide(f, c, t) for c in f.claims]
    k = min(range(len(decisions)), key=lambda i: decisions[i].score)
    c = f.claims[k]
    return [float(decisions[k].score), float(c.sim), float(c.recall_top), float(c.recall_all),
            1.0 if c.missing_numbers else 0.0, 1.0 if c.conflict_numbers else 0.0, float(len(c.missing_entities)),
            1.0 if all(d.label == types.SUPPORTED for d in decisions) else 0.0,
            math.log1p(len(WORD.findall(claim))), math.log1p(sum(len(WORD.findall(x)) for x in contexts)),
            float(len(f.claims))]
