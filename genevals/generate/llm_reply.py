"""A generation reply read into the fields of an item, or refused with the reason.

Strict about meaning, lenient about packaging (as the judge metrics' reader is,
:func:`genevals.metrics.judging.parse.extract_json`): a JSON object bare, fenced or with chatter around it is
read; anything that would make the item wrong is refused with a :class:`GenerationFailed` that says why:

- a reply cut at ``max_tokens`` (finish reason ``length``), or JSON that stops before its end: the item it would
  give is a fragment, so unlike a judge verdict nothing of it is salvaged;
- an empty reply, one that is not JSON, or not a JSON object;
- a question or reference that is missing, not text or blank;
- evidence that is not a list of ``{chunk_id, quote}``, a blank quote, a ``chunk_id`` that was not among the
  chunks given (a quote from nowhere cannot be located) or that is a distracting item's distractor, or no
  evidence at all for a type that needs it (every
  type but ``unanswerable``);
- for multi_hop and unanswerable, a ``variant`` that is not one of the type's;
- for follow_up, ``turns`` that are not a non-empty list of ``{role: user|assistant, content}`` starting with
  the user.

Whether the quotes are verbatim, the reference supported, the chunks each needed, are the gates' questions
(:mod:`genevals.generate.gates`), not the reader's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from genevals.generate.items import Evidence
from genevals.generate.llm_prompt import VARIANTS
from genevals.metrics.judging.parse import ParseError, extract_json
from genevals.quote import quoted

#: the most earlier turns a follow-up may carry (the schema's ``maxItems``)
MAX_TURNS = 6


class GenerationFailed(ValueError):
    """A reply that gives no item; the message is the reason recorded with ``generation_failed``."""


@dataclass(frozen=True)
class Reply:
    question: str
    reference: str
    evidence: tuple[Evidence, ...]
    variant: str = ""
    turns: tuple[dict[str, str], ...] = ()


def _text(reply: Mapping[str, Any], key: str) -> str:
    value = reply.get(key)
    if value is None:
        raise GenerationFailed(f"the reply has no '{key}'")
    if not isinstance(value, str):
        raise GenerationFailed(f"the reply's '{key}' is a {type(value).__name__}, not text")
    if not value.strip():
        raise GenerationFailed(f"the reply's '{key}' is blank")
    return value.strip()


def _evidence(reply: Mapping[str, Any], item_type: str, chunk_ids: Sequence[str],
              distractors: Sequence[str]) -> tuple[Evidence, ...]:
    found = reply.get("evidence", [])
    if not isinstance(found, list):
        raise GenerationFailed(f"the reply's 'evidence' is a {type(found).__name__}, not a list")
    given = set(chunk_ids)
    out = []
    for n, entry in enumerate(found, 1):
        if not isinstance(entry, Mapping):
            raise GenerationFailed(f"evidence {n} is a {type(entry).__name__}, not an object {{chunk_id, quote}}")
        chunk_id, quote = entry.get("chunk_id"), entry.get("quote")
        if isinstance(chunk_id, str) and chunk_id in distractors:
            raise GenerationFailed(f"evidence {n} cites the distracting chunk {chunk_id}; a distracting item's answer "
                                   f"comes from {', '.join(chunk_ids)}")
        if not isinstance(chunk_id, str) or chunk_id not in given:
            raise GenerationFailed(f"evidence {n} cites chunk {quoted(chunk_id, 80)}, which was not given "
                                   f"(given: {', '.join(chunk_ids)})")
        if not isinstance(quote, str) or not quote.strip():
            raise GenerationFailed(f"evidence {n} (chunk {chunk_id}) has no quote")
        out.append(Evidence(chunk_id, quote.strip()))
    if not out and item_type != "unanswerable":
        raise GenerationFailed(f"the reply quotes no evidence, which a {item_type} item needs")
    return tuple(out)


def _variant(reply: Mapping[str, Any], item_type: str) -> str:
    kinds = VARIANTS.get(item_type)
    if not kinds:
        return ""
    value = reply.get("variant")
    if not isinstance(value, str) or value.strip().lower() not in kinds:
        raise GenerationFailed(f"the reply's 'variant' is {quoted(value, 80)}; a {item_type} item is one of "
                               f"{', '.join(kinds)}")
    return value.strip().lower()


def _turns(reply: Mapping[str, Any], item_type: str) -> tuple[dict[str, str], ...]:
    if item_type != "follow_up":
        return ()
    turns = reply.get("turns")
    if not isinstance(turns, list) or not turns:
        raise GenerationFailed("a follow_up reply needs 'turns': a non-empty list of the earlier turns")
    if len(turns) > MAX_TURNS:
        raise GenerationFailed(f"the reply has {len(turns)} earlier turns; at most {MAX_TURNS}")
    out = []
    for n, turn in enumerate(turns, 1):
        role = turn.get("role") if isinstance(turn, Mapping) else None
        content = turn.get("content") if isinstance(turn, Mapping) else None
        if role not in ("user", "assistant") or not isinstance(content, str) or not content.strip():
            raise GenerationFailed(f"turn {n} is not {{role: user or assistant, content: text}}")
        out.append({"role": role, "content": content.strip()})
    if out[0]["role"] != "user":
        raise GenerationFailed("the earlier turns start with the assistant; a conversation starts with the user")
    return tuple(out)


def read(text: str | None, finish_reason: str | None, item_type: str, chunk_ids: Sequence[str],
         max_tokens: int, distractors: Sequence[str] = ()) -> Reply:
    """The item's fields in ``text``, its evidence citing only ``chunk_ids`` (a distracting item's: the chunk that
    answers; its ``distractors`` are given to the model, never cited); :class:`GenerationFailed` with the reason
    when it gives none."""
    if finish_reason == "length":
        raise GenerationFailed(f"the reply was cut at max_tokens ({max_tokens} tokens): a truncated item is not kept")
    if text is None or not text.strip():
        raise GenerationFailed("the reply is empty")
    try:
        reply, salvaged = extract_json(text)
    except ParseError as exc:
        raise GenerationFailed(f"the reply is not JSON ({exc})") from None
    except RecursionError:  # a reply nested thousands deep
        raise GenerationFailed("the reply is not JSON (nested too deep to read)") from None
    if salvaged:
        raise GenerationFailed("the reply's JSON stops before its end (truncated): a truncated item is not kept")
    if not isinstance(reply, Mapping):
        raise GenerationFailed(f"the reply is a JSON {type(reply).__name__}, not an object")
    return Reply(question=_text(reply, "question"), reference=_text(reply, "reference"),
                 evidence=_evidence(reply, item_type, chunk_ids, distractors), variant=_variant(reply, item_type),
                 turns=_turns(reply, item_type))
