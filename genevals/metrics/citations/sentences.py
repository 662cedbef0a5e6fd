"""An answer's sentences with the contexts each one cites: from the markers in its text, or from the sample's
``citations`` field.

Markers (:mod:`genevals.claims.citations`) are taken out of the text, the clean text is cut into sentences
(:mod:`genevals.language.sentences`, in any script: "。", "।", "؟" end sentences too), and each marker goes to the
sentence it stands in, or to the sentence it follows ("... in 1998. [2] Next ..." and "……首都。【2】上海……" cite
for the first sentence). A sentence is *factual* when the grounding checker would check it (three or more words,
not a list header, not an abstention, not "as stated in passage 2"); in a script the checker's words do not cover
(its words are ASCII), a sentence of three or more words written with spaces (Arabic, Devanagari...), or of
three or more letters in a script written without them (Han, Kana, Thai...), not ending in a colon.

The ``citations`` field gives one entry per sentence (matched in order to the answer's sentences) or per claim
(``{"text": ..., "contexts": [...]}``: the text is located in the answer, and need not be a whole sentence).
"""
from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from genevals.claims import citations as markers
from genevals.claims.locate import locate
from genevals.language.scripts import UNSPACED, dominant
from genevals.language.sentences import segment
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
    # what cited and out_of_range hold, for one lookup per reference (20k references in one sentence)
    _seen: set = field(default_factory=set, repr=False, compare=False)

    def add(self, refs: Sequence[str], contexts: markers.Contexts) -> None:
        for ref in refs:
            self.refs.append(ref)
            at = contexts.resolve(ref)
            key = ref if at is None else at
            if key in self._seen:
                continue
            self._seen.add(key)
            (self.out_of_range if at is None else self.cited).append(key)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "text": self.text, "span": list(self.span) if self.span else None,
                "refs": list(self.refs), "cited": list(self.cited), "out_of_range": list(self.out_of_range),
                "markers": [list(m) for m in self.markers], "factual": self.factual}


def _factual(text: str) -> bool:
    from genevals.grounding.checker import split_claims  # numpy: only once an answer is checked (not for --help)

    script, letters = dominant(text)
    if script in (None, "Latin"):
        return bool(split_claims(text))
    if text.rstrip().endswith((":", "\uff1a")):  # a list header
        return False
    if script in UNSPACED:
        return letters >= 3
    return sum(1 for word in text.split() if any(c.isalpha() for c in word)) >= 3  # Devanagari's signs are no letters


def context_ids(sample: Sample) -> list[str | None]:
    return [c.id for c in sample.contexts]


def from_markers(sample: Sample, pattern: Any) -> list[CitedSentence]:
    """The sentences of the answer, each with the markers it holds or follows."""
    ids = context_ids(sample)
    contexts = markers.Contexts(ids)
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
    # where each marker stood in the clean text (the clean characters before it), and the last sentence that
    # starts before that: bisected, not a walk over every sentence for every marker
    starts = [s for s, _ in spans]
    for m in found:
        at = bisect.bisect_left(index, m.start)
        owner = out[max(0, bisect.bisect_left(starts, at) - 1)]
        owner.add(m.refs, contexts)
        owner.markers.append((m.start, m.end))
    return out


def from_field(sample: Sample) -> list[CitedSentence]:
    """The sentences (or claims) of the ``citations`` field with the contexts they cite."""
    contexts = markers.Contexts(context_ids(sample))
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
            sentence.add(refs, contexts)
            out.append(sentence)
        return out
    out = []
    for i, (text, refs) in enumerate(given):
        if text is None:
            raise CitationInputError(f"citations[{i}] has no text while others have: give every claim its text, "
                                     "or one plain list per sentence")
        found = locate(text, answer)
        sentence = CitedSentence(i, text, (found.start, found.end) if found else None, factual=_factual(text))
        sentence.add(refs, contexts)
        out.append(sentence)
    return out


def cited_sentences(sample: Sample, pattern: Any) -> tuple[list[CitedSentence], str]:
    """The answer's sentences with their citations, and where they came from ("field" or "markers")."""
    if sample.citations is not None:
        return from_field(sample), "field"
    return from_markers(sample, pattern), "markers"
