"""Numbers, dates, named entities and boolean record fields, found with regular expressions (no NLP model).

Everything here is deliberately simple and explainable: a claim's number, capitalised name or record attribute
is either present in the evidence (in some normal form) or not, and the reason says which.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

from genevals.text import WORD

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w])")
_TIME = re.compile(r"\b(\d{1,2}):(\d{1,2})\b")
_CAP = re.compile(r"\b[A-Z][a-zA-Z'\-]*[a-zA-Z]\b|\b[A-Z]{2,}\b")
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1_000_000, "billion": 1_000_000_000, "first": 1, "second": 2, "third": 3, "fourth": 4,
    "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "twice": 2, "once": 1,
    "half": 0.5, "dozen": 12, "double": 2, "triple": 3,
}
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
# Capitalised words that are not names: function words, discourse markers, and words answers capitalise.
_NOT_NAMES = set("""
a an the and or but if so as at by for from in into of on onto to up with without within about above after
again against all also although always am among any are around because been before being below between both
can could did do does during each either even ever every few further had has have having he her here hers him
his how however i i'm i've it it's its just least less many may me might more most much must my neither no nor
not now of off often once only other our ours out over overall own per perhaps please rather same she should
since some such than that their theirs them then there therefore these they this those though through thus too
under unless until upon us very was we were what whatever when where whether which while who whom whose why will
would yes yet you your yours additionally based according furthermore moreover meanwhile finally firstly secondly
lastly also instead despite given passage passages summary note answer question information context source
text article report reports review reviews customers customer business restaurant overall lastly in-depth
am pm a.m p.m ok
""".split())
US_STATES = {
    "al": "alabama", "ak": "alaska", "az": "arizona", "ar": "arkansas", "ca": "california", "co": "colorado",
    "ct": "connecticut", "de": "delaware", "fl": "florida", "ga": "georgia", "hi": "hawaii", "id": "idaho",
    "il": "illinois", "in": "indiana", "ia": "iowa", "ks": "kansas", "ky": "kentucky", "la": "louisiana",
    "me": "maine", "md": "maryland", "ma": "massachusetts", "mi": "michigan", "mn": "minnesota",
    "ms": "mississippi", "mo": "missouri", "mt": "montana", "ne": "nebraska", "nv": "nevada",
    "nh": "new hampshire", "nj": "new jersey", "nm": "new mexico", "ny": "new york", "nc": "north carolina",
    "nd": "north dakota", "oh": "ohio", "ok": "oklahoma", "or": "oregon", "pa": "pennsylvania",
    "ri": "rhode island", "sc": "south carolina", "sd": "south dakota", "tn": "tennessee", "tx": "texas",
    "ut": "utah", "vt": "vermont", "va": "virginia", "wa": "washington", "wv": "west virginia",
    "wi": "wisconsin", "wy": "wyoming", "dc": "district of columbia", "ab": "alberta", "bc": "british columbia",
}
NEGATIONS = frozenset({"no", "not", "never", "none", "without", "lack", "lacks", "lacking", "neither", "nor",
                       "cannot", "doesn't", "don't", "isn't", "aren't", "wasn't", "weren't", "didn't", "won't",
                       "hasn't", "haven't", "unavailable"})


def norm_number(int_part: str, frac: str | None) -> str:
    value = int_part.replace(",", "").lstrip("0") or "0"
    frac = (frac or "").rstrip("0")
    return f"{value}.{frac}" if frac else value


def numbers_in(text: str) -> list[tuple[str, int, int]]:
    """Digit numbers in ``text`` as (normal form, start, end); ``4.0`` and ``4`` share the form ``4``."""
    return [(norm_number(m.group(1), m.group(2)), m.start(), m.end()) for m in _NUMBER.finditer(text)]


def number_forms(text: str) -> set[str]:
    """Every form a number in ``text`` may take in a faithful claim: digits, number words, 12-hour times."""
    forms = {n for n, _, _ in numbers_in(text)}
    lowered = text.lower()
    for word, value in NUMBER_WORDS.items():
        if re.search(rf"\b{word}\b", lowered):
            forms.add(str(value))
    for m in _TIME.finditer(text):
        hour = int(m.group(1))
        if hour > 12:
            forms.add(str(hour - 12))
        if hour == 0:
            forms.add("12")
    # percentages written as fractions, thousands written out ("1.5 million" ~ "1,500,000") are left alone
    return forms


def entities_in(text: str) -> list[tuple[str, int, int]]:
    """Capitalised words that are not sentence-initial function words: (word, start, end)."""
    out = []
    for m in _CAP.finditer(text):
        word = m.group(0)
        if word.lower() in _NOT_NAMES or word.lower() in NUMBER_WORDS or word.lower() in MONTHS[:0]:
            continue
        before = text[:m.start()].rstrip()
        sentence_start = not before or before[-1] in ".!?:\n*-•(\"'" or before.endswith("\n")
        if sentence_start and word.isalpha() and not word.isupper():
            # "Customers ..." at a sentence start is just a capital; a name there is caught elsewhere
            continue
        out.append((word, m.start(), m.end()))
    return out


def token_set(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def compact(text: str) -> str:
    """Lowercase letters and digits only: "Wi-Fi" and "WiFi", "O'Malleys" and "OMalleys" compare equal."""
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def expand_abbreviations(text: str) -> str:
    """The text plus the full names of US/Canadian state codes written as separate upper-case words ("CA")."""
    extra = [US_STATES[m.lower()] for m in re.findall(r"\b[A-Z]{2}\b", text) if m.lower() in US_STATES]
    return text + (" " + " ".join(extra) if extra else "")


def present(word: str, tokens: set[str], stems: set[str], compact_text: str = "") -> bool:
    """Whether a name from a claim occurs in the evidence: as a token, a 5-letter stem, a singular, or (for
    words of 4+ letters) inside the evidence with punctuation removed."""
    w = word.lower()
    if w in tokens:
        return True
    c = compact(w)
    if len(c) >= 4 and c in compact_text:
        return True
    if len(c) >= 4 and c.endswith("s") and c[:-1] in compact_text:
        return True
    parts = [p for p in re.split(r"[-']", w.replace("'s", "")) if p]
    return bool(parts) and all(p in tokens or stem(p) in stems or p.rstrip("s") in tokens for p in parts)


# -- structured records (JSON contexts) ---------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    key: str          # the record key, e.g. "OutdoorSeating"
    phrase: str       # the words a claim would use, e.g. "outdoor seating"
    value: Any        # True, False or None
    span: tuple[int, int]  # where '"OutdoorSeating": false' is in the context text


_KEY_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_DROP_KEY_WORDS = {"restaurants", "business", "accepts", "good", "for", "has", "is"}
# keys whose words are too common to mean the attribute when they appear in a claim
_GENERIC_KEYS = {"lot", "street", "validated", "dessert", "latenight", "breakfast", "lunch", "dinner", "brunch",
                 "casual", "open", "bike", "hipster", "touristy", "divey", "intimate"}
_SYNONYMS = {"wifi": ("wifi", "wi-fi", "wi fi", "internet"), "take out": ("takeout", "take-out", "take out"),
             "outdoor seating": ("outdoor seating", "patio", "outdoor dining", "outside seating"),
             "reservations": ("reservation", "reservations"), "delivery": ("delivery", "deliver", "delivers"),
             "credit cards": ("credit card", "credit cards"), "valet": ("valet",), "groups": ("groups",),
             "kids": ("kids", "children", "families", "family-friendly"), "music": ("music",),
             "wheelchair accessible": ("wheelchair",), "dogs allowed": ("dog", "dogs", "pet", "pets"),
             "alcohol": ("alcohol", "beer", "wine", "cocktails", "full bar"), "tv": ("tv", "television"),
             "happy hour": ("happy hour",), "caters": ("catering", "caters"), "table service": ("table service",),
             "noise level": ("noise", "noisy", "quiet", "loud")}


def key_phrase(key: str) -> str:
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    words = [w for w in words if w not in _DROP_KEY_WORDS] or words
    phrase = " ".join(words)
    compact = phrase.replace(" ", "")
    for known in _SYNONYMS:  # "WiFi" -> "wi fi" -> "wifi"; "RestaurantsTakeOut" -> "take out"
        if known.replace(" ", "") == compact:
            return known
    return phrase


_KEY_LINE = re.compile(r"^\s*[-*]?\s*([A-Za-z][\w\- .]{0,60}?)\s*[:=]\s*(\S.*)?$")


def _json_keys(obj: Any, out: list[str]) -> list[str]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.append(str(key))
            _json_keys(value, out)
    elif isinstance(obj, list):
        for item in obj:
            _json_keys(item, out)
    return out


def record_keys(context: str) -> list[str]:
    """The keys of a structured record: every key of a JSON object text, or of ``key: value`` lines (most of a
    text's two or more lines); [] for any other text."""
    text = context.strip()
    if text.startswith("{"):
        try:
            return _json_keys(json.loads(text), [])
        except ValueError:
            pass
    lines = [line for line in text.splitlines() if line.strip()]
    keyed = [m.group(1) for m in map(_KEY_LINE.match, lines) if m]
    return keyed if len(lines) >= 2 and len(keyed) * 2 > len(lines) else []


def key_words(context: str) -> str:
    """The words inside a structured record's keys, split at CamelCase, snake_case, kebab-case and digits
    (``RestaurantsReservations`` -> ``restaurants reservations``, ``noise_level`` -> ``noise level``), one
    space between: the words the record holds besides its values. "" for a text that is no record."""
    return " ".join(w.lower() for key in record_keys(context) for w in _KEY_WORDS.findall(key))


def record_fields(context: str) -> list[Field]:
    """Boolean and null leaves of a JSON object context, with their key span; [] if the text is not JSON."""
    text = context.strip()
    if not text.startswith("{"):
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    fields: list[Field] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, dict):
            for key, value in obj.items():
                if isinstance(value, (dict, list)):
                    walk(value)
                    continue
                if value is None or isinstance(value, bool) or (isinstance(value, str) and value.lower() in
                                                                ("true", "false", "none", "no", "free", "paid")):
                    val = value if not isinstance(value, str) else (value.lower() in ("true", "free", "paid"))
                    if isinstance(value, str) and value.lower() in ("none", "no"):
                        val = False
                    phrase = key_phrase(str(key))
                    if phrase.replace(" ", "") in _GENERIC_KEYS or len(phrase) < 3:
                        continue
                    m = re.search(r'"' + re.escape(str(key)) + r'"\s*:\s*[^,}\]]*', context)
                    span = (m.start(), m.end()) if m else (0, 0)
                    fields.append(Field(str(key), phrase, val, span))
        elif isinstance(obj, list):
            for item in obj:
                walk(item)

    walk(data)
    return fields


def field_mentions(claim: str, fields: Iterable[Field]) -> list[tuple[Field, bool]]:
    """Fields the claim talks about, each with whether the claim negates it (a negation just before it)."""
    lowered = claim.lower()
    out = []
    for f in fields:
        variants = _SYNONYMS.get(f.phrase, (f.phrase,))
        for variant in variants:
            m = re.search(r"\b" + re.escape(variant) + r"\b", lowered)
            if m is None:
                continue
            before = lowered[max(0, m.start() - 80):m.start()]
            # a negation counts only within the same clause ("no patio but free wifi": wifi is not negated),
            # but it carries over a list ("does not offer reservations, outdoor seating, or music")
            before = re.split(r"[;:.]|,\s*and\b|\b(?:but|while|although|though|however|yet|whereas|except)\b",
                              before)[-1]
            window = WORD.findall(before)[-8:]
            after = WORD.findall(lowered[m.end():m.end() + 30])[:3]  # "Wi-Fi is not available"
            negated = any(w in NEGATIONS or w.endswith("n't") for w in window) or (
                len(after) >= 2 and after[0] in ("is", "are", "was", "were") and
                (after[1] in NEGATIONS or after[1].endswith("n't")))
            out.append((f, negated))
            break
    return out
