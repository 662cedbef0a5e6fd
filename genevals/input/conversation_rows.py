"""Conversations among the raw rows: a row holding a conversation (a ``turns`` list, or ragas' ``user_input`` as
a list of messages) becomes one raw row per assistant turn, and a flat row with a ``conversation_id`` gets the
history of the rows of its conversation read before it. Every other row passes unchanged. The rows made here
are then validated like any row (:class:`~genevals.input.rows.RowValidator`), so a turn is a sample like any
other; what a conversation is, and each input form, is :mod:`genevals.conversations`'.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Iterable, Iterator

from genevals.conversations import flat, native, ragas
from genevals.conversations.model import TurnError, per_turn
from genevals.input import mapping
from genevals.input.rows import ALIASES, KNOWN_FIELDS, InputError, RawRow

#: the keys of a conversation row that the conversation readers consume (never passed on to its turns)
CONSUMED = frozenset({"turns", "user_input", "reference", "id", "conversation_id", "context"})


def conversation_form(data: Mapping[str, Any], text_cells: bool = False) -> tuple[str, Any] | None:
    """("turns" | "user_input", the list) when the row holds a whole conversation, else None. A CSV cell's
    list is read from its JSON."""
    found = None
    for key in ("turns", "user_input"):
        value = data.get(key)
        if text_cells and isinstance(value, str) and value.lstrip().startswith("["):
            found = mapping.literal(value)
            value = found[0] if found is not None else value
        if hasattr(value, "tolist"):
            value = value.tolist()
        if key == "turns" and not mapping.is_missing(value) and value != "":
            found = key, value
        # user_input is also ragas' single-turn question: only a list holding messages (or none) is a conversation
        # (one that also holds a string is a conversation with a bad message, which ragas.messages names)
        elif key == "user_input" and isinstance(value, list) and (not value or any(isinstance(m, Mapping)
                                                                                 for m in value)):
            if found is not None:  # which one to score would be a guess
                raise TurnError("user_input", "a row holds one conversation: it has both turns and user_input "
                                              "(ragas' messages); keep one of them")
            found = key, value
    return found


def is_conversation_header(columns: Iterable[Any]) -> bool:
    """Whether a table with ``columns`` holds conversations (it then needs no answer column)."""
    return "turns" in columns or "user_input" in columns


def expand(raws: Iterable[RawRow | InputError], renamed: Callable[[Mapping[str, Any]], dict[str, Any]],
           budget: int, column_map: Mapping[str, str] | None = None,
           seen: Callable[[str, Mapping[str, Any]], None] | None = None) -> Iterator[RawRow | InputError]:
    """``raws`` with every conversation row replaced by its turns' rows and every flat turn given its history;
    ``renamed`` gives a row's fields by genevals' names (``--map``, ``column_map``, applied). ``seen(origin,
    fields)`` is told of each row refused here (the row reader never sees it): else a file whose every row is
    refused here would report its ``--map`` columns as absent ("fields found: none") instead of the rows' errors."""
    grouper = flat.Grouper(budget)
    # only a row holding the conversation id's column is renamed here (the row reader renames every row anyway)
    tie = (column_map or {}).get("conversation_id", "conversation_id")
    for raw in raws:
        if isinstance(raw, InputError) or not isinstance(raw.data, Mapping):
            yield raw
            continue
        data = raw.data
        if "turns" not in data and "user_input" not in data and tie not in data and "conversation_id" not in data:
            yield raw  # most rows: no conversation, read at the cost of four lookups
            continue
        try:
            form = conversation_form(raw.data, raw.text_cells)
            if form is not None:
                yield from _turns(raw, *form, renamed, budget)
                continue
            fields = renamed(raw.data) if tie in raw.data or "conversation_id" in raw.data else None
            if fields is not None and not mapping.is_missing(fields.get("conversation_id")) \
                    and "history" not in fields:
                yield _flat(raw, fields, grouper)
            else:
                yield raw
        except TurnError as exc:
            if seen is not None:
                seen(f"{raw.source}:{raw.line}", data)
            yield InputError(raw.source, raw.line, exc.field, exc.message)


def _turns(raw: RawRow, key: str, listing: Any, renamed, budget: int) -> Iterator[RawRow]:
    data = raw.data
    fields = renamed({k: v for k, v in data.items() if k not in ("turns", "user_input")})
    given = fields.get("conversation_id")
    if mapping.is_missing(given):
        given = fields.get("id")
    named = "conversation_id" if not mapping.is_missing(fields.get("conversation_id")) else "id"
    # the turns carry every question, answer and retrieval: a row-level one would be dropped without a word
    for extra in ("question", "answer", "contexts"):
        if not mapping.is_missing(fields.get(extra)) and fields.get(extra) != "" and not (
                extra == "contexts" and "context" in data):  # DeepEval's conversation-wide `context`: background
            raise TurnError(extra, f"a row holding a conversation ({key}) takes its {extra} from its turns; this "
                                   f"row also has a row-level {extra}, which would be ignored: move it into the "
                                   f"turn it belongs to, or remove it")
    conversation = str(raw.line) if mapping.is_missing(given) or given == "" else flat.conversation_id(given, named)
    if key == "turns":
        messages = native.messages(listing)
    else:
        messages = ragas.messages(listing, data.get("reference"))
    # the row's own fields every turn shares (its system, its language), and the fields genevals does not read,
    # so that they are warned about as in any row
    shared = {k: v for k, v in data.items()
              if k not in CONSUMED and (k in ("system", "language") or (k not in KNOWN_FIELDS and k not in ALIASES))}
    turns = list(per_turn(conversation, messages, budget))
    if not turns:
        raise TurnError(key, f"conversation '{conversation}' has no assistant turn: nothing to score (roles: "
                             f"{', '.join(sorted({m.role for m in messages})) or 'none'})")
    for where, row in turns:
        yield RawRow(raw.source, raw.line, {**shared, **row}, trace=raw.trace, turn=where)


def _flat(raw: RawRow, fields: dict[str, Any], grouper: flat.Grouper) -> RawRow:
    conversation = flat.conversation_id(fields["conversation_id"])
    if mapping.is_missing(fields.get("turn")):
        raise TurnError("turn", f"a row of conversation '{conversation}' needs its turn number, to order the "
                                "conversation's rows")
    turn = flat.turn_number(fields["turn"])
    question, answer = fields.get("question"), fields.get("answer")
    if not isinstance(answer, str) or not (question is None or isinstance(question, str)):
        return raw  # the row reader says what is wrong with them
    system = fields.get("system")
    system = system if isinstance(system, str) and system else "default"
    history = grouper.history(system, conversation, turn, question or "", answer, f"{raw.source}:{raw.line}")
    extra: dict[str, Any] = {"history": history}
    if mapping.is_missing(fields.get("id")) or fields.get("id") == "":
        extra["id"] = f"{conversation}:{turn}"
    return RawRow(raw.source, raw.line, {**raw.data, **extra}, raw.text_cells, trace=raw.trace)
