r"""Duplicates among the chosen samples: the same content, or nearly.

The content of a sample is its question and answer, normalised: Unicode NFKC, case folded, every run of
characters that are neither letters nor digits made one space, trimmed. Two samples are **exact** duplicates when
the SHA-256 of ``question + "\x1f" + answer`` (normalised) is equal, and **near** duplicates when rapidfuzz's
``fuzz.ratio`` of the two normalised texts, :math:`100 \cdot (1 - d_{Indel} / (|a| + |b|))`, is at or above the
threshold (:data:`genevals.curate.config.NEAR_THRESHOLD` unless ``--near``). The first sample (in the order of
the run folders given and their lines) is kept; a later duplicate is dropped and counted.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

_NOT_WORD = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    return _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def content_hash(question: str, answer: str) -> str:
    return hashlib.sha256(f"{normalised(question)}\x1f{normalised(answer)}".encode()).hexdigest()


@dataclass(frozen=True)
class Duplicate:
    """``dropped`` (an index of the texts) repeats ``kept``: ``kind`` is exact or near, with the ratio."""
    dropped: int
    kept: int
    kind: str
    ratio: float


def deduplicate(texts: Sequence[tuple[str, str]], threshold: float) -> tuple[list[int], list[Duplicate]]:
    """The indices kept (in order) of (question, answer) ``texts``, and each duplicate dropped."""
    kept: list[int] = []
    seen: dict[str, int] = {}
    bodies: list[str] = []
    duplicates = []
    for i, (question, answer) in enumerate(texts):
        key = content_hash(question, answer)
        if key in seen:
            duplicates.append(Duplicate(i, seen[key], "exact", 100.0))
            continue
        body = f"{normalised(question)} {normalised(answer)}"
        match = process.extractOne(body, bodies, scorer=fuzz.ratio, score_cutoff=threshold) if bodies else None
        if match is not None:
            duplicates.append(Duplicate(i, kept[match[2]], "near", round(match[1], 2)))
            continue
        seen[key] = i
        kept.append(i)
        bodies.append(body)
    return kept, duplicates
