"""ragas' multi-turn samples: ``user_input`` is the conversation, a list of messages
``{"content": ..., "type": "human" | "ai" | "tool"}`` (ragas' ``HumanMessage``, ``AIMessage``, ``ToolMessage``
as ``model_dump()`` writes them; ``role`` is read too).

ragas keeps what a tool returned in tool messages: the tool messages since the previous AI message are the
retrieved contexts of the next AI message (a message's own ``retrieved_contexts`` are added after them). The
sample's ``reference`` is the expected outcome of the whole conversation: it is the reference of the last AI
message.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from genevals.conversations.model import Message, TurnError, role, text, turn_fields

ALIASES = {"human": "user", "ai": "assistant", "tool": "tool"}


def messages(user_input: Any, reference: Any = None, key: str = "user_input") -> list[Message]:
    if not isinstance(user_input, list):
        raise TurnError(key, f"expected a list of messages, got {type(user_input).__name__}")
    out: list[Message] = []
    tools: list[str] = []  # tool output since the last AI message: the next one's contexts
    for index, item in enumerate(user_input):
        where = f"{key}[{index}]"
        if not isinstance(item, Mapping):
            raise TurnError(where, f"expected a message {{\"content\": ..., \"type\": \"human\"}}, got "
                                   f"{type(item).__name__}")
        name = "type" if "type" in item else "role"
        if name not in item:
            raise TurnError(f"{where}.type", "missing type (human, ai or tool)")
        said = role(item[name], f"{where}.{name}", ALIASES)
        content = text(item.get("content"), f"{where}.content")
        if said == "tool":
            tools.append(content)
            continue
        fields = turn_fields(item, where, said)
        if said == "assistant" and tools:
            own = fields.get("contexts")
            if own is not None and not isinstance(own, list):
                raise TurnError(f"{where}.retrieved_contexts", f"expected a list, got {type(own).__name__}")
            fields["contexts"] = tools + list(own or [])
            tools = []
        out.append(Message(said, content, where, fields))
    if reference not in (None, "") and any(m.role == "assistant" for m in out):
        last = max(i for i, m in enumerate(out) if m.role == "assistant")
        out[last].fields.setdefault("references", reference)
    return out
