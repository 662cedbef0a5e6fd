"""A provider that answers from a script, for tests and for trying a pipeline offline (as inspect_ai ships
``mockllm``). It drives the real code path: prompts, the client's cache, retries and accounting, parsing.

    provider = ScriptedProvider({"decompose": {"claims": [...]}, "verify": {"verdicts": [...]}})
    Faithfulness(JudgeConfig(provider=provider, cache=False))

The script maps a prompt kind to a reply. The kind is the name of the genevals prompt the request was built
from ("decompose", "verify", "rubric"), recognised by the prompt's first line; ``route`` can be given for
other prompts. A reply is a string, anything JSON-serialisable, an exception to raise (e.g.
:class:`~genevals.judge.protocol.TransientError`), a callable of the messages returning one of those, or a
list of those, used in turn (the last repeats).
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any, Callable, Mapping, Sequence

from genevals.judge.protocol import Completion, Message, Usage

PROMPT_KINDS = ("decompose", "verify", "rubric", "answer_relevance", "context_relevance", "context_recall",
                "answer_correctness", "pairwise")


def _first_lines() -> dict[str, str]:
    folder = resources.files("genevals").joinpath("prompts")
    return {kind: folder.joinpath(f"{kind}.md").read_text(encoding="utf-8").strip().splitlines()[0]
            for kind in PROMPT_KINDS}


class ScriptedProvider:
    backend = "scripted"
    base_url = None

    def __init__(self, script: Mapping[str, Any], *, model: str = "scripted-judge",
                 route: Callable[[Sequence[Message]], str] | None = None, warning: str | None = None) -> None:
        self.script = dict(script)
        self.model = model
        self.warning = warning
        self._route = route
        self._lines = _first_lines() if route is None else {}
        #: (kind, content of the last message) of every request, in order
        self.calls: list[tuple[str, str]] = []

    def kind(self, messages: Sequence[Message]) -> str:
        if self._route is not None:
            return self._route(messages)
        content = messages[0]["content"]
        for kind, line in self._lines.items():
            if content.startswith(line):
                return kind
        return "other"

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.calls if k == kind)

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion:
        kind = self.kind(messages)
        self.calls.append((kind, messages[-1]["content"]))
        if kind not in self.script:
            raise KeyError(f"the script has no reply for a '{kind}' prompt")
        reply = self.script[kind]
        if isinstance(reply, list):
            reply = reply[min(self.count(kind) - 1, len(reply) - 1)]
        if callable(reply) and not isinstance(reply, type):
            reply = reply(messages)
        if isinstance(reply, BaseException):
            raise reply
        if not isinstance(reply, str):
            reply = json.dumps(reply)
        content = messages[0]["content"]
        return Completion(text=reply, usage=Usage(len(content) // 4, len(reply) // 4))
