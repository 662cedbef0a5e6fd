"""Language codes: ISO 639-1, the two-letter codes ``--language``, a row's ``language`` field and the results use.

A code is checked once, here (:func:`check`), and is read as a BCP 47 tag's language part, case and ``_``/``-``
aside: ``zh-Hant``, ``zh_TW`` and ``ZH`` are ``zh``, ``PT_br`` is ``pt``; the tag's other subtags must be 1 to 8
ASCII letters or digits (``en-!!!`` and ``en-`` are refused). Full-width forms (``ｚｈ``, typed with a
CJK input method) are read as their ASCII letters (NFKC). The codes ISO withdrew that Java's ``Locale`` and old
systems still write (``iw``, ``in``, ``ji``, ``jw``, ``mo``) are read as their current ones. Anything else (an
ISO 639-2 code such as ``eng``, a country code such as ``cn``, a name such as ``english``) is a ValueError that
names the field and, where one is known, the code meant.
"""
from __future__ import annotations

import difflib
import unicodedata

#: every ISO 639-1 code (ISO 639-1:2002 with its later additions)
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el
en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja
jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd
ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss
st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split())

#: withdrawn ISO 639-1 codes, still written by Java's Locale and older systems: read as their current code
WITHDRAWN = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"}

#: English names of the languages genevals treats specially, for messages and the report, and detects
NAMES = {
    "en": "English", "es": "Spanish", "de": "German", "fr": "French", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "vi": "Vietnamese", "ar": "Arabic", "fa": "Persian", "ur": "Urdu", "he": "Hebrew",
    "hi": "Hindi", "mr": "Marathi", "ne": "Nepali", "bn": "Bengali", "zh": "Chinese", "ja": "Japanese",
    "ko": "Korean", "th": "Thai", "ru": "Russian", "uk": "Ukrainian", "el": "Greek", "tr": "Turkish",
    "pl": "Polish", "id": "Indonesian", "sw": "Swahili",
    # the languages that own their script: a text in it is one of them, whatever its length
    "ka": "Georgian", "hy": "Armenian", "lo": "Lao", "my": "Burmese", "km": "Khmer", "ta": "Tamil",
    "te": "Telugu", "gu": "Gujarati", "kn": "Kannada", "ml": "Malayalam", "si": "Sinhala", "pa": "Punjabi",
    "or": "Odia", "am": "Amharic",
}

#: the languages detection chooses among (:mod:`genevals.language.detect`): those of :data:`NAMES`, the ones
#: genevals' rules and messages know by name (MLQA's normalisations, the segmenters, the languages that own
#: their script). A text in any other language is read as the nearest of these, or falls back (every language
#: outside MLQA's and the segmenters' is normalised by the same Unicode rule, so only the label differs); a row's
#: ``language`` field or ``--language`` still takes any ISO 639-1 code.
SUPPORTED = frozenset(NAMES)

#: what a user may type for one of :data:`NAMES` that is not its ISO 639-1 code: the ISO 639-2/3 codes, the
#: country codes people confuse with language codes, the names. Only for the did-you-mean: never accepted,
#: since a guess would score a run in a language nobody chose.
MEANT = {
    **{name.lower(): code for code, name in NAMES.items()},
    "eng": "en", "spa": "es", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr", "ita": "it", "por": "pt",
    "nld": "nl", "dut": "nl", "vie": "vi", "ara": "ar", "fas": "fa", "per": "fa", "urd": "ur", "heb": "he",
    "hin": "hi", "mar": "mr", "nep": "ne", "ben": "bn", "zho": "zh", "chi": "zh", "cmn": "zh", "yue": "zh",
    "jpn": "ja", "kor": "ko", "tha": "th", "rus": "ru", "ukr": "uk", "ell": "el", "gre": "el", "tur": "tr",
    "pol": "pl", "ind": "id", "swa": "sw",
    "cn": "zh", "tw": "zh", "hk": "zh", "jp": "ja", "kp": "ko", "gr": "el", "ua": "uk", "il": "he", "cz": "cs",
    "dk": "da", "ir": "fa", "mandarin": "zh", "cantonese": "zh", "farsi": "fa",
}


def name(code: str) -> str:
    """``"Chinese (zh)"``: the language's English name with its code (the code alone when not in :data:`NAMES`)."""
    return f"{NAMES[code]} ({code})" if code in NAMES else code


def _shown(code: str) -> str:
    return repr(code if len(code) <= 40 else code[:40] + "...")


def _meant(base: str, whole: str) -> str | None:
    """The ISO 639-1 code a mistaken ``base`` (of the tag ``whole``) most likely meant, or None."""
    if whole in MEANT or base in MEANT:
        return MEANT.get(whole) or MEANT[base]
    visible = "".join(c for c in base if unicodedata.category(c) != "Cf")  # a zero-width space pasted along
    if visible in ISO_639_1:
        return visible
    close = difflib.get_close_matches(base, sorted(ISO_639_1), n=1) if len(base) == 2 else []
    return close[0] if close else None


def check(code: object, field: str = "language") -> str:
    """``code`` as a lower-case ISO 639-1 code; a ValueError naming ``field`` otherwise."""
    if not isinstance(code, str):
        raise ValueError(f"{field}: expected an ISO 639-1 code such as 'en' or 'zh', got {type(code).__name__}")
    low = unicodedata.normalize("NFKC", code).strip().lower().replace("_", "-")
    base, *subtags = low.split("-")  # "zh-Hans", "pt-BR": the language part, then BCP 47's other subtags
    base = WITHDRAWN.get(base, base)
    if base in ISO_639_1:
        if all(1 <= len(s) <= 8 and s.isascii() and s.isalnum() for s in subtags):
            return base
        raise ValueError(f"{field}: {_shown(code)} is not a language tag: after the language code, a BCP 47 tag "
                         "has subtags of 1 to 8 ASCII letters or digits, each after a '-' (such as 'en-US' or "
                         f"'zh-Hant'); or write the code alone, '{base}'")
    if not low:
        raise ValueError(f"{field}: empty; use a two-letter ISO 639-1 code such as 'en', 'zh', 'ar', or 'auto' to "
                         "detect it")
    meant = _meant(base, low)
    hint = f" (did you mean '{meant}'?)" if meant else ""
    raise ValueError(f"{field}: {_shown(code)} is not an ISO 639-1 language code{hint}; use a two-letter code "
                     "such as 'en', 'zh', 'ar', or 'auto' to detect it")
