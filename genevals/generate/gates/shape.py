"""``type_mismatch``: the item has the shape its type promises. The rules, checked in this order:

- every item: a type of :data:`~genevals.generate.items.TYPES`; question, reference, chunk ids and quotes that
  are text; a non-empty question; at least one chunk; earlier turns only for a ``follow_up``;
- ``unanswerable``: ``expect_refusal`` true and a refusal-shaped reference (:func:`genevals.text.detect_refusal`;
  its patterns are English, so in another language the reference need only be non-empty, and the reason says
  the shape was not checked);
- every other type: ``expect_refusal`` false and a non-empty reference that is not a refusal (``known_item``
  excepted: a known-item query's target is its chunk, so its reference may be empty);
- ``multi_hop``: at least :data:`MULTI_HOP_CHUNKS` distinct chunks, with evidence quoted from at least two;
- ``follow_up``: earlier turns, each ``{"role": "user" | "assistant", "content": non-empty}``, the last one the
  assistant's (the question is the user's next turn);
- ``summary``: at least two evidence quotes (a summary draws on more than one place) and a reference of at
  least :data:`SUMMARY_WORDS` words;
- ``reasoning``: a reference of at least :data:`REASONING_WORDS` words (a conclusion with its reason, not a span);
- ``known_item`` and ``extractive`` (the offline generators): exactly one chunk.
"""
from __future__ import annotations

from genevals.generate.gates.outcome import Outcome, passed
from genevals.generate.items import TYPES, Evidence, Item
from genevals.text import detect_refusal

NAME = "type_mismatch"
MULTI_HOP_CHUNKS = 2
SUMMARY_WORDS = 12
REASONING_WORDS = 6
ROLES = ("user", "assistant")


def _fields_problem(item: Item) -> str | None:
    """What a generator's reply may have left of the wrong kind (the later gates read these as text)."""
    for name in ("question", "reference"):
        if not isinstance(getattr(item, name), str):
            return f"the {name} is not text"
    if not all(isinstance(c, str) for c in item.chunks):
        return "a chunk id is not text"
    for n, ev in enumerate(item.evidence, 1):
        if not isinstance(ev, Evidence) or not isinstance(ev.quote, str) or not isinstance(ev.chunk_id, str):
            return f"evidence {n} is not a quote (text) from a chunk (an id)"
    if item.turns and item.type != "follow_up":
        return f"a {item.type} item has earlier turns (only a follow_up has them)"
    return None


def _problem(item: Item, language: str) -> str | None:
    if item.type not in TYPES:
        return f"type {item.type!r} is none of {', '.join(TYPES)}"
    fields = _fields_problem(item)
    if fields is not None:
        return fields
    if not item.question.strip():
        return "the question is empty"
    if not item.chunks:
        return "the item is built on no chunk"
    reference = item.reference.strip()
    if item.type == "unanswerable":
        if not item.expect_refusal:
            return "an unanswerable item must have expect_refusal true"
        if not reference:
            return "an unanswerable item needs a refusal as its reference"
        if language == "en" and detect_refusal(reference) is None:
            return "the reference of an unanswerable item is not a refusal"
        return None
    if item.expect_refusal:
        return f"a {item.type} item must have expect_refusal false"
    if not reference and item.type != "known_item":
        return "the reference is empty"
    if reference and language == "en" and detect_refusal(reference) is not None:
        return f"the reference of a {item.type} item is a refusal"
    quoted = {ev.chunk_id for ev in item.evidence}
    words = len(reference.split())
    if item.type == "multi_hop":
        if len(set(item.chunks)) < MULTI_HOP_CHUNKS:
            return f"a multi_hop item needs {MULTI_HOP_CHUNKS} or more chunks, it has {len(set(item.chunks))}"
        if len(quoted) < MULTI_HOP_CHUNKS:
            return f"a multi_hop item needs evidence from {MULTI_HOP_CHUNKS} or more chunks, it quotes {len(quoted)}"
    elif item.type == "follow_up":
        return _turns_problem(item)
    elif item.type == "summary":
        if len(item.evidence) < 2:
            return f"a summary needs 2 or more evidence quotes, it has {len(item.evidence)}"
        if words < SUMMARY_WORDS:
            return f"a summary's reference needs {SUMMARY_WORDS} or more words, it has {words}"
    elif item.type == "reasoning" and words < REASONING_WORDS:
        return f"a reasoning item's reference needs {REASONING_WORDS} or more words, it has {words}"
    elif item.type in ("known_item", "extractive") and len(item.chunks) != 1:
        return f"a {item.type} item is built on exactly one chunk, it has {len(item.chunks)}"
    return None


def _turns_problem(item: Item) -> str | None:
    if not item.turns:
        return "a follow_up item has no earlier turns"
    for n, turn in enumerate(item.turns, 1):
        role, content = (turn.get("role"), turn.get("content")) if isinstance(turn, dict) else (None, None)
        if role not in ROLES or not isinstance(content, str) or not content.strip():
            return f"turn {n} is not {{\"role\": user or assistant, \"content\": text}}"
    if item.turns[-1]["role"] != "assistant":
        return "a follow_up's last earlier turn must be the assistant's"
    return None


def check(item: Item, language: str) -> Outcome:
    """``language``: the item's language (the refusal shape is checked in English only)."""
    problem = _problem(item, language)
    if problem is not None:
        return Outcome(NAME, problem)
    if item.type == "unanswerable" and language != "en":
        return passed(f"shape checked; the refusal shape is not checked in {language} (English patterns only)")
    return passed(f"a well-formed {item.type} item")
