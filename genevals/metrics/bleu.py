"""Sentence BLEU per sample and corpus BLEU from summed statistics, both computed by sacrebleu.

Nothing of BLEU is reimplemented here: sacrebleu tokenises, counts and scores. This module only
keeps one ``sacrebleu.metrics.BLEU`` object alive (``sentence_bleu`` builds a new one per call),
stores each sample's sufficient statistics, and sums them for the corpus score.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals import types
from genevals.metrics.base import Metric, Output, register
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample

_NAME = "bleu"
_NO_REFERENCE = "sample has no reference answer"
_TOKENIZE = "13a"
_SMOOTH = "exp"


def _fraction(score: float) -> float:
    # sacrebleu's exp(mean log 100) is 100.00000000000004 for a perfect match: keep values in [0, 1].
    return min(score / 100.0, 1.0)


@register
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
    outputs = (Output("bleu", "sacrebleu sentence BLEU / 100 (13a, exp smoothing, effective order); the summary "
                              "adds corpus BLEU from summed statistics"),)
    presets = ("default", "all")
    order = 40

    def __init__(self) -> None:
        from sacrebleu.metrics import BLEU

        self._sentence = BLEU(tokenize=_TOKENIZE, smooth_method=_SMOOTH, effective_order=True)
        # corpus_bleu's defaults: same tokenisation and smoothing, effective order off.
        self._corpus = BLEU(tokenize=_TOKENIZE, smooth_method=_SMOOTH, effective_order=False)
        self._ref_counts: set[int] = set()

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

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """sacrebleu's sufficient statistics of one scored sample: sys_len, ref_len, counts and totals."""
        result = outputs.get(_NAME)
        if result is None or result.status != types.OK:
            return None
        d = result.details
        stats: dict[str, float] = {"sys_len": d["sys_len"], "ref_len": d["ref_len"], "samples": 1}
        for n, (count, total) in enumerate(zip(d["counts"], d["totals"]), start=1):
            stats[f"count{n}"] = count
            stats[f"total{n}"] = total
        # Samples scored in worker processes reach this process only through their details, and the
        # signature's nrefs must cover them: counted per reference count, then read back at the end.
        if "nrefs" in d:
            stats[f"nrefs={d['nrefs']}"] = 1
        return stats

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        """Corpus BLEU over the scored samples, equal to ``sacrebleu.corpus_bleu(...).score / 100``."""
        order = self._corpus.max_ngram_order
        n = int(totals.get("samples", 0))
        if n == 0:
            return {}
        self._ref_counts.update(int(k.split("=", 1)[1]) for k in totals if k.startswith("nrefs="))
        score = self._corpus.compute_bleu(
            correct=[int(totals.get(f"count{i}", 0)) for i in range(1, order + 1)],
            total=[int(totals.get(f"total{i}", 0)) for i in range(1, order + 1)],
            sys_len=int(totals["sys_len"]), ref_len=int(totals["ref_len"]),
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
