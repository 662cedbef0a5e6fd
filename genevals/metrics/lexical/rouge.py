"""ROUGE-1, ROUGE-2 and ROUGE-L with rouge-score's formulas over each sample's language's words; on ASCII
text the values are identical to Google's ``rouge-score`` package, only faster.

Tokens (:func:`genevals.language.tokens.tokens`): on ASCII text, rouge-score's own default tokenizer
(lower-case, ``[^a-z0-9]+`` to a space); on other text the same rule made Unicode-aware (letters, marks and
numbers of every script are word characters, so ``über``, Arabic, Devanagari words stay whole, where
rouge-score drops them and scores 0), with Chinese, and other scripts written without spaces, one token per
character, and Japanese, Korean and Thai through their word segmenter (a missing segmenter: status
``unsupported_language``, never a number). Porter stemming (``--stem``) applies to English samples only, and
there to ASCII words (the only ones rouge-score keeps): no stemmer is used for another language.

rouge-score is the reference: its ``scoring.fmeasure`` computes every F, so the floats are bit-identical on
the text it tokenises the same way. The speed comes from three things rouge-score does not do:
each text is tokenised and its n-grams counted once per sample (not once per reference and type),
Porter stems are cached, and the LCS length comes from rapidfuzz's C++ bit-parallel LCS instead of
a Python O(n·m) table.
"""
from __future__ import annotations

import functools
from collections import Counter
from typing import Any, Sequence

from rapidfuzz.distance import LCSseq

from genevals import types
from genevals.language import tokens as lang_tokens
from genevals.language.segment import SEGMENTERS, SegmenterMissing
from genevals.metrics.base import Metric, Output, register
from genevals.signature import make_signature, package_version
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

_OUTPUTS = ("rouge1", "rouge2", "rougeL")
_NO_REFERENCE = "sample has no reference answer"
# Porter stemming dominates stemmed tokenisation; stems are pure functions of the word, so caching is exact.
_STEM_CACHE_SIZE = 1 << 18


class _CachedStemmer:
    """Duck-types nltk's PorterStemmer (``stem(word)``) for ``rouge_score.tokenize.tokenize``."""

    def __init__(self) -> None:
        from rouge_score.tokenizers import DefaultTokenizer

        # Take the very stemmer instance rouge-score's DefaultTokenizer builds, so settings cannot drift.
        porter = DefaultTokenizer(use_stemmer=True)._stemmer
        self.stem = functools.lru_cache(maxsize=_STEM_CACHE_SIZE)(porter.stem)

    def __reduce__(self) -> tuple[type, tuple]:
        # lru_cache wrappers of bound methods do not pickle; a fresh cache is equivalent.
        return (_CachedStemmer, ())


class _Text:
    """One tokenised text with what ROUGE needs from it, computed once."""

    __slots__ = ("ids", "unigrams", "bigrams")

    def __init__(self, tokens: list[str], vocab: dict[str, int]) -> None:
        # Map tokens to ints so the C++ LCS compares exact ids (passing str lists would compare hashes).
        for token in set(tokens).difference(vocab):
            vocab[token] = len(vocab)
        self.ids = list(map(vocab.__getitem__, tokens))
        self.unigrams = Counter(self.ids)
        self.bigrams = Counter(zip(self.ids, self.ids[1:]))


def _fmeasure(precision: float, recall: float) -> float:
    """rouge-score's own ``scoring.fmeasure``, imported on first use (rouge_score.scoring loads numpy, which
    `genevals --help` should not pay for); it then replaces this function."""
    global _fmeasure
    from rouge_score.scoring import fmeasure

    _fmeasure = fmeasure
    return fmeasure(precision, recall)


def _overlap(target: Counter, prediction: Counter) -> int:
    """sum_g min(target[g], prediction[g]), with every loop in C (the integer sum is order-free)."""
    common = target.keys() & prediction.keys()
    return sum(map(min, map(target.__getitem__, common), map(prediction.__getitem__, common)))


def _ngram_score(target: Counter, prediction: Counter, n_target: int, n_prediction: int) -> tuple[float, float, float]:
    """rouge_scorer._score_ngrams, fed precomputed counts; returns (f, precision, recall)."""
    hits = _overlap(target, prediction)
    precision = hits / max(n_prediction, 1)
    recall = hits / max(n_target, 1)
    return _fmeasure(precision, recall), precision, recall


def _lcs_score(target: list[int], prediction: list[int]) -> tuple[float, float, float]:
    """rouge_scorer._score_lcs with the LCS length from rapidfuzz; returns (f, precision, recall)."""
    if not target or not prediction:
        return 0.0, 0.0, 0.0
    lcs = LCSseq.similarity(target, prediction)
    precision = lcs / len(prediction)
    recall = lcs / len(target)
    return _fmeasure(precision, recall), precision, recall


#: ROUGE-2 of an answer identical to its reference when both are one token long (no bigram on either side):
#: rouge-score's 0/0 gives 0, a silent zero for a perfect answer ("1854" vs "1854"); genevals gives 1.0
IDENTICAL_ONE_TOKEN = (1.0, 1.0, 1.0)


def _scores(target: _Text, prediction: _Text) -> dict[str, tuple[float, float, float]]:
    n_target, n_prediction = len(target.ids), len(prediction.ids)
    one_token_identical = n_target == n_prediction == 1 and target.ids == prediction.ids
    return {
        "rouge1": _ngram_score(target.unigrams, prediction.unigrams, n_target, n_prediction),
        "rouge2": IDENTICAL_ONE_TOKEN if one_token_identical else
        _ngram_score(target.bigrams, prediction.bigrams, max(n_target - 1, 0), max(n_prediction - 1, 0)),
        "rougeL": _lcs_score(target.ids, prediction.ids),
    }


@register
class Rouge(Metric):
    """ROUGE-1/2/L F-measure (Lin 2004) exactly as rouge-score's RougeScorer computes it.

    Tokens: the sample language's words (module doc; ASCII text: rouge-score's default tokenizer, lowercase,
    non-[a-z0-9] -> space), with an optional Porter stem of English tokens longer than 3 chars. For ROUGE-n with answer n-gram multiset A and reference multiset R,
    hits = sum_g min(A[g], R[g]), P = hits / max(|A|, 1), R = hits / max(|R|, 1);
    for ROUGE-L, P = LCS / len(answer), R = LCS / len(reference) (0 if either is empty);
    F = 2·P·R / (P + R) (0 if P + R = 0). One departure from rouge-score: ROUGE-2 of a one-token answer
    identical to a one-token reference (no bigram on either side, 0/0) is 1.0, where rouge-score gives 0 for a
    perfect answer. With several references each output takes the reference
    with the highest F (first on ties), as ``RougeScorer.score_multi``. Value = F; details hold that
    reference's precision and recall and its index. Blank (whitespace-only) references are ignored.
    """
    reads_language = True  # scores in the sample's language: the run counts its majority
    scores_empty_answer = True  # 0, as the reference script scores a blank prediction
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("use_stemmer", bool, False, "Porter stemming (English samples only)"),
    )

    family = "rouge"
    outputs = (Output("rouge1", "ROUGE-1 F-measure: unigram overlap with the best reference (rouge-score)"),
               Output("rouge2", "ROUGE-2 F-measure: bigram overlap with the best reference (rouge-score)"),
               Output("rougeL", "ROUGE-L F-measure: longest common subsequence with the best reference "
                                "(rouge-score)"))
    presets = ("default", "all")
    headline = ("rougeL",)
    order = 30

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self._stemmer = _CachedStemmer() if self.use_stemmer else None

    def signature(self) -> str:
        segmenters = ",".join(f"{lang}={label}" for lang, (label, _) in SEGMENTERS.items())
        return make_signature("rouge", stemmer="porter-en-only" if self.use_stemmer else False,
                              tok="rouge_score-default+unicode-words", seg=f"unspaced=char,{segmenters}",
                              lang=str(self.language), refs="max-f", rouge2_one_token="identical=1",
                              **{"rouge-score": package_version("rouge-score")})

    def tokenize(self, text: str, lang: str = "en") -> list[str]:
        """The words of ``text`` in ``lang`` (:func:`genevals.language.tokens.tokens`), Porter-stemmed when
        stemming an English text. On ASCII text this is rouge-score's ``tokenize`` exactly: its last step keeps
        the tokens that match ``^[a-z0-9]+$``, every non-empty one there, and stems of such words are such
        words. SegmenterMissing when ``lang``'s segmenter is not installed."""
        words = lang_tokens.tokens(text, lang)
        if self._stemmer is None or lang != "en":
            return words
        stem = self._stemmer.stem
        return [stem(w) if len(w) > 3 and w.isascii() else w for w in words]

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return [self._score_one(sample) for sample in samples]

    def _score_one(self, sample: Sample) -> dict[str, MetricResult]:
        # A blank string is not a reference; any other text is scored as rouge-score scores it.
        refs = [r for r in sample.references if r.strip()]
        if not refs:
            return {name: MetricResult.unscored(name, types.EMPTY_REFERENCE, _NO_REFERENCE) for name in _OUTPUTS}
        lang = self.language_of(sample)
        vocab: dict[str, int] = {}
        try:
            answer = _Text(self.tokenize(sample.answer, lang.code), vocab)
            per_ref = [_scores(_Text(self.tokenize(ref, lang.code), vocab), answer) for ref in refs]
        except SegmenterMissing as missing:
            return {name: MetricResult.unscored(name, types.UNSUPPORTED_LANGUAGE, missing.reason, **lang.details())
                    for name in _OUTPUTS}
        about = {**lang.details(), "tokenizer": lang_tokens.segmenter_name(lang.code),
                 "stemmed": self._stemmer is not None and lang.code == "en"}
        results: dict[str, MetricResult] = {}
        for name in _OUTPUTS:
            # np.argmax semantics of score_multi: the first reference with the maximal F wins.
            best = max(range(len(per_ref)), key=lambda i: (per_ref[i][name][0], -i))
            f, precision, recall = per_ref[best][name]
            details: dict[str, object] = {**about, "precision": precision, "recall": recall, "reference_index": best}
            if not answer.ids:
                details["empty_answer"] = True
            results[name] = MetricResult(name, f, details=details)
        return results
