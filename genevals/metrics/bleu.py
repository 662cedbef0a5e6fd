"""Sentence BLEU per sample and corpus BLEU from summed statistics, both computed by sacrebleu.

Nothing of BLEU is reimplemented here: sacrebleu tokenises, counts and scores. This module only
keeps one ``sacrebleu.metrics.BLEU`` object alive (``sentence_bleu`` builds a new one per call),
stores each sample's sufficient statistics, and sums them for the corpus score.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from sacrebleu.metrics import BLEU

from genevals import types
from genevals.metrics.base import Metric
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample

_NAME = "bleu"
_NO_REFERENCE = "sample has no reference answer"
_TOKENIZE = "13a"
_SMOOTH = "exp"


def _fraction(score: float) -> float:
    # sacrebleu's exp(mean log 100) is 100.00000000000004 for a perfect match: keep values in [0, 1].
    return min(score / 100.0, 1.0)


class Bleu(Metric):
    """BLEU (Papineni et al. 2002) via sacrebleu: value = sacrebleu sentence BLEU / 100, capped at 1.

    BLEU = BP · exp( (1/N) Σ_n log p_n ), p_n = clipped n-gram matches / hypothesis n-grams
    (n = 1..4, counts clipped by the max count over the sample's references), BP = 1 if c > r else
    exp(1 - r/c), c = answer length, r = the closest reference length (shorter wins ties).
    Per sample: tokenizer 13a, case-sensitive, exp smoothing (NIST: the k-th zero precision becomes
    1/(2^k · total)), effective order (N stops at the first order with no hypothesis n-grams),
    i.e. ``sacrebleu.sentence_bleu``. Corpus: the statistics are summed over samples and scored
    without effective order, i.e. ``sacrebleu.corpus_bleu``. Blank (whitespace-only) references are ignored.
    """

    family = "bleu"

    def __init__(self) -> None:
        self._sentence = BLEU(tokenize=_TOKENIZE, smooth_method=_SMOOTH, effective_order=True)
        # corpus_bleu's defaults: same tokenisation and smoothing, effective order off.
        self._corpus = BLEU(tokenize=_TOKENIZE, smooth_method=_SMOOTH, effective_order=False)
        self._ref_counts: set[int] = set()

    def output_names(self) -> list[str]:
        return [_NAME]

    def signature(self) -> str:
        """sacrebleu's own signature fields; nrefs over everything scored so far ("?" before any, "var" if mixed)."""
        counts = self._ref_counts
        nrefs = "?" if not counts else (str(next(iter(counts))) if len(counts) == 1 else "var")
        return make_signature(
            "bleu", nrefs=nrefs, case="mixed", eff="yes", tok=self._sentence.tokenizer_signature,
            smooth=_SMOOTH, corpus_eff="no", version=package_version("sacrebleu"))

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return [{_NAME: self._score_one(sample)} for sample in samples]

    def _score_one(self, sample: Sample) -> MetricResult:
        # A blank string is not a reference (sacrebleu would count its length 0 as a candidate ref_len).
        refs = [r for r in sample.references if r.strip()]
        if not refs:
            return MetricResult.unscored(_NAME, types.EMPTY_REFERENCE, _NO_REFERENCE)
        self._ref_counts.add(len(refs))
        result = self._sentence.sentence_score(sample.answer, refs)
        # Under exp smoothing sacrebleu leaves counts/totals untouched, so they are the raw statistics.
        counts, totals = [int(c) for c in result.counts], [int(t) for t in result.totals]
        details: dict[str, Any] = {
            "precisions": [c / t if t else 0.0 for c, t in zip(counts, totals)],
            "bp": result.bp,
            "sys_len": result.sys_len,
            "ref_len": result.ref_len,
            "counts": counts,
            "totals": totals,
            "nrefs": len(refs),
        }
        if result.sys_len == 0:
            details["empty_answer"] = True
        return MetricResult(_NAME, _fraction(result.score), details=details)

    def corpus_scores(self, per_sample: Sequence[Mapping[str, MetricResult]]) -> dict[str, Any]:
        """Corpus BLEU over the scored samples, equal to ``sacrebleu.corpus_bleu(...).score / 100``."""
        order = self._corpus.max_ngram_order
        # sacrebleu's statistics layout: [sys_len, ref_len, counts..., totals...].
        stats = [0] * (2 + 2 * order)
        n = 0
        for results in per_sample:
            result = results.get(_NAME)
            if result is None or result.status != types.OK:
                continue
            d = result.details
            # Samples scored in worker processes reach this process only through their details.
            if "nrefs" in d:
                self._ref_counts.add(d["nrefs"])
            row = [d["sys_len"], d["ref_len"], *d["counts"], *d["totals"]]
            stats = [a + b for a, b in zip(stats, row)]
            n += 1
        if n == 0:
            return {}
        score = BLEU.compute_bleu(
            correct=stats[2:2 + order], total=stats[2 + order:], sys_len=stats[0], ref_len=stats[1],
            smooth_method=self._corpus.smooth_method, smooth_value=self._corpus.smooth_value,
            effective_order=self._corpus.effective_order, max_ngram_order=order)
        return {
            _NAME: _fraction(score.score),
            "bleu_precisions": [p / 100.0 for p in score.precisions],
            "bleu_bp": score.bp,
            "bleu_sys_len": score.sys_len,
            "bleu_ref_len": score.ref_len,
            "bleu_samples": n,
        }
