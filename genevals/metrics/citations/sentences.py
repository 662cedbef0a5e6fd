"""An answer's sentences with the contexts each one cites: from the markers in its text, or from the sample's
``citations`` field.

Markers (:mod:`genevals.claims.citations`) are taken out of the text, the clean text is cut into sentences (the
local grounding checker's splitter), and each marker goes to the sentence it stands in, or to the sentence it
follows ("... in 1998. [2] Next ..." cites for the first sentence). A sentence is *factual* when the splitter
would check it (three or more words, not a list header, not an abstention, not "as stated in passage 2").

The ``citations`` field gives one entry per sentence (matched in order to the answer's sentences) or per claim
(``{"text": ..., "contexts": [...]}``: the text is located in the answer, and need not be a whole sentence).
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from genevals.claims import citations as markers
from genevals.claims.locate import locate
from genevals.types import Sample


class CitationInputError(ValueError):
    """The sample's ``citations`` field cannot be matched to its answer (the reason says how)."""


@dataclass
class CitedSentence:
    """One sentence of the answer. ``span``: its [start, end) in the answer (None for a claim given in the
    ``citations`` field that is not found there); ``text``: the sentence without its markers; ``refs``: the
    references as written; ``cited``: the 0-based contexts they resolve to (in order, without repeats);
    ``out_of_range``: the references that name no context; ``markers``: the markers' spans in the answer."""

    index: int
    text: str
    span: tuple[int, int] | None
    refs: list[str] = field(default_factory=list)
    cited: list[int] = field(default_factory=list)
    out_of_range: list[str] = field(default_factory=list)
    markers: list[tuple[int, int]] = field(default_factory=list)
    factual: bool = True

    def add(self, refs: Sequence[str], ids: Sequence[str | None]) -> None:
        for ref in refs:
            self.refs.append(ref)
            at = markers.resolve(ref, ids)
            if at is None:
                if ref not in self.out_of_range:
                    self.out_of_range.append(ref)
            elif at not in self.cited:
                self.cited.append(at)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "text": self.text, "span": list(self.span) if self.span else None,
                "refs": list(self.refs), "cited": list(self.cited), "out_of_range": list(self.out_of_range),
                "markers": [list(m) for m in self.markers], "factual": self.factual}


def segment(text: str) -> list[tuple[int, int]]:
    from genevals.grounding.checker import segment  # numpy: only once an answer is checked (not for --help)

    return segment(text)


def _factual(text: str) -> bool:
    from genevals.grounding.checker import split_claims

    return bool(split_claims(text))


def context_ids(sample: Sample) -> list[str | None]:
    return [c.id for c in sample.contexts]


def from_markers(sample: Sample, pattern: re.Pattern | None) -> list[CitedSentence]:
    """The sentences of the answer, each with the markers it holds or follows."""
    ids = context_ids(sample)
    answer = sample.answer
    found = markers.find_markers(answer, [i for i in ids if i], pattern)
    clean, index = markers.strip_markers(answer, found)
    spans = segment(clean)
    out = []
    for i, (s, e) in enumerate(spans):
        text = clean[s:e]
        span = (index[s], index[e - 1] + 1) if e > s else None
        out.append(CitedSentence(i, text, span, factual=_factual(text)))
    if not out:
        return out
    # where each marker stood in the clean text: the clean characters before it
    for m in found:
        at = bisect.bisect_left(index, m.start)
        owner = out[0]
        for sentence, (s, _) in zip(out, spans):
            if s < at:
                owner = sentence
        owner.add(m.refs, ids)
        owner.markers.append((m.start, m.end))
    return out


def from_field(sample: Sample) -> list[CitedSentence]:
    """The sentences (or claims) of the ``citations`` field with the contexts they cite."""
    ids = context_ids(sample)
    given = sample.citations or ()
    answer = sample.answer
    if all(text is None for text, _ in given):
        spans = segment(answer)
        if len(spans) != len(given):
            raise CitationInputError(f"the citations field lists {len(given)} sentence(s) but the answer has "
                                     f"{len(spans)}; give one list per sentence, or objects with the text of each "
                                     "claim ({\"text\": ..., \"contexts\": [...]})")
        out = []
        for i, ((s, e), (_, refs)) in enumerate(zip(spans, given)):
            sentence = CitedSentence(i, answer[s:e], (s, e), factual=_factual(answer[s:e]))
            sentence.add(refs, ids)
            out.append(sentence)
        return out
    out = []
    for i, (text, refs) in enumerate(given):
        if text is None:
            raise CitationInputError(f"citations[{i}] has no text while others have: give every claim its text, "
                                     "or one plain list per sentence")
        found = locate(text, answer)
        sentence = CitedSentence(i, text, (found.start, found.end) if found else None, factual=_factual(text))
        sentence.add(refs, ids)
        out.append(sentence)
    return out


def cited_sentences(sample: Sample, pattern: re.Pattern | None) -> tuple[list[CitedSentence], str]:
    """The answer's sentences with their citations, and where they came from ("field" or "markers")."""
    if sample.citations is not None:
        return from_field(sample), "field"
    return from_markers(sample, pattern), "markers"
