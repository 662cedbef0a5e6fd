"""A row as a reader hands it over (:class:`RawRow`), the field names genevals reads and the other tools' names
for them, and what is wrong with a row (:class:`InputError`, naming file, line and field)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from genevals.input import mapping

# Column names that other tools use, mapped to ours. Ours win when both are present.
ALIASES: dict[str, str] = {
    # ragas
    "user_input": "question",
    "response": "answer",
    "retrieved_contexts": "contexts",
    "reference": "references",
    # DeepEval
    "input": "question",
    "actual_output": "answer",
    "retrieval_context": "contexts",
    "expected_output": "references",
    # common singular/plural variants
    "context": "contexts",
    "ground_truth": "references",
    "ground_truths": "references",
    "query": "question",
}
#: the field that holds a row's own facts (a label for people, tags, latency): declared, so that a file carrying
#: them warns about nothing, and never read, so that nothing in it can change a score
METADATA = "metadata"
#: the fields a row may hold: those a mapping may fill, how many earlier turns a conversation turn's history
#: left out (written beside the history in results.jsonl, read back from it), and the row's own metadata
KNOWN_FIELDS = mapping.FIELDS + ("history_dropped", METADATA)
#: the keys of a per-claim citation object: its text, and the contexts it cites
CITATION_TEXT_KEYS = ("text", "sentence", "claim")
CITATION_REF_KEYS = ("contexts", "citations", "sources", "ids")
#: relevance grades beyond these are refused: exponential gain (2^g) overflows long before 1024, and no
#: judging scale comes near them
MIN_GRADE, MAX_GRADE = -100.0, 100.0


class InputError(ValueError):
    """Bad input, located. ``str()`` reads ``file:line: field 'x': message``."""

    def __init__(self, source: str, line: int | None, field: str | None, message: str):
        self.source, self.line, self.field, self.message = source, line, field, message
        where = source if line is None else f"{source}:{line}"
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")


@dataclass(frozen=True)
class RawRow:
    source: str
    line: int
    data: Any
    # CSV cells are all text, so lists and mappings arrive as JSON text; other formats keep their types,
    # and a JSONL string that happens to look like JSON stays a string.
    text_cells: bool = False
    #: where a trace import found the row: (trace id, span id or None), both hex; None for any other input
    trace: tuple[str, str | None] | None = None
    #: where a conversation's turn is in its row (``turns[3]``): errors about the turn name it
    turn: str | None = None

