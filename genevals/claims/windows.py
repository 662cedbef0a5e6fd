"""Context windows for the verify call: contexts longer than the judge's budget are cut at paragraph and
sentence ends (in any script: "。" as well as ". ") and packed, in order, into windows of at most
``budget_chars`` characters; each claim is checked against the windows that share the most content words with
it (Latin-alphabet content words, and the words and Han/kana character pairs of other scripts:
:func:`genevals.claims.locate.script_units`)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from genevals.claims.locate import script_units
from genevals.language.sentences import LOOSE
from genevals.text import content_words
from genevals.types import Context

#: windows each claim is checked against when the contexts need several
WINDOWS_PER_CLAIM = 2
# a paragraph end, else a sentence end in any script (genevals.language.sentences)
_BOUNDARY = re.compile(r"\n\s*\n|" + LOOSE)


@dataclass
class Piece:
    context_index: int  # 0-based into the sample's contexts
    start: int
    end: int


@dataclass
class Window:
    pieces: list[Piece] = field(default_factory=list)
    chars: int = 0


def split_windows(contexts: Sequence[Context], budget_chars: int) -> list[Window]:
    """Cut contexts into pieces of at most ``budget_chars`` at paragraph/sentence ends and pack them in order."""
    pieces: list[Piece] = []
    for ci, ctx in enumerate(contexts):
        text = ctx.text
        if not text.strip():
            continue
        start = 0
        while len(text) - start > budget_chars:
            limit = start + budget_chars
            cut = None
            for m in _BOUNDARY.finditer(text, start + budget_chars // 2, limit):
                cut = m.end()
            if cut is None:
                space = text.rfind(" ", start + budget_chars // 2, limit)
                cut = space + 1 if space > start else limit
            pieces.append(Piece(ci, start, cut))
            start = cut
        pieces.append(Piece(ci, start, len(text)))
    windows: list[Window] = []
    for piece in pieces:
        size = piece.end - piece.start
        if not windows or windows[-1].chars + size > budget_chars:
            windows.append(Window())
        windows[-1].pieces.append(piece)
        windows[-1].chars += size
    return windows


def assign(windows: Sequence[Window], claims: Mapping[int, str], contexts: Sequence[Context]) -> list[list[int]]:
    """Claim ids per window: each claim goes to the :data:`WINDOWS_PER_CLAIM` windows sharing most content
    words with it (the first window when none shares any)."""
    window_words = [set().union(*(_units(contexts[p.context_index].text[p.start:p.end]) for p in w.pieces))
                    for w in windows]
    assigned: list[list[int]] = [[] for _ in windows]
    for cid, text in claims.items():
        words = _units(text)
        overlap = [(len(words & ww), -k) for k, ww in enumerate(window_words)]
        ranked = sorted(range(len(windows)), key=lambda k: overlap[k], reverse=True)
        chosen = [k for k in ranked[:WINDOWS_PER_CLAIM] if overlap[k][0] > 0] or ranked[:1]
        for k in chosen:
            assigned[k].append(cid)
    return assigned


def _units(text: str) -> set[str]:
    """What a claim and a window are compared by: content words in any script (a Chinese claim has no
    Latin-alphabet word, and would otherwise always go to the first window)."""
    return set(content_words(text)) | script_units(text)


def render(contexts: Sequence[Context], window: Window) -> str:
    """The window's contexts as the verify prompt shows them: "[n] text", "(excerpt)" when cut."""
    parts = []
    for piece in window.pieces:
        ctx = contexts[piece.context_index]
        whole = piece.start == 0 and piece.end == len(ctx.text)
        label = f"[{piece.context_index + 1}]" + ("" if whole else " (excerpt)")
        parts.append(f"{label} {ctx.text[piece.start:piece.end].strip()}")
    return "\n\n".join(parts)
