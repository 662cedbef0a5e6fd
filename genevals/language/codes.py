"""Language codes: ISO 639-1, the two-letter codes ``--language``, a row's ``language`` field and the results use.

A code is checked once, here; an unknown one is a ValueError with a did-you-mean.
"""
from __future__ import annotations

import difflib

#: every ISO 639-1 code (ISO 639-1:2002 with its later additions)
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el
en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja
jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd
ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss
st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split())

#: English names of the languages genevals treats specially, for messages and the report
NAMES = {
    "en": "English", "es": "Spanish", "de": "German", "fr": "French", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "vi": "Vietnamese", "ar": "Arabic", "fa": "Persian", "ur": "Urdu", "he": "Hebrew",
    "hi": "Hindi", "mr": "Marathi", "ne": "Nepali", "bn": "Bengali", "zh": "Chinese", "ja": "Japanese",
    "ko": "Korean", "th": "Thai", "ru": "Russian", "uk": "Ukrainian", "el": "Greek", "tr": "Turkish",
    "pl": "Polish", "id": "Indonesian", "sw": "Swahili",
}


def name(code: str) -> str:
    """``"Chinese (zh)"``: the language's English name with its code (the code alone when not in :data:`NAMES`)."""
    return f"{NAMES[code]} ({code})" if code in NAMES else code


def check(code: object, field: str = "language") -> str:
    """``code`` as a lower-case ISO 639-1 code; a ValueError naming ``field`` otherwise."""
    if not isinstance(code, str):
        raise ValueError(f"{field}: expected an ISO 639-1 code such as 'en' or 'zh', got {type(code).__name__}")
    low = code.strip().lower().replace("_", "-")
    base = low.split("-", 1)[0]  # "zh-Hans", "pt-BR": the language part
    if base in ISO_639_1:
        return base
    shown = code if len(code) <= 40 else code[:40] + "..."
    close = difflib.get_close_matches(base, sorted(ISO_639_1), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close and len(base) <= 3 else ""
    raise ValueError(f"{field}: {shown!r} is not an ISO 639-1 language code{hint}; use a two-letter code "
                     "such as 'en', 'zh', 'ar', or 'auto' to detect it")
