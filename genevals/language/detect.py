"""Language identification of one text, offline: the script decides where one language owns it (kana, Hangul,
Thai, Han without kana ...), py3langid (a maintained fork of langid.py, Lui & Baldwin 2012: a naive Bayes model
over byte n-grams, 97 languages, shipped inside the wheel, deterministic) decides the rest, choosing among the
languages genevals handles only (:data:`genevals.language.codes.SUPPORTED`, 41 codes): never Aragonese, Latin
or Volapük for a short English answer, as the model's best of its 97 gave (5 of 80 English XQuAD answers were
scored as ``an``). The probability of the language chosen is its share among all 97, so a text the model finds
Aragonese is an *unsure* Spanish one, never a sure one.

A text is *unsure* when it has fewer than :data:`MIN_LETTERS` letters or that probability is below
:data:`MIN_PROBABILITY`. It is then scored in the run's fallback language (``auto:CODE``) if there is one,
else in the model's best guess when the text has :data:`MIN_LETTERS` letters or more and the guess is written in
the text's script with a probability of at least :data:`MIN_GUESS_PROBABILITY`, else in its script's most likely
language (:data:`genevals.language.scripts.FALLBACK`: Latin is ``en``); its source is ``fallback`` and its note
says why. A sample's language is decided once (:func:`genevals.language.setting.language_of`) and every metric
reads that decision.

Why the guess before the script's language: on MLQA's 4,424 XQuAD pairs (en, es, de, ar, hi, vi, zh; answers
cut from the context, mostly short and full of names), the script's language ("en" for any Latin text) gave
MLQA's exact values on 95.1% of the pairs; the guess among the languages genevals handles, even unsure, on 99.0%
(98.8% when the model chose among all 97: benchmarks/RESULTS.md, "Issue 52, point 3"). The guess is unsure, so
the sample still says so; a wrong guess lands on a related language, which is usually scored alike. The
guess of a text shorter than ``MIN_LETTERS`` is noise and is not used; nor is one below ``MIN_GUESS_PROBABILITY``
("Saint Bernadette Soubirous": fr at p=0.10): both stay in their script's language. The values of
``MIN_LETTERS`` and ``MIN_PROBABILITY`` were chosen on the same pairs: no pair that they call sure is scored
in a language that gives a value other than MLQA's.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any

from genevals.language import codes, scripts

#: below this many letters a text is too short for the model to tell related languages apart
MIN_LETTERS = 12
#: the model's normalised probability a detection must reach
MIN_PROBABILITY = 0.9
#: an unsure guess must reach this probability to be used (below it: the script's language)
MIN_GUESS_PROBABILITY = 0.2
#: the scripts each language the model knows is written in; a language not listed is written in Latin
LANGUAGE_SCRIPTS = {
    **dict.fromkeys(("ar", "fa", "ps", "ug", "ur"), frozenset({"Arabic"})),
    **dict.fromkeys(("ba", "be", "bg", "kk", "ky", "mk", "mn", "ru", "tg", "tt", "uk"), frozenset({"Cyrillic"})),
    **dict.fromkeys(("hi", "mr", "ne", "sa"), frozenset({"Devanagari"})),
    **dict.fromkeys(("as", "bn"), frozenset({"Bengali"})),
    "sr": frozenset({"Cyrillic", "Latin"}), "uz": frozenset({"Cyrillic", "Latin"}), "ku": frozenset({"Arabic", "Latin"}),
    "ja": frozenset({"Kana", "Han"}), "zh": frozenset({"Han"}), "ko": frozenset({"Hangul"}), "el": frozenset({"Greek"}),
    "he": frozenset({"Hebrew"}), "hy": frozenset({"Armenian"}), "ka": frozenset({"Georgian"}), "th": frozenset({"Thai"}),
    "lo": frozenset({"Lao"}), "km": frozenset({"Khmer"}), "my": frozenset({"Myanmar"}), "am": frozenset({"Ethiopic"}),
    "dz": frozenset({"Tibetan"}), "gu": frozenset({"Gujarati"}), "kn": frozenset({"Kannada"}),
    "ml": frozenset({"Malayalam"}), "or": frozenset({"Oriya"}), "pa": frozenset({"Gurmukhi"}),
    "si": frozenset({"Sinhala"}), "ta": frozenset({"Tamil"}), "te": frozenset({"Telugu"}),
}
_LATIN = frozenset({"Latin"})
#: only the first characters of a long text are read: enough to decide, bounded in time
MAX_CHARS = 600

_lock = threading.Lock()
_model: Any = None


def _identifier() -> Any:
    global _model
    with _lock:
        if _model is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier
            model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            # the ISO 639-1 languages: results name languages by two-letter codes
            model.set_languages(sorted({c for c in model.nb_classes if c in codes.ISO_639_1}))
            # set_languages' column selection leaves the feature table in column order, so each text's gather of
            # its features' rows reads strided memory: in row order, the same float16 values give the same
            # gathered rows (bit-identical scores on 20,655 texts, benchmarks/RESULTS.md, issue 51), and a
            # 600-character text's rank takes 0.17-0.21 ms of CPU instead of 0.23-0.29 ms
            import numpy as np

            model.nb_ptc = np.ascontiguousarray(model.nb_ptc)
            _model = model
    return _model


def _classify(text: str) -> tuple[str, float]:
    """The most likely of the languages genevals handles (:data:`~genevals.language.codes.SUPPORTED`), with its
    probability among all the model's ISO 639-1 languages: so a text the model finds Aragonese is an unsure
    Spanish one, not a sure one (probabilities renormalised over fewer languages would make it sure)."""
    ranked = _identifier().rank(text)
    return next(((code, float(p)) for code, p in ranked if code in codes.SUPPORTED), (ranked[0][0], 0.0))


@dataclass(frozen=True)
class Language:
    """The language a sample is scored in, and how that was decided: ``source`` is ``row`` (its ``language``
    field), ``run`` (``--language``), ``detected``, or ``fallback`` (detection unsure; ``note`` says why)."""

    code: str
    source: str
    probability: float | None = None
    note: str | None = None
    #: for an unsure detection, the usual language of the text's script (Latin: en): what a metric whose model
    #: knows that language only reads the text as (:meth:`genevals.metrics.base.Metric.language_of`)
    script_code: str | None = None
    #: the script most of the text's letters are in (None: no letters), for the run's majority language
    #: (:mod:`genevals.language.majority`)
    script: str | None = None
    #: for an unsure detection, why it is unsure (the note's first part)
    why: str | None = None
    #: for an unsure detection, what chose its language: ``run`` (``--language auto:CODE``), ``majority`` (the
    #: run's majority language), ``guess`` (the model's best guess) or ``script`` (its script's usual language)
    rule: str | None = None

    @property
    def sure(self) -> bool:
        return self.source != "fallback"

    def details(self) -> dict[str, Any]:
        """What a result's details record about it: ``language``, ``language_source`` and the note if any."""
        out: dict[str, Any] = {"language": self.code, "language_source": self.source}
        if self.note:
            out["language_note"] = self.note
        if self.rule:
            out["language_fallback"] = self.rule
        return out


def detect(text: str, fallback: str | None = None) -> Language:
    """The language of ``text``: detected, or ``fallback`` (None: the script's likely language) when unsure.
    Only the first :data:`MAX_CHARS` characters are read, so the decision is cached under them: a long answer
    unsure alone is not detected again when its references follow it (their first characters are its own)."""
    return _detect(text[:MAX_CHARS], fallback)


@functools.lru_cache(maxsize=16384)
def _detect(text: str, fallback: str | None) -> Language:
    script, letters = scripts.dominant(text)
    if script is None:
        code = fallback or "en"
        why = "no letters to detect a language from"
        return Language(code, "fallback", None, f"{why}; scored as {code}", why=why,
                        rule="run" if fallback else "script")
    if script in scripts.SINGLE:
        return Language(scripts.SINGLE[script], "detected", 1.0, None, script=script)
    if script == "Han":  # Han without kana: Chinese writing
        return Language("zh", "detected", 1.0, None, script=script)
    guess, probability = _classify(text)
    if letters >= MIN_LETTERS and probability >= MIN_PROBABILITY:
        return Language(guess, "detected", round(probability, 4), None, script=script)
    usable = (letters >= MIN_LETTERS and probability >= MIN_GUESS_PROBABILITY
              and script in LANGUAGE_SCRIPTS.get(guess, _LATIN))
    if fallback:
        code, origin, rule = fallback, "the run's fallback", "run"
    elif usable or script not in scripts.FALLBACK:
        code, origin, rule = guess, "the model's best guess", "guess"
    else:
        code, origin, rule = scripts.FALLBACK[script], f"{script} script", "script"
    why = (f"too short to detect ({letters} letters; {guess} at p={probability:.2f})" if letters < MIN_LETTERS
           else f"detection unsure ({guess} at p={probability:.2f})")
    return Language(code, "fallback", round(probability, 4), f"{why}; scored as {code} ({origin})",
                    scripts.FALLBACK.get(script), script, why, rule)
