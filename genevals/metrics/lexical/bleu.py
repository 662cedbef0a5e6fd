"""Sentence BLEU per sample and corpus BLEU from summed statistics, scored as sacrebleu's ``compute_bleu`` scores.

Tokens: sacrebleu's tokenizer for the sample's language (:mod:`genevals.metrics.lexical.bleu_tokenize` holds the
table: ``zh`` for Chinese, ``ja-mecab`` / ``ko-mecab`` for Japanese / Korean, ``char`` for Thai, Lao, Burmese and
Khmer, ``intl`` for the other scripts that are not Latin, ``13a`` for Latin-script languages), or the one the
``tokenize`` setting names. The 13a tokens come from :mod:`genevals.metrics.lexical.tokenize13a` (the same rules,
run in C), the others from sacrebleu's own tokenizer classes. :func:`compute_bleu` (sacrebleu's
``BLEU.compute_bleu`` for exp smoothing, the same operations in the same order) turns the statistics into the
score, so the values are sacrebleu's with ``tokenize=`` that tokenizer (``tests/metrics/lexical/test_bleu.py``
and ``test_bleu_languages.py`` check them against ``sentence_bleu``, ``corpus_bleu`` and ``compute_bleu``
itself). An English-only run does not import sacrebleu: importing it (its datasets, lxml, tabulate,
portalocker) was ~35 ms of every run's start. What differs is the counting in between: ``sentence_bleu`` builds
a new ``BLEU`` object per call and extracts every n-gram into one list of tuples before counting; here each
distinct text is tokenised and its n-grams counted once, one ``Counter`` per order, kept while the text recurs
(a reference shared by several systems, an answer scored against several references), and the clipped matches
are summed over the keys the two texts share. The statistics are the same integers (``_segment_statistics`` is
sacrebleu's ``_compute_segment_statistics`` reorganised), so the scores are the same floats.

Corpus BLEU over samples in several languages: sacrebleu's statistics are counts of tokens and n-grams, and
they add up whatever tokenizer made them, so the corpus score is still one ``compute_bleu`` over the summed
counts: each sample weighs by its token count under its own tokenizer (a Chinese sample by its characters, an
English one by its words). It equals ``corpus_bleu`` whenever every sample used one tokenizer. The signature
names the tokenizers the statistics came from (``tok:auto(13a,zh)``) and the language setting (``lang:auto``),
so a run whose samples were tokenised differently never compares silently with this one.

A sample whose tokenizer cannot run here (``ja-mecab`` / ``ko-mecab`` without ``genevals[languages]``) gets
status ``unsupported_language`` with a reason naming ``pip install 'genevals[languages]'``, never a number.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any, Mapping, Sequence

from genevals import types
from genevals.gcpause import collector_paused
from genevals.metrics.base import Metric, Output, register
from genevals.metrics.lexical import bleu_tokenize
from genevals.metrics.lexical.bleu_tokenize import AUTO, Unavailable
from genevals.language.codes import name as language_name
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

_NAME = "bleu"
_NO_REFERENCE = "sample has no reference answer"
_SMOOTH = "exp"
_ORDER = 4  # sacrebleu's MAX_NGRAM_ORDER
#: distinct texts whose n-gram counts are kept (oldest dropped first): an 850-character text's n-grams take
#: ~43 KB (measured with tracemalloc), so at most ~22 MB; enough for references shared within a chunk
_CACHE_TEXTS = 512


class _Counted:
    """One tokenised text: its length in tokens and its n-gram counts, one Counter per order 1..4."""

    __slots__ = ("length", "ngrams")

    def __init__(self, tokens: list[str]) -> None:
        self.length = len(tokens)
        # sacrebleu's n-grams, split by order (unigrams as plain tokens); zip builds each tuple in C.
        t = tokens
        self.ngrams = (Counter(t), Counter(zip(t, t[1:])), Counter(zip(t, t[1:], t[2:])),
                       Counter(zip(t, t[1:], t[2:], t[3:])))


def _clipped(hypothesis: Counter, reference: Counter) -> int:
    """sum_g min(hyp[g], ref[g]) over the n-grams both have (the integer sum is order-free)."""
    common = hypothesis.keys() & reference.keys()
    return sum(map(min, map(hypothesis.__getitem__, common), map(reference.__getitem__, common)))


def _max_counts(refs: Sequence[_Counted]) -> tuple[Counter, ...]:
    """Per order, each n-gram's largest count over the references (sacrebleu's ``_extract_reference_info``)."""
    if len(refs) == 1:
        return refs[0].ngrams
    merged = tuple(Counter(c) for c in refs[0].ngrams)
    for ref in refs[1:]:
        for into, counts in zip(merged, ref.ngrams):
            for gram, count in counts.items():
                if count > into[gram]:
                    into[gram] = count
    return merged


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``, the shorter on a tie (sacrebleu's ``_get_closest_ref_len``)."""
    closest_diff, closest_len = -1, -1
    for ref_len in ref_lens:
        diff = abs(hyp_len - ref_len)
        if closest_diff == -1 or diff < closest_diff:
            closest_diff, closest_len = diff, ref_len
        elif diff == closest_diff and ref_len < closest_len:
            closest_len = ref_len
    return closest_len


def compute_bleu(correct: Sequence[int], total: Sequence[int], sys_len: int, ref_len: int,
                 effective_order: bool) -> tuple[float, list[float], float]:
    r"""(score in [0, 100+], precisions in percent, brevity penalty): sacrebleu's ``BLEU.compute_bleu`` with
    ``smooth_method="exp"`` and ``max_ngram_order=4``, step for step (so the same floats).

    BP = 1 if c >= r else exp(1 - r/c) (0 for c = 0); p_n = 100 c_n / t_n, and the k-th zero c_n gives
    100 / (2^k t_n); BLEU = BP exp((1/N) \sum_{n \le N} log p_n), N = 4, or with ``effective_order`` the
    last order with t_n > 0; 0 when nothing matches."""
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * _ORDER
    if not any(correct):
        return 0.0, precisions, bp
    smooth_mteval = 1.0
    eff_order = _ORDER
    for n in range(1, _ORDER + 1):
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            smooth_mteval *= 2
            precisions[n - 1] = 100. / (smooth_mteval * total[n - 1])
        else:
            precisions[n - 1] = 100. * correct[n - 1] / total[n - 1]
    # sacrebleu's my_log: log(0) is -9999999999
    score = bp * math.exp(sum([math.log(p) if p != 0.0 else -9999999999 for p in precisions[:eff_order]])
                          / eff_order)
    return score, precisions, bp


def _fraction(score: float) -> float:
    # sacrebleu's exp(mean log 100) is 100.00000000000004 for a perfect match: keep values in [0, 1].
    return min(score / 100.0, 1.0)


@register
class Bleu(Metric):
    """BLEU (Papineni et al. 2002) via sacrebleu: value = sacrebleu sentence BLEU / 100, capped at 1.

    BLEU = BP · exp( (1/N) Σ_n log p_n ), p_n = clipped n-gram matches / hypothesis n-grams
    (n = 1..4, counts clipped by the max count over the sample's references), BP = 1 if c > r else
    exp(1 - r/c), c = answer length, r = the closest reference length (shorter wins ties).
    Per sample: sacrebleu's tokenizer for the sample's language (13a for English and the other Latin-script
    languages; see :mod:`genevals.metrics.lexical.bleu_tokenize`), case-sensitive, exp smoothing (NIST: the
    k-th zero precision becomes 1/(2^k · total)), effective order (N stops at the first order with no
    hypothesis n-grams), i.e. ``sacrebleu.sentence_bleu(..., tokenize=that tokenizer)``. Corpus: the statistics are summed over samples and scored
    without effective order, i.e. ``sacrebleu.corpus_bleu``. Blank (whitespace-only) references are ignored.

    Args:
        tokenize: ``auto`` (default: chosen per sample from its language) or one of sacrebleu's tokenizers
            for every sample: 13a, intl, zh, ja-mecab, ko-mecab, char, none.
    """
    reads_language = True  # scores in the sample's language: the run counts its majority
    scores_empty_answer = True  # 0, as the reference script scores a blank prediction
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("tokenize", str, "auto",
                "sacrebleu tokenizer (auto: from each sample's language)", choices=bleu_tokenize.CHOICES),
    )

    family = "bleu"
    outputs = (Output("bleu", "sacrebleu sentence BLEU / 100 (the language's tokenizer: 13a, intl, zh, ja-mecab, "
                              "ko-mecab or char; exp smoothing, effective order); the summary adds corpus BLEU "
                              "from summed statistics"),)
    presets = ("default", "all")
    order = 40

    def __init__(self, **values: Any) -> None:
        if "tokenize" in values:  # its case and surrounding spaces forgiven (" ZH " is zh) before the one checker
            values["tokenize"] = bleu_tokenize.check(values["tokenize"])
        super().__init__(**values)
        # sentence_bleu: exp smoothing, effective order; corpus_bleu: the same without effective order.
        self._ref_counts: set[int] = set()
        #: the tokenizers the scored statistics came from (read back from the statistics, as nrefs)
        self._tokenizers: set[str] = set()
        self._texts: dict[tuple[str, str], _Counted] = {}

    def __getstate__(self) -> dict[str, Any]:
        # Sent to worker processes without the counted texts: a fresh cache is equivalent.
        return {**self.__dict__, "_texts": {}}

    def _counted(self, text: str, tokenizer: str) -> _Counted:
        """The text as sacrebleu's ``_preprocess_segment`` gives it (the tokenizer over ``rstrip``), counted once."""
        key = (tokenizer, text)
        got = self._texts.get(key)
        if got is None:
            if len(self._texts) >= _CACHE_TEXTS:
                del self._texts[next(iter(self._texts))]
            got = self._texts[key] = _Counted(bleu_tokenize.load(tokenizer)(text.rstrip()))
        return got

    def _segment_statistics(self, answer: str, refs: Sequence[str],
                            tokenizer: str = "13a") -> tuple[int, int, list[int], list[int]]:
        """(sys_len, ref_len, correct, total), as sacrebleu's ``_compute_segment_statistics``."""
        hyp = self._counted(answer, tokenizer)
        counted = [self._counted(r, tokenizer) for r in refs]
        ref_max = _max_counts(counted)
        ref_len = closest_ref_len(hyp.length, [r.length for r in counted])
        correct = [_clipped(h, r) for h, r in zip(hyp.ngrams, ref_max)]
        total = [max(hyp.length - n, 0) for n in range(_ORDER)]
        return hyp.length, ref_len, correct, total

    def signature(self) -> str:
        """sacrebleu's own signature fields; nrefs over everything scored so far ("?" before any, "var" if mixed);
        tok: the tokenizer asked for, or ``auto(...)`` with the tokenizers the language table chose so far;
        lang: the run's language setting (``self.language.signature()``)."""
        counts = self._ref_counts
        nrefs = "?" if not counts else (str(next(iter(counts))) if len(counts) == 1 else "var")
        tok = self.tokenize
        if tok == AUTO and self._tokenizers:
            tok = f"{AUTO}({','.join(sorted(self._tokenizers))})"
        lang = self.language.signature().partition(":")[2]
        return make_signature(
            "bleu", nrefs=nrefs, case="mixed", eff="yes", tok=tok, lang=lang,
            smooth=_SMOOTH, corpus_eff="no", version=package_version("sacrebleu"))

    def tokenizer_for(self, code: str, texts: Sequence[str] = ()) -> str:
        """The tokenizer a sample in language ``code`` with answer and references ``texts`` is scored with."""
        return bleu_tokenize.for_language(code, tuple(texts)) if self.tokenize == AUTO else self.tokenize

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        with collector_paused():  # the counted n-grams are acyclic: see genevals.gcpause
            return [{_NAME: self._score_one(sample)} for sample in samples]

    def _score_one(self, sample: Sample) -> MetricResult:
        # A blank string is not a reference (sacrebleu would count its length 0 as a candidate ref_len).
        refs = [r for r in sample.references if r.strip()]
        lang = self.language_of(sample)
        tokenizer = self.tokenizer_for(lang.code, (sample.answer, *refs))
        if not refs:
            return MetricResult.unscored(_NAME, types.EMPTY_REFERENCE, _NO_REFERENCE, tokenizer=tokenizer,
                                         **lang.details())
        try:
            sys_len, ref_len, correct, total = self._segment_statistics(sample.answer, refs, tokenizer)
        except Unavailable as exc:
            return MetricResult.unscored(_NAME, types.UNSUPPORTED_LANGUAGE,
                                         f"{language_name(lang.code)}: {exc}", tokenizer=tokenizer,
                                         **lang.details())
        self._ref_counts.add(len(refs))
        self._tokenizers.add(tokenizer)
        score, _, bp = compute_bleu(correct, total, sys_len, ref_len, effective_order=True)
        details: dict[str, Any] = {
            "tokenizer": tokenizer,
            **lang.details(),
            "precisions": [c / t if t else 0.0 for c, t in zip(correct, total)],
            "bp": bp,
            "sys_len": sys_len,
            "ref_len": ref_len,
            "counts": correct,
            "totals": total,
            "nrefs": len(refs),
        }
        if sys_len == 0:
            details["empty_answer"] = True
        return MetricResult(_NAME, _fraction(score), details=details)

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
        if "tokenizer" in d:  # the signature's tok names them, from whichever process scored them
            stats[f"tok={d['tokenizer']}"] = 1
        return stats

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        """Corpus BLEU over the scored samples, equal to ``sacrebleu.corpus_bleu(...).score / 100``."""
        order = _ORDER
        n = int(totals.get("samples", 0))
        if n == 0:
            return {}
        self._ref_counts.update(int(k.split("=", 1)[1]) for k in totals if k.startswith("nrefs="))
        self._tokenizers.update(k.split("=", 1)[1] for k in totals if k.startswith("tok="))
        sys_len, ref_len = int(totals["sys_len"]), int(totals["ref_len"])
        score, precisions, bp = compute_bleu([int(totals.get(f"count{i}", 0)) for i in range(1, order + 1)],
                                             [int(totals.get(f"total{i}", 0)) for i in range(1, order + 1)],
                                             sys_len, ref_len, effective_order=False)
        return {
            _NAME: _fraction(score),
            "bleu_precisions": [p / 100.0 for p in precisions],
            "bleu_bp": bp,
            "bleu_sys_len": sys_len,
            "bleu_ref_len": ref_len,
            "bleu_samples": n,
        }
