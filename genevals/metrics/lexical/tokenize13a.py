"""sacrebleu's 13a tokenizer (mteval-v13a), giving the same tokens without Python work per match.

On Python 3.11 ``re.sub`` with a group template (``r' \\1 '``) expands every match in Python, which makes the 13a
tokenizer almost half of ``sentence_bleu``'s time. The same substitutions are written here as literal ``str.replace``
calls and look-around patterns with literal replacements, which run entirely in C:

1. ``([{-~[-` -&(-+:-@/])`` -> `` \\1 ``: each of those characters becomes " c ".
2. ``([^0-9])([.,])`` -> ``\\1 \\2 ``: "." and "," preceded by a non-digit get a space on both sides.
3. ``([.,])([^0-9])`` -> `` \\1 \\2``: "." and "," followed by a non-digit get a space on both sides.
4. ``([0-9])(-)`` -> ``\\1 \\2 ``: "-" preceded by a digit gets a space on both sides.

Rules 2 and 3 consume two characters per match, so in a run such as "..5" sacrebleu leaves some dots unmatched;
look-arounds consume one. The two agree whenever no "." or "," touches another; the words where one does ("U.S.,",
"...") go through sacrebleu's own rules. ``tests/metrics/lexical/test_tokenize13a.py`` compares both on
adversarial and real text.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

# Rule 1's characters but the space: " " -> "   " changes no token and no neighbour class of rules 2-4.
_RULE1 = tuple(c for c in map(chr, range(33, 128)) if re.fullmatch(r"[\{-\~\[-\` -\&\(-\+\:-\@\/]", c))
_ADJACENT = re.compile(r"[.,][.,]")
_ADJACENT_WORD = re.compile(r"((?<!\S)(?=\S*[.,][.,])\S+)")
# After rules 2 and 3, a lone "." or "," stays glued only between two digits ("3.5", "1,000"). Each pattern
# opens with a literal, which the regex engine searches for in C before trying the look-arounds.
_DOT_BETWEEN_DIGITS = re.compile(r" \. (?=[0-9])(?<=[0-9] \. )")
_COMMA_BETWEEN_DIGITS = re.compile(r" , (?=[0-9])(?<=[0-9] , )")
_DASH_AFTER_DIGIT = re.compile(r"-(?<=[0-9]-)")


@lru_cache(maxsize=1)
def _sacrebleu_rules() -> Callable[[str], str]:
    """sacrebleu's own rules 1-4 (``TokenizerRegexp``, 13a's second half), without its lru_cache."""
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    rules = TokenizerRegexp()
    call = getattr(TokenizerRegexp.__call__, "__wrapped__", None)
    return (lambda line: call(rules, line)) if call is not None else rules


def _fast(line: str) -> list[str]:
    for c in _RULE1:
        if c in line:
            line = line.replace(c, f" {c} ")
    if "." in line:
        line = _DOT_BETWEEN_DIGITS.sub(".", line.replace(".", " . "))
    if "," in line:
        line = _COMMA_BETWEEN_DIGITS.sub(",", line.replace(",", " , "))
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(" - ", line)
    return line.split()


def tokens_13a(line: str) -> list[str]:
    """``Tokenizer13a()(line).split()``: sacrebleu's 13a tokens of ``line``."""
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    if not _ADJACENT.search(line):
        return _fast(line)
    # No rule reaches across whitespace (a blank is never a "." or "," to chain through), so only the words
    # with touching "." or "," need sacrebleu's own rules; the text between them takes the fast path.
    out: list[str] = []
    for i, part in enumerate(_ADJACENT_WORD.split(line)):
        out += _sacrebleu_rules()(f" {part} ").split() if i % 2 else _fast(part)
    return out
