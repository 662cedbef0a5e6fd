"""Language identification of one text, offline: the script decides where one language owns it (kana, Hangul,
Thai, Han without kana ...), py3langid (a maintained fork of langid.py, Lui & Baldwin 2012: a naive Bayes model
over byte n-grams, 97 languages, shipped inside the wheel, deterministic) decides the rest.

A text is *unsure* when it has fewer than :data:`MIN_LETTERS` letters or the model's normalised probability is
below :data:`MIN_PROBABILITY`; it then takes the fallback language (the run's, else its script's most likely
language, :data:`genevals.language.scripts.FALLBACK`) and says so in its note.
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
#: only the first characters of a long text are read: enough to decide, bounded in time
MAX_CHARS = 2000

_lock = threading.Lock()
_model: Any = None


def _identifier() -> Any:
    global _model
    with _lock:
        if _model is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier
            model = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            # the ISO 639-1 languages only: results name languages by two-letter codes
            model.set_languages(sorted({c for c in model.nb_classes if c in codes.ISO_639_1}))
            _model = model
    return _model


@dataclass(frozen=True)
class Language:
    """The language a sample is scored in, and how that was decided: ``source`` is ``row`` (its ``language``
    field), ``run`` (``--language``), ``detected``, or ``fallback`` (detection unsure; ``note`` says why)."""

    code: str
    source: str
    probability: float | None = None
    note: str | None = None

    @property
    def sure(self) -> bool:
        return self.source != "fallback"

    def details(self) -> dict[str, Any]:
        """What a result's details record about it: ``language``, ``language_source`` and the note if any."""
        out: dict[str, Any] = {"language": self.code, "language_source": self.source}
        if self.note:
            out["language_note"] = self.note
        return out


@functools.lru_cache(maxsize=16384)
def detect(text: str, fallback: str | None = None) -> Language:
    """The language of ``text``: detected, or ``fallback`` (None: the script's likely language) when unsure."""
    text = text[:MAX_CHARS]
    script, letters = scripts.dominant(text)
    if script is None:
        code = fallback or "en"
        return Language(code, "fallback", None, f"no letters to detect a language from; scored as {code}")
    if script in scripts.SINGLE:
        return Language(scripts.SINGLE[script], "detected", 1.0, None)
    if script == "Han":  # Han without kana: Chinese writing
        return Language("zh", "detected", 1.0, None)
    guess, probability = _identifier().classify(text)
    probability = float(probability)
    if letters >= MIN_LETTERS and probability >= MIN_PROBABILITY:
        return Language(guess, "detected", round(probability, 4), None)
    code = fallback or scripts.FALLBACK.get(script) or guess
    why = (f"too short to detect ({letters} letters)" if letters < MIN_LETTERS
           else f"detection unsure ({guess} at p={probability:.2f})")
    origin = "the run's fallback" if fallback else (f"{script} script" if script in scripts.FALLBACK
                                                     else "the model's best guess")
    return Language(code, "fallback", round(probability, 4), f"{why}; scored as {code} ({origin})")
