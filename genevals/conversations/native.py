"""The ``turns`` form: one row per conversation whose ``turns`` is a list of messages
``{"role": "user" | "assistant" | "system", "content": ..., "contexts"?: [...], "references"?: [...]}``.

DeepEval's conversational test cases read as they are: its ``Turn`` s have ``role`` and ``content`` and carry
the retrieved chunks as ``retrieval_context``; its older form, a list of ``LLMTestCase`` s (``input``,
``actual_output``, ``retrieval_context``, ``expected_output``), is one user and one assistant message each.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genevals.conversations.model import Message, TurnError, role, text, turn_fields

#: the keys of a DeepEval ``LLMTestCase`` used as a turn (its older conversational form)
TEST_CASE_KEYS = ("input", "actual_output")


def messages(turns: Any, key: str = "turns") -> list[Message]:
    """The messages of a ``turns`` list; a :class:`TurnError` names the turn and key of the first problem."""
    if not isinstance(turns, list):
        raise TurnError(key, f"expected a list of turns, got {type(turns).__name__}")
    out: list[Message] = []
    for index, item in enumerate(turns):
        where = f"{key}[{index}]"
        if not isinstance(item, Mapping):
            raise TurnError(where, f"expected a turn object {{\"role\": ..., \"content\": ...}}, got "
                                   f"{type(item).__name__}")
        if "role" not in item and any(k in item for k in TEST_CASE_KEYS):
            out += _test_case(item, where)
            continue
        if "role" not in item:
            raise TurnError(f"{where}.role", "missing role (user, assistant or system)")
        said = role(item["role"], f"{where}.role")
        out.append(Message(said, text(item.get("content"), f"{where}.content"), where,
                           turn_fields(item, where, said)))
    return out


def _test_case(item: Mapping[str, Any], where: str) -> list[Message]:
    """A DeepEval ``LLMTestCase`` turn: its input, then its output with the turn's contexts and references."""
    out = []
    if item.get("input") not in (None, ""):
        out.append(Message("user", text(item["input"], f"{where}.input"), where))
    fields = turn_fields({k: v for k, v in item.items() if k != "input"}, where, "assistant")
    out.append(Message("assistant", text(item.get("actual_output"), f"{where}.actual_output"), where, fields))
    return out
