"""The run's language setting and each sample's language.

``--language`` / ``language=`` takes ``auto`` (the default: detect each sample, and score an unsure one in the
run's majority language, :mod:`genevals.language.majority`), ``auto:CODE`` (detect, and score unsure samples as
CODE), or a code (every sample is CODE). A row's ``language`` field overrides it.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace

from genevals.language import codes
from genevals.language.detect import MAX_CHARS, Language, detect
from genevals.language.majority import Majority, settle

AUTO = "auto"


@dataclass(frozen=True)
class LanguageSetting:
    """``fixed``: every sample's language (None: detect); ``fallback``: an unsure detection's language;
    ``majority``: the run's majority language by script, counted by the planning pass (with neither of the others;
    a fact of the data, not a setting: it is in no signature)."""

    fixed: str | None = None
    fallback: str | None = None
    majority: Majority | None = field(default=None, compare=False)

    @classmethod
    def parse(cls, value: object, field: str = "--language") -> "LanguageSetting":
        """``None`` or ``"auto"`` (any case, spaces around it, full-width): detect; ``"auto:CODE"``: detect, CODE
        where unsure; a code: every sample is it (:func:`genevals.language.codes.check`). Anything else is a
        ValueError naming ``field``."""
        if value is None:
            return cls()
        if isinstance(value, LanguageSetting):
            return value
        if not isinstance(value, str):
            raise ValueError(f"{field}: expected 'auto', 'auto:CODE' or an ISO 639-1 code, got "
                             f"{type(value).__name__}")
        low = unicodedata.normalize("NFKC", value).strip().lower()
        if low == AUTO:
            return cls()
        if low.startswith(AUTO + ":"):
            fallback = low[len(AUTO) + 1:].strip()
            if not fallback or fallback == AUTO:
                raise ValueError(f"{field}: 'auto:' needs the language of unsure samples after it, an ISO 639-1 "
                                 "code such as 'auto:en'; or 'auto' alone")
            return cls(None, codes.check(fallback, field))
        return cls(codes.check(value, field), None)

    def __str__(self) -> str:
        if self.fixed:
            return self.fixed
        return f"{AUTO}:{self.fallback}" if self.fallback else AUTO

    def signature(self) -> str:
        """The signature part: ``lang:auto``, ``lang:auto:de``, ``lang:zh``."""
        return f"lang:{self}"


def detection_text(answer: str, references: tuple[str, ...] = (), question: str = "", context: str = "") -> str:
    return "\n".join([answer, *references, question, context])


def resolve(answer: str, declared: str | None, setting: LanguageSetting,
            references: tuple[str, ...] = (), question: str = "", context: str = "") -> Language:
    """The language to score a text in: the row's ``declared`` one, else the run's fixed one, else detected from
    the answer alone (when sure), else from the answer with its references, question and first retrieved
    context (a short answer is usually in its context's language), else the fallback."""
    if declared:
        return Language(declared, "row")
    if setting.fixed:
        return Language(setting.fixed, "run")
    alone = detect(answer, setting.fallback)
    if alone.sure or not (references or question or context):
        return alone
    together = detect(detection_text(answer, references, question, context), setting.fallback)
    return together


def language_of(sample, setting: LanguageSetting) -> Language:
    """The language of a :class:`~genevals.types.Sample` (:func:`resolve`), decided once: kept on the sample
    (beside its fields, as ``functools.cached_property`` keeps a value; it travels with the sample to worker
    processes), so every metric of the run reads the same decision and none detects again."""
    kept = sample.__dict__.get(_KEPT)
    if kept is not None and kept[0] == setting:
        lang = kept[1]
    else:
        context = sample.contexts[0].text[:MAX_CHARS] if sample.contexts else ""
        lang = resolve(sample.answer, sample.language, setting, sample.references, sample.question, context)
        sample.__dict__[_KEPT] = (setting, lang)  # not a field: equality, to_dict and the results line ignore it
    return settle(lang, setting.majority) if setting.fallback is None else lang


def without_majority(setting: LanguageSetting) -> LanguageSetting:
    """``setting`` as the planning pass detects with, before the majority is known."""
    return replace(setting, majority=None)


_KEPT = "_language_decided"
