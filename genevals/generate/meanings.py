"""What each rejection and flag of a generated item means, one line each: the card carries the lines of the
rejections it counts (``gate_meanings``), so its page explains them from card.json alone. docs/generate-gates.md
says each at length; ``tests/generate/test_meanings.py`` checks that every status of
:data:`genevals.generate.items.REJECTIONS` and :data:`~genevals.generate.items.FLAGS` has its line here."""
from __future__ import annotations

from collections.abc import Iterable

MEANINGS = {
    "type_mismatch": "the item lacks the shape its type promises (a question, its chunks, quotes, a refusal "
                     "for unanswerable items)",
    "ungrounded_reference": "an evidence quote is not found verbatim (after folding case, spaces, quote marks) "
                            "in the chunk it cites",
    "not_self_contained": "the question or reference points at a source the reader never saw (\"according to "
                          "the passage\")",
    "wrong_language": "the question or reference is not in the language asked (or the documents')",
    "duplicate": "the question repeats one kept before or of an earlier set (same normal form, or rapidfuzz "
                 "similarity of 90 or more)",
    "reference_not_supported": "the judge found the reference not supported by the cited chunks",
    "unanswerable_from_source": "the judge, given the chunks, could not answer the question as the reference does",
    "not_multihop": "the judge answered the multi-hop question from one chunk alone",
    "accidentally_answerable": "an item meant to be unanswerable was answered from the corpus's top BM25 chunks",
    "answerable_without_context": "(a flag, the item is kept) the judge answered the question without any chunk",
    "generation_failed": "the generator made no item (a failed call, a reply off the schema, cut short or citing "
                         "a chunk not given)",
    "judge_error": "a judge gate's call failed or its reply could not be read: never kept as if checked",
}


def meanings_of(statuses: Iterable[str | None]) -> dict[str, str]:
    """The lines of ``statuses`` (sorted; None skipped); a status with no line says so rather than vanish."""
    return {s: MEANINGS.get(s, "no meaning recorded for this status") for s in sorted({s for s in statuses if s})}
